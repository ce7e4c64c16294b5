/// What one provider's helper may reach: the concrete form the helper enforces (Landlock, seccomp,
/// its environment), built by the host from the provider's declaration (``SandboxDeclaration``),
/// its settings, the XDG folders and what the user approved. Pure data: no kernel is needed to
/// build, compare or print it. The helper receives it in its `load` message and applies it
/// (`autofill_sandbox.h`) before the plugin's library is opened. docs/SANDBOX.md.
public struct SandboxPolicy: Hashable, Sendable {
    /// What a path rule grants beneath its path.
    public struct Access: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Read files, list folders (`AFS_READ`).
        public static let read = Access(rawValue: 1)
        /// Write, create, rename and remove (`AFS_WRITE`).
        public static let write = Access(rawValue: 2)
        /// Run programs (`AFS_EXECUTE`).
        public static let execute = Access(rawValue: 4)
    }

    /// One path and what it grants; the path is absolute and standardized.
    public struct Rule: Hashable, Sendable {
        public var path: String
        public var access: Access
        /// Why it is granted, in plain words ("the system libraries", "its VaultFile setting").
        public var reason: String

        public init(path: String, access: Access, reason: String) {
            self.path = path
            self.access = access
            self.reason = reason
        }
    }

    /// Path rules, in a stable order.
    public var rules: [Rule]
    /// TCP ports it may connect to; empty with `network` false means no network at all.
    public var tcpPorts: [UInt16]
    /// Internet sockets at all (`AFS_ALLOW_INET`): true when the provider declared outbound ports.
    public var network: Bool
    /// The D-Bus session bus (`AFS_ALLOW_UNIX_SOCKETS`, and abstract sockets when the bus is one).
    public var sessionBus: Bool
    /// `socket(AF_UNIX)` at all: the session bus, or programs it runs (gpg reaches its agent so).
    public var unixSockets: Bool
    /// fork/exec at all: only when it declared programs; Landlock limits which.
    public var runsPrograms: Bool
    /// The helper's whole environment (it clears its own and sets exactly these).
    public var environment: [String: String]
    /// Its private folders (created 0700 by the host before the helper starts).
    public var dataFolder: String
    public var runtimeFolder: String?
    /// Its working directory: the data folder.
    public var workingDirectory: String { dataFolder }

    public init(rules: [Rule], tcpPorts: [UInt16] = [], network: Bool = false, sessionBus: Bool = false,
                unixSockets: Bool = false, runsPrograms: Bool = false, environment: [String: String] = [:],
                dataFolder: String, runtimeFolder: String? = nil) {
        self.rules = rules
        self.tcpPorts = tcpPorts
        self.network = network
        self.sessionBus = sessionBus
        self.unixSockets = unixSockets
        self.runsPrograms = runsPrograms
        self.environment = environment
        self.dataFolder = dataFolder
        self.runtimeFolder = runtimeFolder
    }
}
