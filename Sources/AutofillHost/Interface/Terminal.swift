internal import AutofillSystem

/// The controlling terminal (`/dev/tty`), never stdin/stdout: prompts and echo-less input stay off
/// the standard streams, which carry only what the user asked for (a secret, JSON).
final class Terminal: Sendable {
    private let fd: Int32

    /// Fires while a line is read: the agent's client went away (nil in the CLI's own process).
    private let cancellation: RequestCancellation?

    /// The controlling terminal, or nil when there is none (a pipeline, cron, CI). For a request the
    /// agent serves, the client's terminal (``ClientContext/terminal``: the client opened its
    /// controlling terminal and passed it); the agent itself has none and never opens one.
    static func open() -> Terminal? {
        let context = ClientContext.current
        let fd: Int32
        if context.isAgentRequest {
            guard let terminal = context.terminal else { return nil }
            guard let copy = try? Descriptors.duplicate(terminal) else { return nil }
            fd = copy
        } else {
            guard let opened = try? Descriptors.open("/dev/tty", [.readWrite, .noControllingTerminal]) else { return nil }
            fd = opened
        }
        guard Descriptors.isTerminal(fd) else {
            Descriptors.closeQuietly(fd)
            return nil
        }
        return Terminal(fd: fd, cancellation: context.cancellation)
    }

    private init(fd: Int32, cancellation: RequestCancellation?) {
        self.fd = fd
        self.cancellation = cancellation
    }

    deinit { Descriptors.closeQuietly(fd) }

    /// Writes text to the terminal.
    /// The terminal's width in columns (80 when it does not say).
    var columns: Int {
        let columns = TerminalSize.columns(fd)
        return columns > 0 ? columns : 80
    }

    func write(_ text: String) {
        try? Descriptors.write(fd, text)
    }

    /// Writes `prompt`, then reads one line; nil on end of input (Ctrl-D). With `echo` false the typed
    /// characters are not shown, and echo is restored even if the user presses Ctrl-C. The echo is
    /// off before the prompt shows: what is typed as soon as it shows is neither echoed nor discarded
    /// (turning the echo off discards what was typed before, as getpass does).
    func readLine(after prompt: String, echo: Bool) -> [UInt8]? {
        let saved = echo ? nil : try? TerminalSettings(of: fd)
        if let saved {
            // Not in the agent: its signals are its own, and the client restores its terminal itself.
            if cancellation == nil { try? saved.armRestoring(on: fd, writingNewline: false, withHangUp: true) }
            try? saved.withoutEcho(keepingNewline: true).apply(to: fd)
        }
        defer {
            if let saved {
                try? saved.apply(to: fd)
                if cancellation == nil { TerminalSettings.disarmRestoring(defaults: false) }
            }
        }
        write(prompt)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            // The agent reads a client's terminal only while that client waits: its leaving ends the read.
            if let cancellation {
                let ready = try? Descriptors.waitEither(fd, cancellation.descriptor, timeoutMilliseconds: -1)
                if ready?.second ?? true { return nil }
            }
            let n = (try? withUnsafeMutableBytes(of: &byte) { raw in try Descriptors.read(fd, into: raw) }) ?? -1
            if n <= 0 { return line.isEmpty ? nil : line }
            if byte == UInt8(ascii: "\n") { return line }
            if byte != UInt8(ascii: "\r") { line.append(byte) }
        }
    }
}
