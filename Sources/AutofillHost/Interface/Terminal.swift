internal import AutofillSystem
internal import Glibc
internal import Synchronization

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
            fd = fcntl(terminal, F_DUPFD_CLOEXEC, 0)
        } else {
            fd = Glibc.open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        }
        guard fd >= 0 else { return nil }
        guard isatty(fd) == 1 else {
            close(fd)
            return nil
        }
        return Terminal(fd: fd, cancellation: context.cancellation)
    }

    private init(fd: Int32, cancellation: RequestCancellation?) {
        self.fd = fd
        self.cancellation = cancellation
    }

    deinit { close(fd) }

    /// Writes text to the terminal.
    /// The terminal's width in columns (80 when it does not say).
    var columns: Int {
        let columns = TerminalSize.columns(fd)
        return columns > 0 ? columns : 80
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }

    /// Reads one line; nil on end of input (Ctrl-D). With `echo` false the typed characters are not
    /// shown, and echo is restored even if the user presses Ctrl-C.
    func readLine(echo: Bool) -> [UInt8]? {
        var saved = termios()
        let canHide = tcgetattr(fd, &saved) == 0
        if !echo && canHide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            if cancellation == nil { TerminalRestore.arm(fd: fd, settings: saved) }
            tcsetattr(fd, TCSAFLUSH, &quiet)
        }
        defer {
            if !echo && canHide {
                tcsetattr(fd, TCSAFLUSH, &saved)
                TerminalRestore.disarm()
            }
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            // The agent reads a client's terminal only while that client waits: its leaving ends the read.
            if let cancellation {
                let ready = try? Descriptors.waitEither(fd, cancellation.descriptor, timeoutMilliseconds: -1)
                if ready?.second ?? true { return nil }
            }
            let n = Glibc.read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return line.isEmpty ? nil : line }
            if byte == UInt8(ascii: "\n") { return line }
            if byte != UInt8(ascii: "\r") { line.append(byte) }
        }
    }
}

/// Restores the terminal's echo if the process is interrupted while a secret is typed.
enum TerminalRestore {
    private struct Armed {
        var fd: Int32
        var settings: termios
    }

    // Written only while a secret prompt is open; read by the signal handler. A signal handler
    // cannot take a lock, so this is a plain global: the handler only reads it.
    nonisolated(unsafe) private static var armed: Armed?
    private static let installed = Mutex(false)

    static func arm(fd: Int32, settings: termios) {
        armed = Armed(fd: fd, settings: settings)
        installed.withLock { installed in
            guard !installed else { return }
            installed = true
            for signal in [SIGINT, SIGTERM, SIGHUP] {
                Glibc.signal(signal) { number in
                    if var restore = TerminalRestore.armed { tcsetattr(restore.fd, TCSAFLUSH, &restore.settings) }
                    _exit(128 + number)
                }
            }
        }
    }

    static func disarm() {
        armed = nil
    }
}
