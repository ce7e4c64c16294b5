public import AutofillCore
internal import Synchronization

/// The result of checking a plugin bundle: its manifest, its entry points and every problem found.
public struct PluginValidation: Sendable {
    /// The bundle directory checked.
    public var bundlePath: String
    /// The manifest, when the plist checked out.
    public var manifest: PluginManifest?
    /// The entry points the loaded table offers, when loading got that far.
    public var entryPoints: EntryPoints?
    /// Every problem found, errors and warnings.
    public var problems: [PluginProblem]

    /// Creates a validation result.
    public init(bundlePath: String, manifest: PluginManifest?, entryPoints: EntryPoints?, problems: [PluginProblem]) {
        self.bundlePath = bundlePath
        self.manifest = manifest
        self.entryPoints = entryPoints
        self.problems = problems
    }

    /// True when the plugin loaded and no problem is an error.
    public var isValid: Bool {
        manifest != nil && entryPoints != nil && !problems.contains { $0.severity == .error }
    }
}

extension PluginLoader {
    /// Loads the plugin at `bundlePath` for use, or throws `invalidPlugin` listing every problem.
    /// `pins`: the approved SHA-256 of each file of the bundle (``PluginFingerprint/files``), which the
    /// libraries loaded must match (``PinnedLibrary``); nil compares nothing.
    public static func load(bundle bundlePath: String, services: ProviderServices, pins: [String: String]? = nil) throws(AutofillError)
        -> InProcessConnection
    {
        let (validation, connection) = loadAndValidate(bundle: bundlePath, services: services, pins: pins)
        guard validation.isValid, let connection else {
            let name = validation.manifest?.identifier ?? ManifestReader.normalized(bundlePath)
            throw AutofillError(
                .invalidPlugin, "the plugin \(name) cannot be loaded:",
                problems: validation.problems.filter { $0.severity == .error })
        }
        return connection
    }

    /// Checks the plugin at `bundlePath` the way `load` does, and reports instead of throwing.
    public static func validate(bundle bundlePath: String, services: ProviderServices) -> PluginValidation {
        loadAndValidate(bundle: bundlePath, services: services).validation
    }

    static func loadAndValidate(bundle bundlePath: String, services: ProviderServices, pins: [String: String]? = nil)
        -> (validation: PluginValidation, connection: InProcessConnection?)
    {
        let (manifest, plistProblems) = ManifestReader.read(bundle: bundlePath)
        var validation = PluginValidation(
            bundlePath: ManifestReader.normalized(bundlePath), manifest: manifest, entryPoints: nil, problems: plistProblems)
        guard let manifest else { return (validation, nil) }
        switch LoadedLibraries.shared.connection(for: manifest, services: services, pins: pins) {
        case .success(let connection):
            validation.entryPoints = connection.entryPoints
            validation.problems += entryPointProblems(manifest, offered: connection.entryPoints)
            return (validation, connection)
        case .failure(let problem):
            validation.problems.append(problem)
            return (validation, nil)
        }
    }

    /// Opens the library, finds the entry symbol, calls it, and checks the table it returns; the
    /// provider's host services go to a new ``ProviderSession`` in this process.
    static func openAndBind(_ manifest: PluginManifest, services: ProviderServices, pins: [String: String]?) -> Result<InProcessConnection, PluginProblem> {
        let session = ProviderSession(providerID: manifest.identifier, displayName: manifest.displayName, services: services)
        return bind(manifest, handler: session, pins: pins).map { bound in
            InProcessConnection(manifest: manifest, table: bound.table, session: session, hostServices: bound.hostServices)
        }
    }
}

/// Every library this process has loaded, by file identity: a library's entry function runs
/// once per process, because a plugin is never unloaded and its globals belong to that one load.
final class LoadedLibraries: Sendable {
    static let shared = LoadedLibraries()

    private let loaded = Mutex<[PluginLoader.LibraryID: InProcessConnection]>([:])

    /// The connection for `manifest`'s library, loading it the first time.
    func connection(for manifest: PluginManifest, services: ProviderServices, pins: [String: String]? = nil) -> Result<InProcessConnection, PluginProblem> {
        let id: PluginLoader.LibraryID
        switch PluginLoader.libraryID(of: manifest) {
        case .success(let found): id = found
        case .failure(let problem): return .failure(problem)
        }
        // The lock is held across the load so two threads never run one entry function twice.
        return loaded.withLock { loaded in
            if let existing = loaded[id] {
                guard existing.manifest.identifier == manifest.identifier else {
                    return .failure(PluginProblem(
                        .loadFailed, file: manifest.libraryPath,
                        message: "this library is already loaded as provider \(existing.manifest.identifier)",
                        fix: "give each provider its own library file"))
                }
                return .success(existing)
            }
            let result = PluginLoader.openAndBind(manifest, services: services, pins: pins)
            if case .success(let connection) = result { loaded[id] = connection }
            return result
        }
    }
}
