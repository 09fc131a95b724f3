import Foundation

/// A headless Wayland compositor (weston's headless backend) on a socket of its own in a private
/// `XDG_RUNTIME_DIR`, for the panel's test that GTK's Wayland backend shows it: no X server at all.
/// It has no input devices, so the pointer tests stay under Xvfb.
public final class HeadlessWayland {
    /// The socket's name, WAYLAND_DISPLAY's value.
    public let display = "wayland-snapsize"
    public let server: ChildProcess

    /// `environment` gives the XDG_RUNTIME_DIR the socket is made in.
    public init(environment: [String: String], timeout: Double = 30) throws {
        guard DesktopRoot.isInstalled("/usr/bin/weston") else {
            throw TestFailure("weston is not installed (apt install weston; `make test` does it)")
        }
        guard let runtime = environment["XDG_RUNTIME_DIR"] else {
            throw TestFailure("no XDG_RUNTIME_DIR for the Wayland socket")
        }
        let server = try ChildProcess(
            "/usr/bin/weston",
            [
                "--backend=headless-backend.so", "--socket=\(display)", "--idle-time=0", "--width=1024",
                "--height=768"
            ], environment: environment)
        self.server = server
        let ready = waitUntil(timeout: timeout, interval: 0.02) {
            FileManager.default.fileExists(atPath: runtime + "/" + display) || !server.isRunning
        }
        guard ready, server.isRunning else {
            server.terminate()
            throw TestFailure("weston did not make its socket within \(timeout) s: \(server.stderr)")
        }
    }

    deinit { stop() }

    public func stop() { server.terminate() }
}
