internal import CAutofillHelper

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
        afh_signal_name(signal).map { "SIG" + String(cString: $0) } ?? "signal \(signal)"
    }
}

/// How a provider runs: in a helper process of its own (the default) or inside the host.
public enum ProviderIsolation: String, Sendable, CaseIterable {
    /// A helper process per provider: a crash, hang or runaway allocation ends only the helper.
    case helperProcess
    /// `dlopen` into the host: fastest, for trusted plugins and benchmarks; a crash ends the host.
    case inProcess
}

/// The limits a helper process runs under.
public struct HelperOptions: Sendable, Equatable {
    /// The default address-space ceiling per helper (see docs/CONFIGURATION.md for how it was chosen).
    public static let defaultMemoryLimitMegabytes = 1024
    /// The default time a plugin gets to load (its constructors and entry function).
    public static let defaultLoadDeadline: Duration = .seconds(10)

    /// The helper's address-space ceiling (`RLIMIT_AS`), in bytes; 0 for none.
    public var memoryLimitBytes: UInt64
    /// How long spawning, the handshake and loading the plugin may take before the helper is killed.
    public var loadDeadline: Duration
    /// The helper executable; nil for `$AUTOFILL_PROVIDER_HELPER`, else the one next to this executable.
    public var executable: String?

    /// Creates options.
    public init(memoryLimitMegabytes: Int = HelperOptions.defaultMemoryLimitMegabytes,
                loadDeadline: Duration = HelperOptions.defaultLoadDeadline, executable: String? = nil) {
        self.memoryLimitBytes = UInt64(max(0, memoryLimitMegabytes)) << 20
        self.loadDeadline = loadDeadline
        self.executable = executable
    }

    /// The ceiling in whole megabytes, for messages.
    var memoryLimitMegabytes: UInt64 { memoryLimitBytes >> 20 }
}
