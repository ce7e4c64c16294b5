internal import AutofillABI
public import AutofillCore
internal import CAutofillProvider
internal import Glibc
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

/// Discovers nothing and guesses nothing: given a bundle, reads its plist, then loads its library,
/// checks ABI version, entry symbol and capability ↔ entry-point consistency, and binds it to the host.
///
/// Order matters and is part of the contract: the plist (including its ABI version) is checked
/// before any of the plugin's code runs; the entry function is called only when the plist is valid.
public enum PluginLoader {
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

    /// Problems for declared capabilities whose entry points the table lacks.
    static func entryPointProblems(_ manifest: PluginManifest, offered: EntryPoints) -> [PluginProblem] {
        let missing = manifest.capabilities.missingEntryPoints(offered: offered)
        guard !missing.isEmpty else { return [] }
        let list = missing.map { "\($0.entryPoint.cName) (for \($0.neededBy.map(\.plistKey).joined(separator: ", ")))" }
        let capabilities = Set(missing.flatMap(\.neededBy)).sorted { $0.rawValue < $1.rawValue }
        return [PluginProblem(
            .missingEntryPoints, file: manifest.plistPath, keyPath: ManifestReader.capabilitiesKeyPath,
            message: "declares capabilities whose entry points the provider table leaves NULL: \(list.joined(separator: ", "))",
            fix: "implement those entry points in the table the entry function returns, or stop declaring \(capabilities.map(\.plistKey).joined(separator: ", ")) in Info.plist")]
    }

    /// Opens the library, finds the entry symbol, calls it, and checks the table it returns; the
    /// provider's host services go to a new ``ProviderSession`` in this process.
    static func openAndBind(_ manifest: PluginManifest, services: ProviderServices, pins: [String: String]?) -> Result<InProcessConnection, PluginProblem> {
        let session = ProviderSession(providerID: manifest.identifier, displayName: manifest.displayName, services: services)
        return bind(manifest, handler: session, pins: pins).map { bound in
            InProcessConnection(manifest: manifest, table: bound.table, session: session, hostServices: bound.hostServices)
        }
    }

    /// A loaded provider's table and the host-services table bound to it.
    struct BoundProvider: Sendable {
        let table: ProviderTable
        let hostServices: HostServicesTable
    }

    /// Checks the bundle at `bundlePath` and loads its library into this process with its host
    /// services going to `handler`: what a helper process does with the plugin it serves. Returns
    /// every problem (plist, load, entry points) and the bound provider when loading got that far.
    static func checkAndBind(bundle bundlePath: String, handler: any HostServicesHandler, pins: [String: String]? = nil,
                             progress: (LoadStage) -> Void) -> (problems: [PluginProblem], bound: BoundProvider?)
    {
        progress(.readingPlist)
        let (manifest, problems) = ManifestReader.read(bundle: bundlePath)
        guard let manifest else { return (problems, nil) }
        if case .failure(let problem) = LoadedLibraries.fileID(of: manifest) { return (problems + [problem], nil) }
        switch bind(manifest, handler: handler, pins: pins, progress: progress) {
        case .success(let bound):
            return (problems + entryPointProblems(manifest, offered: bound.table.entryPoints), bound)
        case .failure(let problem):
            return (problems + [problem], nil)
        }
    }

    /// Opens the library, finds the entry symbol, binds a host-services table to `handler`, calls
    /// the entry, and checks the table it returns. `progress` hears each stage before it starts.
    static func bind(_ manifest: PluginManifest, handler: any HostServicesHandler, pins: [String: String]? = nil,
                     progress: (LoadStage) -> Void = { _ in }) -> Result<BoundProvider, PluginProblem>
    {
        progress(.openingLibrary)
        // The exact bytes hashed: each library opened once, checked against `pins`, loaded through its descriptor.
        let library: DynamicLibrary
        switch PinnedLibrary.open(manifest, pins: pins) {
        case .success(let opened): library = opened
        case .failure(let problem): return .failure(problem)
        }
        guard let symbol = library.symbol(manifest.entrySymbol) else {
            return .failure(.missingEntrySymbol(manifest))
        }
        let hostServices: HostServicesTable
        do {
            hostServices = try HostServicesTable(handler: handler)
        } catch {
            return .failure(PluginProblem(.loadFailed, file: manifest.libraryPath, message: error.message, fix: "reinstall libffi (apt-get install libffi8)"))
        }
        progress(.callingEntry)
        let entry = unsafeBitCast(symbol, to: af_entry_fn.self)
        guard let tablePointer = entry(providerABIVersion, hostServices.table) else {
            return .failure(PluginProblem(
                .entryRefused, file: manifest.libraryPath, keyPath: PluginManifest.entrySymbolKey,
                message: "\(manifest.entrySymbol)(\(providerABIVersion), host) returned NULL: the provider refused to load",
                fix: "run with --verbose to see the provider's log lines: it may lack a setting (ProviderSettings in the configuration), or not support this host's ABI version"))
        }
        progress(.checkingTable)
        let table = ProviderTable(pointer: tablePointer)
        guard table.abiVersion == providerABIVersion else {
            return .failure(PluginProblem(
                .tableVersionMismatch, file: manifest.libraryPath,
                message: "the provider table says ABI version \(table.abiVersion), this host speaks version \(providerABIVersion)",
                fix: "rebuild the plugin against this host's autofill_provider.h and set abi_version = AF_ABI_VERSION"))
        }
        guard table.size >= ProviderTable.minimumSize else {
            return .failure(PluginProblem(
                .tableTooSmall, file: manifest.libraryPath,
                message: "the provider table is \(table.size) bytes; ABI version \(providerABIVersion) tables are at least \(ProviderTable.minimumSize)",
                fix: "set size = sizeof(af_provider) in the table"))
        }
        return .success(BoundProvider(table: table, hostServices: hostServices))
    }
}

/// Every library this process has loaded, by file identity: a library's entry function runs
/// once per process, because a plugin is never unloaded and its globals belong to that one load.
final class LoadedLibraries: Sendable {
    static let shared = LoadedLibraries()

    struct FileID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private let loaded = Mutex<[FileID: InProcessConnection]>([:])

    /// The file identity of `manifest`'s library, or the problem that it cannot be read.
    static func fileID(of manifest: PluginManifest) -> Result<FileID, PluginProblem> {
        var info = stat()
        guard stat(manifest.libraryPath, &info) == 0 else {
            return .failure(PluginProblem(
                .libraryNotFound, file: manifest.libraryPath, message: "cannot read the library",
                fix: "check the file exists and is readable"))
        }
        return .success(FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
    }

    /// The connection for `manifest`'s library, loading it the first time.
    func connection(for manifest: PluginManifest, services: ProviderServices, pins: [String: String]? = nil) -> Result<InProcessConnection, PluginProblem> {
        let id: FileID
        switch Self.fileID(of: manifest) {
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
