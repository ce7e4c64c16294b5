internal import Glibc

/// A signal's number, with the ones autofill sends or handles named.
public struct Signal: Sendable, Equatable, Hashable {
    /// The signal's number.
    public let rawValue: Int32

    /// The signal numbered `rawValue`.
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// SIGKILL: ends a process; it cannot be caught.
    public static let kill = Signal(SIGKILL)
    /// SIGTERM: asks a process to end.
    public static let terminate = Signal(SIGTERM)
    /// SIGINT: Ctrl-C at a terminal.
    public static let interrupt = Signal(SIGINT)
    /// SIGHUP: the terminal went away.
    public static let hangUp = Signal(SIGHUP)
    /// SIGPIPE: a write to a pipe or socket nobody reads.
    public static let brokenPipe = Signal(SIGPIPE)
    /// SIGSEGV: an invalid memory access.
    public static let segmentationFault = Signal(SIGSEGV)
}

/// Sending signals and choosing what a signal does to this process.
public enum Signals {
    /// Sends `signal` to process `pid` (`kill`; ESRCH when no such process).
    public static func send(_ signal: Signal, to pid: Int32) throws(SystemError) {
        guard kill(pid, signal.rawValue) == 0 else { throw .current("kill") }
    }

    /// Whether process `pid` exists (signal 0; a process of another user counts).
    public static func processExists(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }

    /// `signal` is ignored from now on (`SIG_IGN`).
    public static func ignore(_ signal: Signal) { _ = Glibc.signal(signal.rawValue, SIG_IGN) }

    /// `signal` does what it does by default from now on (`SIG_DFL`).
    public static func restoreDefault(_ signal: Signal) { _ = Glibc.signal(signal.rawValue, SIG_DFL) }

    /// Sends `signal` to this process (`raise`).
    public static func raise(_ signal: Signal) { _ = Glibc.raise(signal.rawValue) }
}
