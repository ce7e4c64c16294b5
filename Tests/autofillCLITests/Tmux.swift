import AutofillTestSupport
import Foundation

/// A real terminal session in a private tmux server, driven with send-keys and read with capture-pane.
final class TmuxSession {
    let socket = "autofill-test-\(UUID().uuidString.prefix(8))"
    let name = "s"

    /// Starts `command` (a shell command line) in a pane of `columns`×`rows` (120×40).
    init(_ command: String, columns: Int = 120, rows: Int = 40) throws {
        try tmux(["new-session", "-d", "-s", name, "-x", "\(columns)", "-y", "\(rows)", command])
        try tmux(["set-option", "-t", name, "remain-on-exit", "on"])
    }

    deinit { _ = try? tmux(["kill-server"]) }

    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        // Through the shell and into a file: the tmux server that new-session starts outlives the
        // client, and Foundation's Process did not always see that client exit; system() waits for
        // it with waitpid. Arguments are single-quoted for the shell.
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        let quoted = (["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let status = system(quoted.joined(separator: " ") + " </dev/null >'\(output.path)' 2>&1")
        guard status != -1 else { throw TmuxTimeout(expected: "tmux to run", screen: "") }
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    /// What the pane shows.
    func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", name]) }

    /// Types `keys` (tmux key names, e.g. "2", "Enter").
    func send(_ keys: String...) throws { try tmux(["send-keys", "-t", name] + keys) }

    /// Whether the pane's terminal echoes what is typed at this moment (`stty -a` of its tty).
    func echoes() throws -> Bool {
        let tty = try tmux(["display-message", "-p", "-t", name, "#{pane_tty}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = try ChildProcess.run("/bin/stty", ["-F", tty, "-a"])
        let words = Set(settings.stdout.split(whereSeparator: { $0 == " " || $0 == ";" || $0 == "\n" }).map(String.init))
        guard words.contains("echo") || words.contains("-echo") else { throw TmuxTimeout(expected: "stty to say echo or -echo", screen: settings.stdout + settings.stderr) }
        return words.contains("echo")
    }

    /// Waits until the pane shows `text`; returns the screen.
    @discardableResult
    func waitFor(_ text: String, timeout: TimeInterval = 60) throws -> String {
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
