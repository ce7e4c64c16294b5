internal import AutofillSystem

/// Something a provider's helper process did that ended it: what quarantine counts.
///
/// Reported through ``HelperConnection``'s fault handler once per helper that ended other than by
/// the host's choice (a helper stopped because its connection was released, or after a load the
/// plugin failed cleanly, is no fault).
public struct ProviderFault: Sendable, Equatable, CustomStringConvertible {
    /// The kinds of fault.
    public enum Kind: Sendable, Equatable {
        /// Died of a signal (SIGSEGV, SIGABRT, ...).
        case crashed(signal: Int32)
        /// Killed by the host: a no-UI request or the load passed its deadline.
        case killedAtDeadline
        /// Died after reaching its memory ceiling (the limit, in bytes).
        case exceededMemory(limitBytes: UInt64)
        /// Exited on its own with this status.
        case exited(status: Int32)
        /// Sent something that is not the protocol (a frame over the limit, a bad field).
        case protocolViolation
    }

    /// What happened.
    public var kind: Kind
    /// The sentence users read, naming the provider and what it was doing; never a secret.
    public var message: String

    /// Creates a fault.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// "SIGSEGV" for 11.
    static func signalName(_ signal: Int32) -> String {
        Processes.signalName(signal).map { "SIG" + $0 } ?? "signal \(signal)"
    }
}
