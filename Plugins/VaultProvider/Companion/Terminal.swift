import AutofillSystem

/// The terminal the user types secrets at (`/dev/tty`), with echo turned off for secrets.
enum Terminal {
    /// Reads one line from the terminal after writing `prompt` to it; without echo when `secret`.
    static func readLine(prompt: String, secret: Bool) throws(CommandFailure) -> String {
        guard let fd = try? Descriptors.open("/dev/tty", [.readWrite, .noControllingTerminal]) else {
            throw CommandFailure(.usage, "no terminal to ask for the \(secret ? "secret" : "text") on; pass it on standard input with --password-stdin")
        }
        defer { Descriptors.closeQuietly(fd) }
        var restore: TerminalSettings?
        if secret, let settings = try? TerminalSettings(of: fd) {
            // ^C or a SIGTERM at the prompt puts the echo back (and a new line) before ending.
            try? settings.armRestoring(on: fd, writingNewline: true, withHangUp: false)
            if (try? settings.withoutEcho(keepingNewline: false).apply(to: fd)) != nil {
                restore = settings
            } else {
                TerminalSettings.disarmRestoring(defaults: true)
            }
        }
        defer {
            if let restore {
                try? restore.apply(to: fd)
                TerminalSettings.disarmRestoring(defaults: true)
                try? Descriptors.write(fd, "\n")
            }
        }
        // The prompt only once the echo is off: what is typed as soon as it shows is neither echoed
        // nor discarded (turning the echo off discards what was typed before it, as getpass does).
        try? Descriptors.write(fd, prompt)
        var bytes: [UInt8] = []
        defer { for index in bytes.indices { bytes[index] = 0 } }
        var byte: UInt8 = 0
        while true {
            let count = (try? withUnsafeMutableBytes(of: &byte) { raw in try Descriptors.read(fd, into: raw) }) ?? -1
            if count <= 0 {
                if bytes.isEmpty { throw CommandFailure(.usage, "no answer at the terminal (end of input)") }
                break
            }
            if byte == UInt8(ascii: "\n") { break }
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
