internal import AutofillCore
internal import AutofillSystem

/// Declared files as grants: expanded (settings, `~`, XDG folders, declared variables), then resolved
/// (every symbolic link followed, once, by the host) and checked as resolved. The helper opens each
/// resolved path without following links (`afs_open_grant`), so a link swapped in after the check is
/// never followed. docs/SANDBOX.md, "Paths are resolved before they are checked".
extension SandboxContext {
    struct Grant {
        /// The resolved path: what the rule grants and what the checks compare.
        var path: String
        var access: SandboxPolicy.Access
        var what: String
        /// The path as the setting or declaration wrote it (expanded and standardized, not resolved).
        var written: String
        /// An `add-files` folder: read by the provider, written by the host (``FileGrantWriter``).
        var addFiles: SandboxDeclaration.File? = nil
        /// A `replace-file` file: read by the provider, replaced by the host (``FileGrantWriter``).
        var replaceFile = false

        /// Whether files beneath it change: the provider writes them, or the host adds or replaces files for it.
        var changes: Bool { access.contains(.write) || addFiles != nil || replaceFile }
    }

    /// The nodes of /dev every provider gets; a declared file may name them, nothing else of /dev.
    static let harmlessDevices = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"]

    /// The paths `manifest`'s declared files grant (a read-write file gives its folder), expanded against
    /// the configuration and the user's folders and resolved. An unset setting without a default grants
    /// nothing. Throws when settings name each other in a cycle.
    func declaredFiles(_ manifest: PluginManifest) throws(AutofillError) -> [Grant] {
        let settings = setup.map { $0.sandboxedSettings(for: manifest) } ?? [:]
        var grants: [Grant] = []
        for file in manifest.sandbox.files {
            let value: String?
            let what: String
            if let name = file.setting {
                if let set = settings[name], !set.isEmpty {
                    value = set  // what the provider is given, as the configuration says it
                } else {
                    value = try resolveDefault(of: file, in: manifest, settings: settings)
                }
                what = "its \(name) setting"
            } else {
                value = try file.path.flatMap { path throws(AutofillError) in try expand(path, settings: settings, in: manifest) }
                what = "its declared path \(file.path ?? "")"
            }
            guard let value, value.hasPrefix("/") else { continue }
            let written = LexicalPath.standardized(value)
            // A setting (or its default) naming a file in the provider's own folders needs no grant: the
            // folder is the provider's already, and autofill never resolves the links it makes there. A
            // declared path there is the author's mistake, refused (``checkResolved(_:refuse:own:)``).
            if file.setting != nil, ownFolders(of: manifest).contains(where: { written == $0 || Self.isInside(written, $0) }) { continue }
            let path = Self.resolvedPath(written)
            switch file.access {
            case .read:
                grants.append(Grant(path: path, access: .read, what: what, written: written))
            case .readWrite:
                grants.append(Grant(path: Self.isDirectory(path) ? path : Self.parent(of: path), access: [.read, .write],
                                    what: "the folder of \(what)", written: written))
            case .readWriteFolder:
                // The folder itself, never its parent: a missing folder grants nothing.
                guard Self.isDirectory(path) else { continue }
                grants.append(Grant(path: path, access: [.read, .write], what: "the folder named by \(what)", written: written))
            case .addFiles:
                // Read for the provider; the host writes. A missing folder grants nothing.
                guard Self.isDirectory(path) else { continue }
                grants.append(Grant(path: path, access: .read, what: "the folder named by \(what)", written: written, addFiles: file))
            case .replaceFile:
                // The file alone, read for the provider; the host replaces it. Never its folder; a folder
                // named here grants nothing.
                guard !Self.isDirectory(path) else { continue }
                grants.append(Grant(path: path, access: .read, what: what, written: written, replaceFile: true))
            }
        }
        return grants
    }

    /// `manifest`'s declared single files, which a sandbox holds by their inode: `read` of what is not a
    /// folder, and `replace-file` (``GrantedFiles``). None when its settings name each other in a cycle
    /// (the policy is refused then).
    func singleFiles(_ manifest: PluginManifest) -> [FileGrantWriter.File] {
        let grants = (try? declaredFiles(manifest)) ?? []
        return grants.filter { $0.replaceFile || ($0.access == .read && $0.addFiles == nil && !Self.isDirectory($0.path)) }
            .map { FileGrantWriter.File(written: $0.written, path: $0.path) }
    }

    /// The first of `file`'s defaults that resolves, expanded; nil when none does.
    func resolveDefault(of file: SandboxDeclaration.File, in manifest: PluginManifest, settings: [String: String]) throws(AutofillError) -> String? {
        for candidate in file.defaults {
            if let value = try expand(candidate, settings: settings, expanding: file.setting.map { [$0] } ?? [], in: manifest) { return value }
        }
        return nil
    }

    /// `~/…`, `$XDG_…/…`, `$AUTOFILL_PROVIDER_DATA_DIR/…` (the provider's data folder), `${Setting}` and
    /// `$NAME/…` of a variable `manifest` declares (read from the user's
    /// environment) expanded; nil when a setting or variable it names is unset or a variable is not an
    /// absolute path. A setting's value is expanded in turn; `expanding` holds the settings being expanded,
    /// and one that names itself, directly or through others, is refused naming them all.
    func expand(_ text: String, settings: [String: String], expanding: [String] = [], in manifest: PluginManifest?) throws(AutofillError) -> String? {
        guard let text = try substitute(text, settings: settings, expanding: expanding, in: manifest) else { return nil }
        if text == "~" { return home }
        if text.hasPrefix("~/") { return home + text.dropFirst() }
        let variables = ["$HOME": home, "$XDG_CONFIG_HOME": configHome, "$XDG_DATA_HOME": dataHome, "$XDG_STATE_HOME": stateHome,
                         "$XDG_CACHE_HOME": cacheHome, "$XDG_RUNTIME_DIR": runtimeDirectory,
                         "$AUTOFILL_PROVIDER_DATA_DIR": manifest.map { dataFolder($0.identifier) }]
        for (name, value) in variables where text == name || text.hasPrefix(name + "/") {
            guard let value else { return nil }
            return value + text.dropFirst(name.count)
        }
        let declared = manifest?.sandbox.environment ?? []
        if text.hasPrefix("$"), let name = text.dropFirst().split(separator: "/").first.map(String.init), declared.contains(name) {
            guard let value = environment[name], value.hasPrefix("/") else { return nil }
            return value + text.dropFirst(name.count + 1)
        }
        return text
    }

    /// Each `${Setting}` of `text` replaced by the setting's value, itself substituted first.
    private func substitute(_ text: String, settings: [String: String], expanding: [String], in manifest: PluginManifest?) throws(AutofillError) -> String? {
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            let brace = rest.index(after: dollar)
            guard brace < rest.endIndex, rest[brace] == "{", let close = rest[brace...].firstIndex(of: "}") else {
                result += rest[...dollar]
                rest = rest[brace...]
                continue
            }
            result += rest[..<dollar]
            let name = String(rest[rest.index(after: brace)..<close])
            if let first = expanding.firstIndex(of: name) {
                let cycle = (expanding[first...] + [name]).joined(separator: " → ")
                let named = manifest.map { "\($0.displayName) (\($0.identifier))" } ?? "the provider"
                // A cycle through a setting's value is the user's to fix; through defaults alone, the author's.
                throw AutofillError(
                    .configuration,
                    "the settings of \(named) name each other in a cycle (\(cycle)), so its files cannot be worked out; set \(name) to a path that names no setting in the cycle (`autofill providers set \(manifest?.identifier ?? "ID") \(name) PATH`), or, if no value of yours is in the cycle, tell the provider's author")
            }
            guard let value = settings[name], !value.isEmpty,
                let inner = try substitute(value, settings: settings, expanding: expanding + [name], in: manifest)
            else { return nil }
            result += inner
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    // MARK: Resolving

    /// `path` (absolute, standardized) with every symbolic link resolved; for a path that does not exist
    /// (yet), its longest existing beginning resolved and the rest as written.
    static func resolvedPath(_ path: String) -> String {
        if let real = realPath(path) { return real }
        var head = path
        var tail: [Substring] = []
        while head != "/" {
            tail.insert(head.split(separator: "/").last ?? "", at: 0)
            head = parent(of: head)
            if let real = realPath(head) { return LexicalPath.standardized(real + "/" + tail.joined(separator: "/")) }
        }
        return path
    }

    /// `path` and, when links make it differ, its resolved form: what a grant is compared with.
    static func bothForms(_ path: String) -> [String] {
        let resolved = resolvedPath(path)
        return resolved == path ? [path] : [path, resolved]
    }

    /// The provider's own folders (data and runtime), as written.
    func ownFolders(of manifest: PluginManifest) -> [String] {
        [dataFolder(manifest.identifier), runtimeFolder(manifest.identifier)].compactMap { $0 }
    }

    /// Refuses a grant (resolved) that would reach the kernel's own files (/proc, /sys, /dev beyond the
    /// harmless nodes) or lies in the provider's own folders (where links it makes would lead elsewhere).
    func checkResolved(_ grant: Grant, refuse: (String) -> AutofillError, own: [String]) throws(AutofillError) {
        // As written too: /proc/self/… names the host's process here and the helper's there.
        for kernel in ["/proc", "/sys", "/dev"] {
            for path in [grant.written, grant.path] where (path == kernel || Self.isInside(path, kernel)) && !Self.harmlessDevices.contains(path) {
                throw refuse(path == grant.written
                             ? "is part of \(kernel), the kernel's view of processes and devices"
                             : "leads through symbolic links to \(kernel), the kernel's view of processes and devices")
            }
        }
        for folder in own.flatMap(Self.bothForms) where Self.isInside(grant.written, folder) || Self.isInside(grant.path, folder)
            || grant.written == folder || grant.path == folder
        {
            throw refuse("is in its own folder \(folder), which it may use already; autofill never follows the links a provider makes there. Remove the declaration or setting")
        }
    }
}
