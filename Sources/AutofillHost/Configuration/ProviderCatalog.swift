internal import AutofillCore
internal import AutofillSystem
internal import FoundationEssentials

/// A plugin bundle found in a search folder, read without running any of its code.
public struct DiscoveredPlugin: Sendable {
    /// The bundle directory.
    public var bundlePath: String
    /// Its manifest, when its Info.plist is valid.
    public var manifest: PluginManifest?
    /// Problems with its Info.plist.
    public var problems: [PluginProblem]
    /// Why the host ignores this bundle although it is valid: it declares the id of an enabled
    /// provider whose approved bundle is another one (``ProviderCatalog/preferApprovedBundles(_:)``).
    public var ignoredBecause: String?

    /// Creates the record of one bundle found.
    public init(bundlePath: String, manifest: PluginManifest?, problems: [PluginProblem], ignoredBecause: String? = nil) {
        self.bundlePath = bundlePath
        self.manifest = manifest
        self.problems = problems
        self.ignoredBecause = ignoredBecause
    }
}

/// What the user has: the plugins in the search folders and the enabled providers, in order.
///
/// All the rules about enabling live here: at most three providers, no duplicate ids, no two
/// enabled providers that look alike by name, only valid plugins. It reads plists only; loading
/// code is the ``PluginLoader``'s job.
///
/// Two situations a hand-edited configuration or a stray bundle can create are settled here, with
/// a ``warnings`` line each, rather than refused, so one bad bundle never stops the others:
/// - **Two bundles declare an enabled id.** The one whose files the user approved wins
///   (``preferApprovedBundles(_:)``); the other is ignored. Without exactly one approved bundle the
///   id stays ambiguous and using it fails with a message naming both bundles.
/// - **Two enabled providers share a display name** (``ProviderDisplayName/skeleton(_:)``): both
///   are named "Name (id)" everywhere the host names them (prompt headers, suggestions, messages),
///   so a prompt still names exactly one provider, until one is disabled.
public struct ProviderCatalog: Sendable {
    /// The bundle directory suffix searched for.
    public static let bundleExtension = "afprovider"

    /// The configuration this catalog reads and changes.
    public internal(set) var file: ConfigurationFile
    /// Every bundle in the search folders, in folder order then name order.
    public private(set) var plugins: [DiscoveredPlugin]
    /// What the catalog settled for the user to know (a bundle ignored, names made distinct), one line each.
    public private(set) var warnings: [String] = []

    /// Reads the search folders of `file`.
    public init(file: ConfigurationFile) {
        self.file = file
        self.plugins = []
        rediscover()
    }

    /// Reads the search folders again: the configuration's, or the default folders that may be
    /// searched (``DefaultPluginFolders/usable(_:)``: one that others could change is skipped, with a warning).
    mutating func rediscover() {
        var folders = file.searchPaths
        if file.usesDefaultPluginFolders {
            let usable = DefaultPluginFolders.usable(folders)
            folders = usable.folders
            for warning in usable.warnings where !warnings.contains(warning) { warnings.append(warning) }
        }
        plugins = Self.discover(in: folders)
        distinguishSharedDisplayNames()
    }

    /// `path` with its symbolic links resolved (itself when it cannot be): a bundle is known by its real
    /// path, which is what its sandbox grants and its helper loads (a link along a search folder's
    /// path, as dotfile managers make, does not exist inside the sandbox).
    static func real(_ path: String) -> String { RealPath.resolve(path) ?? path }

    /// Every `*.afprovider` directory in `folders` (by its real path); missing folders are skipped.
    public static func discover(in folders: [String]) -> [DiscoveredPlugin] {
        folders.map(real).flatMap { folder -> [DiscoveredPlugin] in
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

    /// The valid bundles declaring provider `id` (not those ignored in favour of an approved one).
    public func bundles(for id: String) -> [DiscoveredPlugin] {
        plugins.filter { $0.manifest?.identifier == id && $0.ignoredBecause == nil }
    }

    /// The manifest for enabled or discovered provider `id`, refusing ambiguity.
    public func manifest(for id: String) throws(AutofillError) -> PluginManifest {
        let found = bundles(for: id)
        guard let first = found.first?.manifest else {
            let known = plugins.compactMap(\.manifest?.identifier)
            throw AutofillError(
                .usage,
                "no plugin with id \(id) in \(file.searchPaths.joined(separator: ", "))\(known.isEmpty ? "" : "; found: \(known.joined(separator: ", "))")\(KeySpelling.didYouMean(id, among: known))")
        }
        guard found.count == 1 else {
            let enabled = enabledIDs.contains(id)
            throw AutofillError(
                .configuration,
                "provider id \(id) is declared by \(found.count) bundles: \(found.map(\.bundlePath).joined(separator: ", "))"
                    + (enabled ? ", and the files of none (or of more than one) of them are the ones you approved" : "")
                    + "; remove all but the one you mean")
        }
        return first
    }

    /// Settles enabled ids that several valid bundles declare: when exactly one of them `isApproved`
    /// (its files are the ones the user approved: its trust record matches), it wins and the others
    /// are ignored, each with a warning naming it. A bundle that merely sits in a search folder can
    /// therefore never take an enabled provider's place, nor stop it.
    public mutating func preferApprovedBundles(_ isApproved: (PluginManifest) -> Bool) {
        for id in enabledIDs {
            let found = bundles(for: id)
            guard found.count > 1 else { continue }
            let approved = found.filter { $0.manifest.map(isApproved) ?? false }
            guard approved.count == 1, let winner = approved.first else {
                warnings.append(
                    "provider id \(id) is declared by \(found.count) bundles (\(found.map(\.bundlePath).joined(separator: ", "))) and autofill cannot tell which one you approved; it is not used until you remove all but one")
                continue
            }
            for index in plugins.indices where plugins[index].manifest?.identifier == id && plugins[index].bundlePath != winner.bundlePath {
                let reason = "declares \(id), the id of the enabled provider at \(winner.bundlePath), whose files are the ones you approved"
                plugins[index].ignoredBecause = reason
                warnings.append("ignoring \(plugins[index].bundlePath): it \(reason); remove it")
            }
        }
        distinguishSharedDisplayNames()
    }

    /// Names enabled providers whose display names look alike (``ProviderDisplayName/skeleton(_:)``)
    /// "Name (id)", with a warning, so every prompt header names exactly one provider.
    mutating func distinguishSharedDisplayNames() {
        var bySkeleton: [String: [String]] = [:]
        var order: [String] = []
        for id in enabledIDs {
            let found = bundles(for: id)
            guard found.count == 1, let manifest = found[0].manifest else { continue }
            let skeleton = ProviderDisplayName.skeleton(manifest.displayName)
            if bySkeleton[skeleton] == nil { order.append(skeleton) }
            bySkeleton[skeleton, default: []].append(id)
        }
        for skeleton in order {
            guard let ids = bySkeleton[skeleton], ids.count > 1 else { continue }
            var names: [String] = []
            for id in ids {
                for index in plugins.indices {
                    guard let manifest = plugins[index].manifest, plugins[index].ignoredBecause == nil, manifest.identifier == id,
                        !manifest.displayName.hasSuffix(" (\(id))")
                    else { continue }
                    names.append("\(manifest.displayName) (\(id))")
                    plugins[index].manifest?.displayName = "\(manifest.displayName) (\(id))"
                }
            }
            if !names.isEmpty {
                warnings.append(
                    "the enabled providers \(names.joined(separator: " and ")) have display names that look alike; autofill names them with their ids until you disable one (`autofill providers disable ID`)")
            }
        }
    }

    /// Refuses `manifest` when an enabled provider other than it has a display name that looks like
    /// its own: a prompt headed `[Vault]` must name exactly one provider.
    func checkDisplayNameIsDistinct(_ manifest: PluginManifest) throws(AutofillError) {
        guard !enabledIDs.contains(manifest.identifier) else { return }
        let skeleton = ProviderDisplayName.skeleton(manifest.displayName)
        for id in enabledIDs where id != manifest.identifier {
            for other in bundles(for: id) {
                guard let existing = other.manifest, ProviderDisplayName.skeleton(Self.ownName(existing)) == skeleton else { continue }
                throw AutofillError(
                    .configuration,
                    "cannot enable \(manifest.displayName) (\(manifest.identifier)): its display name looks like that of the enabled provider \(Self.ownName(existing)) (\(existing.identifier)), and a prompt must name exactly one provider; disable that one first, or give this one another CFBundleDisplayName")
            }
        }
    }

    /// The display name a bundle declares (without the " (id)" the catalog adds to names that look alike).
    private static func ownName(_ manifest: PluginManifest) -> String {
        let suffix = " (\(manifest.identifier))"
        return manifest.displayName.hasSuffix(suffix) ? String(manifest.displayName.dropLast(suffix.count)) : manifest.displayName
    }

    /// Resolves what the user typed for `enable`: a bundle path, or a provider id.
    public func resolve(_ bundleOrID: String) throws(AutofillError) -> (manifest: PluginManifest, isNewFolder: Bool) {
        let looksLikePath = bundleOrID.contains("/") || bundleOrID.hasSuffix(".\(Self.bundleExtension)")
        guard looksLikePath else {
            let manifest = try manifest(for: bundleOrID)
            try checkCanEnable(manifest.identifier)
            try checkDisplayNameIsDistinct(manifest)
            return (manifest, false)
        }
        let path = Self.real(ManifestReader.normalized(ConfigurationFile.absolute(bundleOrID)))
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
        try checkCanEnable(manifest.identifier)
        try checkDisplayNameIsDistinct(manifest)
        let folder = ConfigurationFile.directory(of: path)
        return (manifest, !file.searchPaths.map(Self.real).contains(folder))
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
        try checkDisplayNameIsDistinct(manifest)
        let folder = ConfigurationFile.directory(of: manifest.bundlePath)
        if !file.searchPaths.map(Self.real).contains(folder) {
            // The default folders stay searched beside the new one: listing a folder ends the defaults.
            if file.usesDefaultPluginFolders { file.configuration.pluginSearchPaths = DefaultPluginFolders.configured }
            file.configuration.pluginSearchPaths.append(folder)
        }
        file.configuration.enabledProviders.append(manifest.identifier)
        try file.save()
        rediscover()
        return true
    }

    /// Disables provider `id` and saves.
    public mutating func disable(_ id: String) throws(AutofillError) {
        guard enabledIDs.contains(id) else {
            throw AutofillError(
                .usage, "\(id) is not enabled; enabled providers: \(enabledIDs.isEmpty ? "none" : enabledIDs.joined(separator: ", "))\(KeySpelling.didYouMean(id, among: enabledIDs))")
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
                throw AutofillError(.usage, "\(id) is not enabled; enabled providers: \(enabled.isEmpty ? "none" : enabled.joined(separator: ", "))\(KeySpelling.didYouMean(id, among: enabled))")
            }
            guard seen.insert(id).inserted else { throw AutofillError(.usage, "\(id) is named twice") }
        }
        file.configuration.enabledProviders = ids + enabled.filter { !seen.contains($0) }
        try file.save()
    }
}
