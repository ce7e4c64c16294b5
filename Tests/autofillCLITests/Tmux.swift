import Foundation

/// A real terminal session in a private tmux server, driven with send-keys and read with capture-pane.
final class TmuxSession {
    let socket = "autofill-test-\(UUID().uuidString.prefix(8))"
    let name = "s"

    /// Starts `command` (a shell command line) in a 120×40 pane.
    init(_ command: String) throws {
        try tmux(["new-session", "-d", "-s", name, "-x", "120", "-y", "40", command])
        try tmux(["set-option", "-t", name, "remain-on-exit", "on"])
    }

    deinit { _ = try? tmux(["kill-server"]) }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        process.arguments = ["-L", socket, "-f", "/dev/null"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// What the pane shows.
    func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", name]) }

    /// Types `keys` (tmux key names, e.g. "2", "Enter").
    func send(_ keys: String...) throws { try tmux(["send-keys", "-t", name] + keys) }

    /// Waits until the pane shows `text`; returns the screen.
    @discardableResult
    func waitFor(_ text: String, timeout: TimeInterval = 10) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let shown = try screen()
            if shown.contains(text) { return shown }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TmuxTimeout(expected: text, screen: try screen())
    }
}

struct TmuxTimeout: Error, CustomStringConvertible {
    let expected: String
    let screen: String
    var description: String { "the pane never showed \"\(expected)\"; it shows:\n\(screen)" }
}
