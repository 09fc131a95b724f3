// swift-tools-version:6.0
// snapsize: a size-selection service on D-Bus and AT-SPI2.
// No outside Swift packages: the toolchain's own libraries plus libdbus-1 and libatspi-2 as system libraries.
import PackageDescription

/// This file's folder: the linker is not run from it, so a file it reads is named by its full path.
let packageRoot = String(#filePath.dropLast("/Package.swift".count))

/// The modules on the daemon's per-message path (DBusKit, AtSpi, SnapService) leave out the run-time
/// exclusivity checks in release builds: a swift_beginAccess for nearly every read of a class's `var`
/// is a cost on every call that Benchmarks/thresholds would not allow (`make profile`). The compile-time
/// checks stay, and debug builds, which run the whole test suite, keep the run-time ones. None of
/// these modules holds an access across a call that could come back to the same property: the event
/// loop swaps its poll buffers into locals before poll and the callbacks, SelectionModel transitions
/// a local copy and stores it before any observer runs, MessageTemplates' build closures only build a
/// message, and the libdbus callbacks that edit a binding's watch lists touch only the entries.
let uncheckedExclusivityInRelease = SwiftSetting.unsafeFlags(
    ["-enforce-exclusivity=unchecked"], .when(configuration: .release))

/// A generic type such as `StepCommand<Larger>` or `[String: String]` is otherwise instantiated by
/// its mangled name the first time it is used, which makes the runtime check its requirements by
/// scanning every protocol conformance in the program (some 100,000 instructions each in a static
/// binary): in `snapsizectl inc`, which instantiates a few such types once and exits, that was
/// a tenth of its run. With this flag the compiler calls each type's metadata accessor with the
/// conformances it already knows. Only for the CLI's own modules: in the daemon's, a running
/// process pays each instantiation once, and the accessors it would call instead are other
/// functions than scripts/snapsized.order names.
let directMetadataAccess = SwiftSetting.unsafeFlags([
    "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"
])

/// Every module a Swift compiler builds imports _StringProcessing (Regex and its string algorithms)
/// unless told not to; once one call reaches it, the linker brings in the whole library with its
/// metadata and conformances, and the Regex parser behind it: thousands of pointers for the dynamic
/// loader to relocate, and pages to copy, at every start of `snapsizectl`. The modules it links use
/// none of it (Texts.contains finds a text in a text).
let noStringProcessing = SwiftSetting.unsafeFlags([
    "-Xfrontend", "-disable-implicit-string-processing-module-import"
])

/// How both programs link: the Swift runtime statically (Debian has no Swift runtime package), so only
/// the parts they use are loaded. With lld, the C++ runtime the Swift runtime needs is static too, only
/// the objects used: lld reads a linker script of scripts/static-link naming the archive instead of each
/// shared library (--remap-inputs). libdbus stays shared in snapsized, so that Debian's security updates
/// of it reach the daemon at once (snapsizectl's reason to carry it is at its target); both are
/// position-independent (ASLR) and bind every symbol at start,
/// read-only afterwards (-z now, with lld's default -z relro). The Swift runtime's many relative
/// relocations are packed (-z pack-relative-relocs, DT_RELR, glibc 2.36 and later), so the table read
/// at every start is small. Nothing is exported (the Swift driver passes -export-dynamic).
let staticRuntimeLinking = [
    "-static-stdlib", "-use-ld=lld",
    "-Xlinker", "--remap-inputs=*/libstdc++.so=\(packageRoot)/scripts/static-link/libstdc++.ld",
    "-Xlinker", "--remap-inputs=*/libgcc_s.so=\(packageRoot)/scripts/static-link/libgcc_s.ld",
    "-Xlinker", "--no-export-dynamic",
    "-Xlinker", "-z", "-Xlinker", "now", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"
]

let package = Package(
    name: "snapsize",
    products: [
        .executable(name: "snapsized", targets: ["snapsized"]),
        .executable(name: "snapsizectl", targets: ["snapsizectl"]),
        .executable(name: "snapcore-bench", targets: ["snapcore-bench"]),
        .executable(name: "snapsize-bench", targets: ["snapsize-bench"]),
        .executable(name: "snapsize-panel", targets: ["snapsize-panel"])
    ],
    targets: [
        // Pure Swift: the snapping rules and the selection state machine. No Foundation, no C.
        // (`rounded()` lowers to libm's round(), which the linker must be told about.)
        .target(
            name: "SnapCore", swiftSettings: [noStringProcessing], linkerSettings: [.linkedLibrary("m")]),

        // glibc's gettext (libintl.h), which Swift's Glibc module does not expose; part of libc, nothing to link.
        .systemLibrary(name: "CIntl"),
        // Every word a person reads or hears about the selection, through gettext (text domain
        // `snapsize`, catalogs in po/). Above the core, so SnapCore stays pure Swift.
        .target(
            name: "SnapTexts", dependencies: ["SnapCore", "CIntl", "CPOSIX"],
            swiftSettings: [noStringProcessing]),

        // Parsers for flag and config-file values, shared by the daemon and the CLI; and the speech timing
        // (SpeechTiming), which the tests and the benchmark wait on by name.
        .target(
            name: "SnapSettings", dependencies: ["SnapCore", "SnapTexts"],
            swiftSettings: [noStringProcessing]),

        // glibc's <malloc.h> (mallopt, malloc_trim), which the Glibc module leaves out: snapsized's memory
        // setting, and SystemCalls' giving memory back after a backlog.
        .systemLibrary(name: "CMalloc"),
        // errno, environ, the variadic open, fcntl and ioctl and a few macros as inline C, instead of
        // Swift's Glibc overlay, which would link its math wrappers into the programs (CPOSIX/shim.h).
        .systemLibrary(name: "CPOSIX"),
        // The process's own argv, kept by a constructor that glibc calls with it, for processArguments()
        // and CommandLine.arguments: the Swift runtime's Linux way reads /proc/self/maps at every start
        // and finds nothing where /proc is not mounted (arguments.c).
        // DWARF 4, as the Swift compiler writes: valgrind 3.19 (Debian 12), which make profile-check runs,
        // cannot read clang's default DWARF 5 ("Possibly corrupted debuginfo file").
        .target(name: "CArguments", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        // The POSIX file calls (open, write-all, fsync, rename...) in one seam, which tests can make fail
        // (ENOSPC, EACCES, EIO) in debug builds, as swift-system's mocking does; plain calls in release.
        // Beside them the process utilities every program needs and that mean nothing to D-Bus: the
        // arguments, the environment, diagnostic lines on stderr, the monotonic clock, giving free memory back.
        .target(
            name: "SystemCalls", dependencies: ["CMalloc", "CArguments", "CPOSIX"],
            swiftSettings: [.define("ENABLE_MOCKING", .when(configuration: .debug)), noStringProcessing]),

        // libdbus-1 as a system library; only DBusKit may import it (and the benchmark's client, which
        // must cost the same whichever server it measures, so it is plain libdbus, not the code under test).
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // Swift wrapper over libdbus: names, values, connections, object tables, the poll(2) event loop.
        .target(
            name: "DBusKit", dependencies: ["CDBus", "SystemCalls", "CPOSIX"],
            swiftSettings: [uncheckedExclusivityInRelease, noStringProcessing]),

        // AT-SPI2 over DBusKit: the accessible application root and one slider, knowing nothing about snapping.
        .target(
            name: "AtSpi", dependencies: ["DBusKit", "SystemCalls"],
            swiftSettings: [uncheckedExclusivityInRelease, noStringProcessing]),

        // org.snapsize.SizeSelector1 as both sides see it: names, error names, methods, properties (signature,
        // encoding, decoding) and reply shapes. Nothing else spells the contract.
        .target(
            name: "SizeSelectorContract", dependencies: ["DBusKit"],
            swiftSettings: [noStringProcessing]),

        // The daemon: the one owner of the selection, persistence, org.snapsize.SizeSelector1, the accessible slider.
        .target(
            name: "SnapService",
            dependencies: [
                "SnapCore", "SnapTexts", "SnapSettings", "DBusKit", "AtSpi", "SizeSelectorContract",
                "SystemCalls"
            ],
            swiftSettings: [uncheckedExclusivityInRelease]),
        // Linked with the static runtimes (staticRuntimeLinking), which halves its resident memory and
        // start-up time (make bench: PSS, exec -> name owned); libdbus shared matters most here, as any
        // client on the session bus can talk to it. The functions it runs are placed together
        // (scripts/snapsized.order, made by scripts/link-order.sh). docs/PERFORMANCE.md.
        .executableTarget(
            name: "snapsized", dependencies: ["SnapService", "SystemCalls", "CMalloc"],
            linkerSettings: [
                .unsafeFlags(
                    staticRuntimeLinking + [
                        "-Xlinker", "--symbol-ordering-file=\(packageRoot)/scripts/snapsized.order",
                        "-Xlinker", "--no-warn-symbol-ordering"
                    ])
            ]),

        // The command-line front end (argument parsing, commands, output). `doctor` is an AT-SPI client and
        // takes the protocol's names (roles, paths, interfaces) from AtSpi rather than copying them.
        .target(
            name: "SnapCLI",
            dependencies: [
                "SnapCore", "SnapTexts", "SnapSettings", "DBusKit", "SizeSelectorContract", "AtSpi",
                "SystemCalls", "CPOSIX"
            ],
            swiftSettings: [directMetadataAccess, noStringProcessing]),
        // Linked as snapsized is (static Swift and C++ runtimes, nothing exported, packed relocations), so
        // that the Debian package needs no Swift toolchain (make deb) and a key press that starts it waits
        // for no shared libstdc++ to be loaded and bound: its start-up is most of `snapsizectl inc`'s time.
        // What a key press runs and touches is placed together (scripts/snapsizectl.order, made by
        // scripts/ctl-link-order.sh), so the kernel maps it in fewer page faults.
        //
        // libdbus is linked statically here too (only here: snapsized, which any session client talks to and
        // which runs for days, keeps the shared one, so Debian's security updates reach it at once). Shared,
        // it brings libsystemd and the six libraries behind that into every key press, each found, mapped
        // and relocated (dbus-send pays the same). A security update of libdbus means rebuilding the
        // package, as for the C++ runtime: Built-Using names dbus (scripts/build-deb.sh).
        // StaticLibdbus answers the two libsystemd calls that its socket code names (DWARF 4, as CArguments).
        .target(name: "StaticLibdbus", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .executableTarget(
            name: "snapsizectl", dependencies: ["SnapCLI", "SystemCalls", "StaticLibdbus"],
            swiftSettings: [directMetadataAccess, noStringProcessing],
            linkerSettings: [
                .unsafeFlags(
                    staticRuntimeLinking + [
                        "-Xlinker",
                        "--remap-inputs=*/libdbus-1.so=\(packageRoot)/scripts/static-link/libdbus-1.ld",
                        "-Xlinker", "--symbol-ordering-file=\(packageRoot)/scripts/snapsizectl.order",
                        "-Xlinker", "--no-warn-symbol-ordering"
                    ])
            ]),

        // Man pages and shell completions generated from the same tables as --help (`make install`, `make deb`).
        .target(name: "SnapDocs", dependencies: ["SnapCLI", "SnapSettings", "SnapCore", "SnapTexts"]),
        .executableTarget(name: "snapsize-docs", dependencies: ["SnapDocs"]),

        // GTK 4 as a system library, and the C it takes to use it from Swift: signal connections (macros),
        // GObject casts, variadic constructors and GVariant builders. Only the panel links GTK, so the
        // daemon and the CLI stay free of it (their Debian package does not pull it in).
        .systemLibrary(name: "CGtk", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        .target(name: "GtkShim", dependencies: ["CGtk"]),
        // The article's control on screen: a GTK 4 window drawing what the daemon reports, through GDBus on
        // GTK's main loop. SizeSelectorContract gives it the contract's names and decoders (DBusKit's values,
        // none of its connections: libdbus is linked, never called).
        .target(
            name: "SnapPanel",
            dependencies: ["SnapCore", "SnapTexts", "SizeSelectorContract", "CGtk", "GtkShim"]),
        // Static Swift runtime, as snapsizectl (Debian has no Swift runtime package); GTK and GLib shared.
        // (gtk4's pkg-config names every library GTK links, pango and graphene among them, before any flag
        // given here, so --as-needed cannot drop them: dpkg-shlibdeps names them too, all of which
        // libgtk-4-1 depends on anyway.)
        .executableTarget(
            name: "snapsize-panel", dependencies: ["SnapPanel"],
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-Xlinker", "-z", "-Xlinker", "now"])]),

        // Release-mode micro-benchmark of SnapCore (`make bench-core`).
        .executableTarget(name: "snapcore-bench", dependencies: ["SnapCore"]),

        // `make bench`: snapsized against the C floor in Benchmarks/ on one private bus (docs/PERFORMANCE.md).
        .executableTarget(
            name: "snapsize-bench",
            dependencies: [
                "CDBus", "SizeSelectorContract", "SnapCLI", "SnapSettings", "SystemCalls", "TestSupport"
            ]),

        // Shared helpers for test targets: posix_spawn children, private session buses, polling waits.
        .target(name: "TestSupport", dependencies: ["DBusKit", "SizeSelectorContract", "SystemCalls"]),

        .testTarget(name: "SnapCoreTests", dependencies: ["SnapCore", "TestSupport"]),
        .testTarget(name: "SnapTextsTests", dependencies: ["SnapTexts", "SnapCore", "TestSupport"]),
        .testTarget(name: "SnapSettingsTests", dependencies: ["SnapSettings", "SnapCore", "SnapTexts"]),
        .testTarget(
            name: "SnapDocsTests", dependencies: ["SnapDocs", "SnapCLI", "SnapSettings", "TestSupport"]),
        .testTarget(
            name: "SnapCLITests",
            dependencies: [
                "SnapCLI", "SnapCore", "SnapTexts", "DBusKit", "SizeSelectorContract", "TestSupport"
            ]),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls"]),
        .testTarget(name: "DBusKitTests", dependencies: ["DBusKit", "TestSupport"]),
        .testTarget(
            name: "SnapServiceTests",
            dependencies: [
                "SnapService", "DBusKit", "SizeSelectorContract", "SystemCalls", "TestSupport"
            ]),
        .testTarget(
            name: "SizeSelectorContractTests",
            dependencies: ["SizeSelectorContract", "DBusKit", "TestSupport"]),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
        // The panel: its pointer rules without a display, and the window itself under Xvfb with a real
        // pointer (xdotool) against the real daemon on a private bus.
        .testTarget(
            name: "SnapPanelTests",
            dependencies: ["SnapPanel", "SnapCore", "DBusKit", "SizeSelectorContract", "TestSupport"]),
        // Everything that starts snapsized (as a child process, on a private bus) and talks to it.
        .testTarget(
            name: "SnapsizedTests",
            dependencies: [
                "SnapService", "SnapCLI", "SnapCore", "DBusKit", "SizeSelectorContract",
                "SystemCalls", "TestSupport"
            ]),
        // Rules over the whole package: the layering of the sources, the message catalogs.
        .testTarget(name: "PackageTests", dependencies: ["TestSupport"]),
        // libatspi as a system library, for the in-process client check (needs gobject for g_object_unref).
        .systemLibrary(
            name: "CAtspi", path: "Tests/CAtspi", pkgConfig: "atspi-2",
            providers: [.apt(["libatspi2.0-dev"])]),
        // The accessible slider through real clients: pyatspi, dogtail, libatspi from Swift, and Orca.
        .testTarget(
            name: "AccessibilityTests",
            dependencies: [
                "DBusKit", "SnapCore", "SizeSelectorContract", "SnapService", "TestSupport", "CAtspi"
            ],
            exclude: ["Scripts", "Orca"])
    ],
    swiftLanguageModes: [.v6]
)
