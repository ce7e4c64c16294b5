internal import AutofillABI
package import AutofillCore
internal import AutofillSystem
internal import CAutofillProvider
internal import Synchronization

/// Discovers nothing and guesses nothing: given a bundle, reads its plist, then loads its library,
/// checks ABI version, entry symbol and capability ↔ entry-point consistency, and binds it to the host.
///
/// Order matters and is part of the contract: the plist (including its ABI version) is checked
/// before any of the plugin's code runs; the entry function is called only when the plist is valid.
public enum PluginLoader {
    /// Problems for declared capabilities whose entry points the table lacks.
    package static func entryPointProblems(_ manifest: PluginManifest, offered: EntryPoints) -> [PluginProblem] {
        let missing = manifest.capabilities.missingEntryPoints(offered: offered)
        guard !missing.isEmpty else { return [] }
        let list = missing.map { "\($0.entryPoint.cName) (for \($0.neededBy.map(\.plistKey).joined(separator: ", ")))" }
        let capabilities = Set(missing.flatMap(\.neededBy)).sorted { $0.rawValue < $1.rawValue }
        return [PluginProblem(
            .missingEntryPoints, file: manifest.plistPath, keyPath: ManifestReader.capabilitiesKeyPath,
            message: "declares capabilities whose entry points the provider table leaves NULL: \(list.joined(separator: ", "))",
            fix: "implement those entry points in the table the entry function returns, or stop declaring \(capabilities.map(\.plistKey).joined(separator: ", ")) in Info.plist")]
    }

    /// A loaded provider's table and the host-services table bound to it.
    package struct BoundProvider: Sendable {
        package let table: ProviderTable
        package let hostServices: HostServicesTable
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
        if case .failure(let problem) = libraryID(of: manifest) { return (problems + [problem], nil) }
        switch bind(manifest, handler: handler, pins: pins, progress: progress) {
        case .success(let bound):
            return (problems + entryPointProblems(manifest, offered: bound.table.entryPoints), bound)
        case .failure(let problem):
            return (problems + [problem], nil)
        }
    }

    /// Opens the library, finds the entry symbol, binds a host-services table to `handler`, calls
    /// the entry, and checks the table it returns. `progress` hears each stage before it starts.
    package static func bind(_ manifest: PluginManifest, handler: any HostServicesHandler, pins: [String: String]? = nil,
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

    /// A library file's identity (device and inode).
    package struct LibraryID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// The file identity of `manifest`'s library, or the problem that it cannot be read.
    package static func libraryID(of manifest: PluginManifest) -> Result<LibraryID, PluginProblem> {
        guard let info = try? FileStatus(path: manifest.libraryPath) else {
            return .failure(PluginProblem(
                .libraryNotFound, file: manifest.libraryPath, message: "cannot read the library",
                fix: "check the file exists and is readable"))
        }
        return .success(LibraryID(device: info.device, inode: info.inode))
    }
}
