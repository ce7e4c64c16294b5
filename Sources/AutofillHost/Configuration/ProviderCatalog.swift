internal import AutofillCore
internal import FoundationEssentials

/// A plugin bundle found in a search folder, read without running any of its code.
public struct DiscoveredPlugin: Sendable {
    /// The bundle directory.
    public var bundlePath: String
    /// Its manifest, when its Info.plist is valid.
    public var manifest: PluginManifest?
    /// Problems with its Info.plist.
    public var problems: [PluginProblem]
}

/// What the user has: the plugins in the search folders and the enabled providers, in order.
///
/// All the rules about enabling live here: at most three providers, no duplicate ids, only
/// valid plugins. It reads plists only; loading code is the ``PluginLoader``'s job.
public struct ProviderCatalog: Sendable {
    /// The bundle directory suffix searched for.
    public static let bundleExtension = "afprovider"

    /// The configuration this catalog reads and changes.
    public private(set) var file: ConfigurationFile
    /// Every bundle in the search folders, in folder order then name order.
    public private(set) var plugins: [DiscoveredPlugin]

    /// Reads the search folders of `file`.
    public init(file: ConfigurationFile) {
        self.file = file
        self.plugins = Self.discover(in: file.searchPaths)
    }

    /// Every `*.afprovider` directory in `folders`; missing folders are skipped.
    public static func discover(in folders: [String]) -> [DiscoveredPlugin] {
        folders.flatMap { folder -> [DiscoveredPlugin] in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return names.filter { $0.hasSuffix(".\(bundleExtension)") }.sorted().map { name in
                let path = "\(folder)/\(name)"
                let (manifest, problems) = ManifestReader.read(bundle: path)
                return DiscoveredPlugin(bundlePath: path, manifest: manifest, problems: problems)
            }
        }
    }

    /// The enabled provider ids, in the user's order.
    public var enabledIDs: [String] { file.configuration.enabledProviders }

    /// The valid bundles declaring provider `id`.
    public func bundles(for id: String) -> [DiscoveredPlugin] {
        plugins.filter { $0.manifest?.identifier == id }
    }

    /// The manifest for enabled or discovered provider `id`, refusing ambiguity.
    public func manifest(for id: String) throws(AutofillError) -> PluginManifest {
        let found = bundles(for: id)
        guard let first = found.first?.manifest else {
            let known = plugins.compactMap(\.manifest?.identifier)
            throw AutofillError(
                .usage,
                "no plugin with id \(id) in \(file.searchPaths.isEmpty ? "any folder: \(file.path) lists no PluginSearchPaths" : file.searchPaths.joined(separator: ", "))\(known.isEmpty ? "" : "; found: \(known.joined(separator: ", "))")")
        }
        guard found.count == 1 else {
            throw AutofillError(
                .configuration,
                "provider id \(id) is declared by \(found.count) bundles: \(found.map(\.bundlePath).joined(separator: ", ")); remove all but one")
        }
        return first
    }

    /// Resolves what the user typed for `enable`: a bundle path, or a provider id.
    public func resolve(_ bundleOrID: String) throws(AutofillError) -> (manifest: PluginManifest, isNewFolder: Bool) {
        let looksLikePath = bundleOrID.contains("/") || bundleOrID.hasSuffix(".\(Self.bundleExtension)")
        guard looksLikePath else { return (try manifest(for: bundleOrID), false) }
        let path = ManifestReader.normalized(ConfigurationFile.absolute(bundleOrID))
        let (manifest, problems) = ManifestReader.read(bundle: path)
        guard let manifest else {
            let code: AutofillError.Code = problems.contains { $0.code == .bundleNotFound } ? .notFound : .invalidPlugin
            throw AutofillError(code, "the plugin at \(path) cannot be enabled:", problems: problems.filter { $0.severity == .error })
        }
        let others = plugins.filter { $0.manifest?.identifier == manifest.identifier && $0.bundlePath != path }
        if let other = others.first {
            throw AutofillError(
                .configuration,
                "provider id \(manifest.identifier) of \(path) is already declared by \(other.bundlePath); two providers cannot share an id: remove one or change its CFBundleIdentifier")
        }
        let folder = ConfigurationFile.directory(of: path)
        return (manifest, !file.searchPaths.contains(folder))
    }

    /// Checks that `id` may be enabled: not already enabled, and fewer than three enabled.
    public func checkCanEnable(_ id: String) throws(AutofillError) {
        let enabled = enabledIDs
        guard !enabled.contains(id) else { return }
        if enabled.count >= HostConfiguration.maximumEnabledProviders {
            throw AutofillError(
                .configuration,
                "cannot enable \(id): \(HostConfiguration.maximumEnabledProviders) providers are enabled already (\(enabled.joined(separator: ", "))), the most autofill allows; disable one first with `autofill providers disable ID`")
        }
    }

    /// Enables `manifest`'s provider (appending it to the order) and saves; adds its folder to the
    /// search paths if it is not in one. Returns false when it was enabled already.
    @discardableResult
    public mutating func enable(_ manifest: PluginManifest) throws(AutofillError) -> Bool {
        try checkCanEnable(manifest.identifier)
        guard !enabledIDs.contains(manifest.identifier) else { return false }
        let folder = ConfigurationFile.directory(of: manifest.bundlePath)
        if !file.searchPaths.contains(folder) { file.configuration.pluginSearchPaths.append(folder) }
        file.configuration.enabledProviders.append(manifest.identifier)
        try file.save()
        plugins = Self.discover(in: file.searchPaths)
        return true
    }

    /// Disables provider `id` and saves.
    public mutating func disable(_ id: String) throws(AutofillError) {
        guard enabledIDs.contains(id) else {
            throw AutofillError(
                .usage, "\(id) is not enabled; enabled providers: \(enabledIDs.isEmpty ? "none" : enabledIDs.joined(separator: ", "))")
        }
        file.configuration.enabledProviders.removeAll { $0 == id }
        try file.save()
    }

    /// Moves the named enabled providers to the front, in the given order; the rest keep theirs.
    public mutating func order(_ ids: [String]) throws(AutofillError) {
        guard !ids.isEmpty else { throw AutofillError(.usage, "name the enabled providers in the order you want") }
        let enabled = enabledIDs
        var seen = Set<String>()
        for id in ids {
            guard enabled.contains(id) else {
                throw AutofillError(.usage, "\(id) is not enabled; enabled providers: \(enabled.isEmpty ? "none" : enabled.joined(separator: ", "))")
            }
            guard seen.insert(id).inserted else { throw AutofillError(.usage, "\(id) is named twice") }
        }
        file.configuration.enabledProviders = ids + enabled.filter { !seen.contains($0) }
        try file.save()
    }
}
