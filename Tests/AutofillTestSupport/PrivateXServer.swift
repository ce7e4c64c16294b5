import Foundation
import Glibc

/// An X server of the test's own (Xvfb, no screen, no TCP) on a display number nobody uses, for the
/// real clipboard tools (`xclip`, `xsel`). ``stop()`` ends it, and with it every program that holds
/// its clipboard; call it in a `defer`.
public final class PrivateXServer {
    /// The display, `:N`.
    public let display: String
    private let server: ChildProcess.Running

    /// Starts Xvfb and waits (10 s at most) until a client can connect.
    public init() throws {
        var started: (String, ChildProcess.Running)?
        for _ in 0..<20 {
            let number = Int.random(in: 200..<6000)
            guard !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") else { continue }
            let process = try ChildProcess.start("/usr/bin/Xvfb", [":\(number)", "-nolisten", "tcp", "-screen", "0", "320x200x24"])
            let deadline = ContinuousClock.now + .seconds(10)
            while process.isRunning && ContinuousClock.now < deadline && !Self.answers(":\(number)") { usleep(20_000) }
            if process.isRunning && Self.answers(":\(number)") {
                started = (":\(number)", process)
                break
            }
            if process.isRunning { kill(process.pid, SIGKILL) }
            _ = process.wait()
        }
        guard let started else { throw ChildProcessError("Xvfb did not start on any display tried") }
        (display, server) = started
    }

    /// Whether a client connects to `display` (xsel says "Can't open display" when none does).
    private static func answers(_ display: String) -> Bool {
        guard let probe = try? ChildProcess.run("/usr/bin/xsel", ["--clipboard", "--output"], environment: ["DISPLAY": display]) else { return false }
        return !probe.stderr.contains("Can't open display")
    }

    /// What the clipboard holds now (`xclip -o`), or nil when nothing owns it.
    public func clipboard() throws -> String? {
        let result = try ChildProcess.run("/usr/bin/xclip", ["-selection", "clipboard", "-out"], environment: ["DISPLAY": display])
        return result.status == 0 ? result.stdout : nil
    }

    /// Copies `text` to the clipboard, as another program would (xclip's background owner holds no
    /// descriptor of the test's).
    public func copy(_ text: String) throws {
        let quoted = "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
        let result = try ChildProcess.run("/bin/sh", ["-c", "printf %s \(quoted) | /usr/bin/xclip -selection clipboard >/dev/null 2>&1"],
                                          environment: ["DISPLAY": display])
        guard result.status == 0 else { throw ChildProcessError("xclip could not copy: \(result.stderr)") }
    }

    /// Ends the server (SIGKILL: see ``PrivateSystemBus/stop()``) and waits for it.
    public func stop() {
        if server.isRunning { kill(server.pid, SIGKILL) }
        _ = server.wait()
    }
}
