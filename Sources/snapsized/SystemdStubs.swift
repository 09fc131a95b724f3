// snapsized links libdbus statically (Package.swift), so that libdbus's libsystemd, and the libcap,
// libgcrypt, libgpg-error, liblzma, liblz4 and libzstd that libsystemd loads, are not loaded at every
// start (make bench: peak RSS, exec -> name owned). libdbus names two libsystemd functions, both only
// from the server side of a "systemd:" listening address (socket activation of a bus daemon), which a
// bus client never uses. These are them, answering as libsystemd does when no socket was passed.

/// No sockets were passed by a service manager (libsystemd answers 0 when LISTEN_FDS is unset).
@_cdecl("sd_listen_fds")
func sd_listen_fds(_ unsetEnvironment: Int32) -> Int32 { 0 }

/// Never asked with no socket passed; "not such a socket" if it were.
@_cdecl("sd_is_socket")
func sd_is_socket(_ fd: Int32, _ family: Int32, _ type: Int32, _ listening: Int32) -> Int32 { 0 }
