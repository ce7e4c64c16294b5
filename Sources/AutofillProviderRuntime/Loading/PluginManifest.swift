public import AutofillCore

/// What a plugin's Info.plist declares, read before any of its code runs.
public struct PluginManifest: Hashable, Sendable {
    /// The extension point every credential provider declares.
    public static let extensionPointIdentifier = "com.apple.authentication-services-credential-provider-ui"
    /// Our key for the C ABI version the plugin was built against.
    public static let abiVersionKey = "AFProviderABIVersion"
    /// Our key for the name of the exported entry function.
    public static let entrySymbolKey = "AFProviderEntrySymbol"
    /// Our key saying the provider publishes identities only once it is unlocked (its store's sites
    /// are encrypted until then, as in a KeePass database), so an empty store is not a fault.
    public static let identitiesAfterUnlockKey = "AFProviderIdentitiesAfterUnlock"

    /// The bundle directory.
    public var bundlePath: String
    /// `CFBundleIdentifier`: the provider id.
    public var identifier: String
    /// `CFBundleDisplayName`: what users see.
    public var displayName: String
    /// `CFBundleExecutable`: the library's file name inside the bundle.
    public var executable: String
    /// `CFBundleShortVersionString`, if given.
    public var version: String?
    /// The declared capabilities.
    public var capabilities: Capabilities
    /// `AFProviderABIVersion`.
    public var abiVersion: Int
    /// `AFProviderEntrySymbol`.
    public var entrySymbol: String
    /// `AFProviderSandbox`: what it may reach besides its own folders (docs/SANDBOX.md).
    public var sandbox: SandboxDeclaration = SandboxDeclaration()
    /// `AFProviderIdentitiesAfterUnlock`: identities appear only after the first unlock.
    public var identitiesAfterUnlock = false

    /// The Info.plist's path.
    public var plistPath: String { "\(bundlePath)/Info.plist" }
    /// The library's path.
    public var libraryPath: String { "\(bundlePath)/\(executable)" }

    /// Creates a manifest.
    public init(
        bundlePath: String, identifier: String, displayName: String, executable: String, version: String? = nil,
        capabilities: Capabilities, abiVersion: Int, entrySymbol: String
    ) {
        self.bundlePath = bundlePath
        self.identifier = identifier
        self.displayName = displayName
        self.executable = executable
        self.version = version
        self.capabilities = capabilities
        self.abiVersion = abiVersion
        self.entrySymbol = entrySymbol
    }
}
