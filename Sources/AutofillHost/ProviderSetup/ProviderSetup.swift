public import AutofillCore
public import AutofillStore
public import Logging

/// Enabling, disabling and syncing providers: the configuration, their identity stores and their
/// code, kept in step.
///
/// The configuration's `EnabledProviders` is the truth; a provider's store is enabled exactly when
/// the provider is (disabling wipes it, as on Apple platforms).
///
/// Its jobs, a file each in this folder: configuration and stores (here: enable, disable, sync),
/// launching (`+Launch`: `connect`, the one way to a provider's connection, and `launch`), trust,
/// records and faults (`+Trust`), what its settings reach (`+Grants`), and its sandbox (`+Sandbox`).
public struct ProviderSetup: Sendable {
    /// The configuration and the plugins found.
    public private(set) var catalog: ProviderCatalog
    /// Where the identity stores live.
    public let stores: IdentityStoreDirectory
    /// Where the user's trust and fault records live: one per-user folder, never the configuration's
    /// choice (``HostRecords``).
    public let records: HostRecords
    /// Where providers' log lines go.
    public let logger: Logger
    /// Where one-line notices for the user go (a quarantine that starts); nil: the logger, as warnings.
    public var notify: (@Sendable (String) -> Void)?
    /// What happens to an enabled provider whose files the user never approved (listed in the
    /// configuration by hand): refused, naming the command that approves it (the default), or a
    /// question at the controlling terminal. Never a UI script's answer.
    public var unapprovedProviders: UnapprovedProviders = .refuse
    /// Hears every fault of a provider's helper process (crash, kill at a deadline, memory ceiling,
    /// protocol violation); nil logs them as warnings. Quarantine plugs in here.
    public var onProviderFault: (@Sendable (PluginManifest, ProviderFault) -> Void)?

    /// Creates the setup: the configuration's providers and stores, the user's records in `records`
    /// (``HostRecords/init(environment:)`` for the real ones; tests give a folder of their own). An enabled
    /// id that several bundles declare goes to the one whose files the user approved
    /// (``ProviderCatalog/preferApprovedBundles(_:)``; the catalog's warnings say so).
    public init(catalog: ProviderCatalog, stores: IdentityStoreDirectory, records: HostRecords, logger: Logger) {
        self.catalog = catalog
        self.stores = stores
        self.records = records
        self.logger = logger
        let setup = self
        self.catalog.preferApprovedBundles { manifest in
            if case .trusted = setup.trustState(of: manifest) { true } else { false }
        }
    }

    /// The store of provider `id`: created and enabled if the configuration enables the provider,
    /// otherwise the existing one (whose writes are refused) or nil.
    public func store(for id: String) throws(AutofillError) -> SQLiteIdentityStore? {
        do {
            guard catalog.enabledIDs.contains(id) else {
                return try SQLiteIdentityStore.openIfExists(providerID: id, in: stores)
            }
            let store = try SQLiteIdentityStore.open(providerID: id, in: stores)
            if try !store.state().isEnabled { try store.setEnabled(true) }
            return store
        } catch {
            throw AutofillError(error)
        }
    }

    /// The services a provider gets when the host loads it: its own store and settings.
    public func services(for manifest: PluginManifest, store: SQLiteIdentityStore,
                         userInterface: any ProviderUserInterface = UnavailableUserInterface()) -> ProviderServices {
        var services = ProviderServices(store: store, settings: sandboxedSettings(for: manifest),
                                        userInterface: userInterface, logger: logger,
                                        userInterfaceIdleTimeout: catalog.file.configuration.uiIdleTimeout)
        services.fileWriter = fileGrantWriter(for: manifest)
        return services
    }

    /// Enables the provider (by bundle path or id): records the SHA-256 of its files (when it is not
    /// enabled yet; an enabled one's are compared) and lifts its quarantine, enables its store, loads it
    /// so it can check in and publish its identities, and only then saves the configuration. Nothing
    /// changes if the plugin is invalid or refused. Returns the manifest and whether it was newly enabled.
    public mutating func enable(_ bundleOrID: String, userInterface: any ProviderUserInterface = UnavailableUserInterface())
        throws(AutofillError) -> (manifest: PluginManifest, isNew: Bool, connection: any ProviderConnection)
    {
        let (manifest, _) = try catalog.resolve(bundleOrID)
        try catalog.checkCanEnable(manifest.identifier)
        let id = manifest.identifier
        // Enabling approves the plugin's files as they are now (and lifts a quarantine); an enabled one's
        // files are still compared by launch.
        let (previousTrust, recorded) = try approveForEnable(manifest, isEnabled: catalog.enabledIDs.contains(id))
        let store: SQLiteIdentityStore
        let wasEnabled: Bool
        do {
            store = try SQLiteIdentityStore.open(providerID: id, in: stores)
            wasEnabled = try store.state().isEnabled
            try store.setEnabled(true)
        } catch {
            if recorded { restoreTrust(previousTrust, for: manifest) }
            throw AutofillError(error)
        }
        let connection: any ProviderConnection
        do throws(AutofillError) {
            // The host's own check of the entry symbol (ELF dynamic symbols), whatever the plugin's code says.
            if let problem = PluginProblem.entrySymbolCheck(manifest) {
                throw AutofillError(.invalidPlugin, "the plugin \(id) cannot be loaded:", problems: [problem])
            }
            connection = try launch(manifest, store: store, userInterface: userInterface)
        } catch {
            if !wasEnabled && !catalog.enabledIDs.contains(id) { try? store.setEnabled(false) }
            if recorded { restoreTrust(previousTrust, for: manifest) }
            throw error
        }
        let isNew: Bool
        do {
            isNew = try catalog.enable(manifest)
        } catch {
            if recorded { restoreTrust(previousTrust, for: manifest) }
            throw error
        }
        return (manifest, isNew, connection)
    }

    /// Disables provider `id` and wipes its identity store. Returns how many identities were wiped.
    ///
    /// The user's trust and fault records of it stay: they are per user and bundle, shared by every
    /// configuration, so disabling in one configuration neither withdraws an approval another relies on
    /// nor lifts a quarantine. Enabling again records the files anew.
    @discardableResult
    public mutating func disable(_ id: String) throws(AutofillError) -> Int {
        try catalog.disable(id)
        do {
            guard let store = try SQLiteIdentityStore.openIfExists(providerID: id, in: stores) else { return 0 }
            let count = try store.count()
            try store.setEnabled(false)
            return count
        } catch {
            throw AutofillError(error)
        }
    }

    private func syncOne(_ id: String) throws(AutofillError) -> Int {
        let manifest = try catalog.manifest(for: id)
        guard let store = try store(for: id) else { throw AutofillError(.internal, "no identity store for \(id)") }
        _ = try launch(manifest, store: store)
        do {
            return try store.count()
        } catch {
            throw AutofillError(error)
        }
    }

    /// Loads the enabled providers named (all when empty) with their real stores, so each can write
    /// its identities, as a provider's own app does on Apple platforms. Returns each provider's
    /// identity count, or the error that stopped it (the others still sync).
    public func sync(_ ids: [String] = []) throws(AutofillError) -> [(id: String, result: Result<Int, AutofillError>)] {
        let enabled = catalog.enabledIDs
        for id in ids where !enabled.contains(id) {
            throw AutofillError(.usage, "\(id) is not enabled; enabled providers: \(enabled.isEmpty ? "none" : enabled.joined(separator: ", "))\(KeySpelling.didYouMean(id, among: enabled))")
        }
        return (ids.isEmpty ? enabled : ids).map { id in
            (id, Result { () throws(AutofillError) -> Int in try syncOne(id) })
        }
    }
}
