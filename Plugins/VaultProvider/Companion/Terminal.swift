import Glibc

/// The terminal the user types secrets at (`/dev/tty`), with echo turned off for secrets.
enum Terminal {
    /// Reads one line from the terminal after writing `prompt` to it; without echo when `secret`.
    static func readLine(prompt: String, secret: Bool) throws(CommandFailure) -> String {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            throw CommandFailure(.usage, "no terminal to ask for the \(secret ? "secret" : "text") on; pass it on standard input with --password-stdin")
        }
        defer { close(fd) }
        write(fd, prompt)
        var restore = false
        if secret {
            var settings = termios()
            if tcgetattr(fd, &settings) == 0 {
                savedSettings = settings
                terminalFD = fd
                signal(SIGINT, restoreAndExit)
                signal(SIGTERM, restoreAndExit)
                settings.c_lflag &= ~tcflag_t(ECHO)
                restore = tcsetattr(fd, TCSAFLUSH, &settings) == 0
            }
        }
        defer {
            if restore {
                tcsetattr(fd, TCSAFLUSH, &savedSettings)
                terminalFD = -1
                signal(SIGINT, SIG_DFL)
                signal(SIGTERM, SIG_DFL)
                write(fd, "\n")
            }
        }
        var bytes: [UInt8] = []
        defer { for index in bytes.indices { bytes[index] = 0 } }
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(fd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
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

    private static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
    }
}

// The terminal settings to restore if the user interrupts a secret prompt (^C): a signal handler
// can reach only globals. Written before the handler is installed, on the one thread that prompts.
nonisolated(unsafe) private var savedSettings = termios()
nonisolated(unsafe) private var terminalFD: Int32 = -1

private func restoreAndExit(_ signal: Int32) {
    if terminalFD >= 0 {
        tcsetattr(terminalFD, TCSAFLUSH, &savedSettings)
        _ = Glibc.write(terminalFD, "\n", 1)
    }
    _exit(128 + signal)
}
