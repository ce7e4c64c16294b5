internal import AutofillCore
internal import AutofillStore
internal import Foundation

/// The benchmark's temporary world: a home folder with the identity stores, three provider
/// bundles copied from the built samples under the benchmark's provider ids, and host
/// configuration files naming them. Removed at the end unless kept.
final class Workspace {
    /// The providers, in the user's order; each a copy of the Vault sample (passwords, passkeys,
    /// one-time codes), so every identity kind is suggested from every store.
    static let providers: [(id: String, name: String)] = [
        ("org.bench.alpha", "Alpha"), ("org.bench.bravo", "Bravo"), ("org.bench.charlie", "Charlie"),
    ]
    static let sampleBundle = "VaultProvider"

    let root: String
    var home: String { "\(root)/home" }
    var dataHome: String { "\(home)/.local/share" }
    var pluginFolder: String { "\(root)/plugins" }
    /// The configuration enabling the three providers.
    var config: String { "\(root)/config.plist" }
    /// A configuration enabling none (a peer: start-up and configuration without stores).
    var emptyConfig: String { "\(root)/empty-config.plist" }
    /// Queries for the memory probe, one per line.
    var queryFile: String { "\(root)/queries.txt" }
    let stores: IdentityStoreDirectory
    let keep: Bool

    /// Creates the folder under `parent` and the bundles and configurations in it.
    init(parent: String, builtBundles: String, keep: Bool) throws {
        var template = Array("\(parent)/autofill-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchmarkError("cannot create a temporary folder in \(parent)") }
        root = String(cString: made)
        self.keep = keep
        stores = IdentityStoreDirectory(path: "\(root)/home/.local/share/autofill/stores")
        let files = FileManager.default
        try files.createDirectory(atPath: pluginFolder, withIntermediateDirectories: true)
        try files.createDirectory(atPath: home, withIntermediateDirectories: true)
        let source = "\(builtBundles)/\(Self.sampleBundle).afprovider"
        guard files.fileExists(atPath: "\(source)/Info.plist") else {
            throw BenchmarkError("no built sample bundle at \(source): run Scripts/build first")
        }
        for provider in Self.providers {
            let target = "\(pluginFolder)/\(provider.id).afprovider"
            try files.copyItem(atPath: source, toPath: target)
            let plistURL = URL(fileURLWithPath: "\(target)/Info.plist")
            guard var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: plistURL), format: nil) as? [String: Any] else {
                throw BenchmarkError("\(source)/Info.plist is not a dictionary")
            }
            plist["CFBundleIdentifier"] = provider.id
            plist["CFBundleDisplayName"] = provider.name
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: plistURL)
        }
        try Self.writeConfig(config, enabled: Self.providers.map(\.id))
        try Self.writeConfig(emptyConfig, enabled: [])
    }

    deinit {
        if !keep { try? FileManager.default.removeItem(atPath: root) }
    }

    private static func writeConfig(_ path: String, enabled: [String]) throws {
        let plist: [String: Any] = ["PluginSearchPaths": ["plugins"], "EnabledProviders": enabled]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
    }

    /// The environment child processes get: HOME and the XDG folders inside the workspace.
    var environment: [String] {
        ["HOME=\(home)", "XDG_CONFIG_HOME=\(home)/.config", "XDG_DATA_HOME=\(dataHome)", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"]
    }

    /// Opens (creating and enabling) the store of `providerID`.
    func openStore(_ providerID: String) throws -> SQLiteIdentityStore {
        let store = try SQLiteIdentityStore.open(providerID: providerID, in: stores)
        if try !store.state().isEnabled { try store.setEnabled(true) }
        return store
    }

    /// Writes each provider's identities into its store with one `replace`; returns the time each took.
    func fill(with data: GeneratedData) throws -> [Duration] {
        try zip(Self.providers, data.identities).map { provider, identities in
            let store = try openStore(provider.id)
            let (elapsed, _) = try measure { try store.replace(with: identities) }
            return elapsed
        }
    }

    /// The size in bytes of a file (0 when missing).
    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}

/// A failure that stops the benchmark, with what to do about it.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
