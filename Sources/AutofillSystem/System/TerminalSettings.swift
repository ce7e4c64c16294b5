internal import CAutofillSystem

/// A terminal's settings (terminal.c: tcgetattr/tcsetattr), for reading a secret without echo and
/// putting the echo back, also when the user interrupts the prompt.
public struct TerminalSettings: Sendable {
    var raw: afsys_terminal_settings

    /// The settings of the terminal open on `descriptor` (ENOTTY when it is none).
    public init(of descriptor: Int32) throws(SystemError) {
        raw = afsys_terminal_settings()
        guard afsys_terminal_get(descriptor, &raw) == 0 else { throw .current("tcgetattr") }
    }

    /// Whether typed characters are echoed.
    public var echoes: Bool {
        var copy = raw
        return afsys_terminal_echoes(&copy) != 0
    }

    /// These settings without echo; the Enter still shows as a new line when `keepingNewline`.
    public func withoutEcho(keepingNewline: Bool) -> TerminalSettings {
        var copy = self
        afsys_terminal_without_echo(&copy.raw, keepingNewline ? 1 : 0)
        return copy
    }

    /// Applies these settings to the terminal open on `descriptor`, discarding what was typed and not
    /// yet read (TCSAFLUSH).
    public func apply(to descriptor: Int32) throws(SystemError) {
        var copy = raw
        guard afsys_terminal_set(descriptor, &copy) == 0 else { throw .current("tcsetattr") }
    }

    /// Until ``disarmRestoring(defaults:)``: SIGINT, SIGTERM and, `withHangUp`, SIGHUP put these
    /// settings back on `descriptor` (then a new line there, when `writingNewline`) and end the process
    /// with 128 + the signal. One prompt at a time per process, never in the agent.
    public func armRestoring(on descriptor: Int32, writingNewline: Bool, withHangUp: Bool) throws(SystemError) {
        var copy = raw
        guard afsys_terminal_arm(descriptor, &copy, writingNewline ? 1 : 0, withHangUp ? 1 : 0) == 0 else {
            throw .current("sigaction")
        }
    }

    /// Ends ``armRestoring(on:writingNewline:withHangUp:)``; with `defaults`, the signals it handled get
    /// their default action back (else their handler stays, and only ends the process).
    public static func disarmRestoring(defaults: Bool) { afsys_terminal_disarm(defaults ? 1 : 0) }
}
