internal import AutofillCore

/// `ProviderSettings`, changed by command (`autofill providers set|unset`) so nobody writes XML.
///
/// A provider says which settings name its files (`AFProviderSandbox` → `Files` → `Setting`); those
/// are the settings the host knows it reads. A key that is a near miss of one of them is refused,
/// naming the one meant, since as written the provider would never see it. Any other key is set, with
/// a note: a provider may read settings it need not declare (a timeout, say).
extension ProviderCatalog {
    /// The settings provider `manifest` declares (its sandbox's file settings), in declaration order.
    public static func declaredSettings(of manifest: PluginManifest) -> [String] {
        var seen = Set<String>()
        return manifest.sandbox.files.compactMap(\.setting).filter { seen.insert($0).inserted }
    }

    /// Sets `key` to `value` in provider `id`'s settings and saves atomically. Returns a note for the
    /// user when the provider does not declare the key. Refuses (usage, exit 64) an id no bundle
    /// declares, a key that is not a plain name or is a near miss of a declared one, and an empty or
    /// multi-line value.
    public mutating func setSetting(_ id: String, key: String, value: String) throws(AutofillError) -> String? {
        let manifest = try manifest(for: id)
        try Self.checkKeyIsAName(key)
        let declared = Self.declaredSettings(of: manifest)
        let named = "\(manifest.displayName) (\(id))"
        let declaredText = declared.isEmpty ? "it declares no settings" : "it declares \(declared.joined(separator: ", "))"
        var note: String?
        if !declared.contains(key) {
            if let meant = declared.first(where: { KeySpelling.isNearMiss(key, $0) }) {
                throw AutofillError(.usage, "\(named) has no setting \(key); did you mean \(meant)? As written, \(named) would never read it (\(declaredText))")
            }
            note = "\(named) does not declare \(key) (\(declaredText)); set it anyway, since a provider may read settings it does not declare: check its documentation for the name"
        }
        guard !value.isEmpty else {
            throw AutofillError(.usage, "the value of \(key) is empty; to remove the setting, run `autofill providers unset \(id) \(key)`")
        }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AutofillError(.usage, "the value of \(key) contains a control character (a line break, say); a setting is one line of text")
        }
        file.configuration.providerSettings[id, default: [:]][key] = value
        try file.save()
        return note
    }

    /// Removes `key` from provider `id`'s settings and saves atomically; refuses (usage, exit 64) a
    /// key the configuration does not set, naming the ones it does.
    public mutating func unsetSetting(_ id: String, key: String) throws(AutofillError) {
        let current = file.configuration.providerSettings[id] ?? [:]
        guard current[key] != nil else {
            let set = current.keys.sorted()
            let others = set.isEmpty ? "it sets none for \(id)" : "it sets \(set.joined(separator: ", ")) for \(id)"
            let meant = set.first { KeySpelling.isNearMiss(key, $0) }.map { "; did you mean \($0)?" } ?? ""
            throw AutofillError(.usage, "the configuration \(file.path) does not set \(key) for \(id) (\(others))\(meant)")
        }
        file.configuration.providerSettings[id]?[key] = nil
        if file.configuration.providerSettings[id]?.isEmpty == true { file.configuration.providerSettings[id] = nil }
        try file.save()
    }

    /// Refuses a key that is not a plain name (letters, digits, `.`, `_`, `-`): `KEY=VALUE` typed as
    /// one word, or a value given in the key's place.
    static func checkKeyIsAName(_ key: String) throws(AutofillError) {
        let allowed = key.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) }
        guard !key.isEmpty, key.count <= 100, allowed else {
            throw AutofillError(
                .usage,
                "\(DisplayText.line(key, limit: 100)) is not a setting name (letters, digits, ., _ and -); write `autofill providers set ID KEY VALUE` with the key and its value as two words")
        }
    }
}
