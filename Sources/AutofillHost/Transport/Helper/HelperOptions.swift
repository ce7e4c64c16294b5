/// The limits a helper process runs under.
public struct HelperOptions: Sendable, Equatable {
    /// The default address-space ceiling per helper (see docs/CONFIGURATION.md for how it was chosen).
    public static let defaultMemoryLimitMegabytes = 512
    /// The default time a plugin gets to load (its constructors and entry function).
    public static let defaultLoadDeadline: Duration = .seconds(10)

    /// The helper's address-space ceiling (`RLIMIT_AS`), in bytes; 0 for none.
    public var memoryLimitBytes: UInt64
    /// How long spawning, the handshake and loading the plugin may take before the helper is killed.
    public var loadDeadline: Duration
    /// The helper executable; nil for `$AUTOFILL_PROVIDER_HELPER`, else the one next to this executable.
    public var executable: String?
    /// What the plugin may reach (docs/SANDBOX.md): applied by the helper before it opens the plugin.
    /// nil runs it unsandboxed (`ProviderIsolation` `unsandboxed`, and tests of the transport itself).
    public var sandbox: SandboxPolicy?
    /// Runs the helper in namespaces of its own made by bubblewrap around `sandbox`
    /// (``BubblewrapCommand``), Landlock and seccomp inside; false: Landlock and seccomp alone.
    public var namespaces = false
    /// The session bus through a filter (with `namespaces`): nil gives the helper no bus.
    public var sessionBus: SessionBusFilter?
    /// The declared single files of `sandbox` (`read` of a file, `replace-file`), as resolved at the
    /// launch: a running helper whose sandbox holds one that was replaced since is ended before the next
    /// request (``GrantedFiles``).
    public var singleFiles: [FileGrantWriter.File] = []

    /// Creates options.
    public init(memoryLimitMegabytes: Int = HelperOptions.defaultMemoryLimitMegabytes,
                loadDeadline: Duration = HelperOptions.defaultLoadDeadline, executable: String? = nil,
                sandbox: SandboxPolicy? = nil) {
        self.memoryLimitBytes = UInt64(max(0, memoryLimitMegabytes)) << 20
        self.loadDeadline = loadDeadline
        self.executable = executable
        self.sandbox = sandbox
    }

    /// The ceiling in whole megabytes, for messages.
    var memoryLimitMegabytes: UInt64 { memoryLimitBytes >> 20 }
}
