/// snapsize's version, the same for every program: `snapsized --version`, `snapsizectl --version`,
/// the man pages, the accessible application's Version, and the Debian package (scripts/build-deb.sh
/// reads it from this line).
public let snapsizeVersion = "0.1.0"
