internal import AutofillCore

/// What a provider may reach through its declared files, as resolved paths, is part of what the user
/// approves: the trust record keeps them (``TrustRecord/grants``), a launch whose settings now reach
/// more is refused, and `providers set` that widens them asks again. docs/SANDBOX.md.
extension ProviderSetup {
    /// `manifest`'s declared files as resolved grants, one key each (`grant:read:/home/u/.netrc`,
    /// `grant:read-write:/home/u/vaults`); nil when they cannot be worked out (a cycle of settings,
    /// refused when the provider is launched).
    func grantKeys(of manifest: PluginManifest) -> [String]? {
        guard let grants = try? SandboxContext(setup: self).declaredFiles(manifest) else { return nil }
        var keys: [String] = []
        for grant in grants {
            // An add-files folder counts as changed (the host writes there for the provider): moving it asks again.
            let key = "grant:\(grant.changes ? "read-write" : "read"):\(grant.path)"
            if !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    /// The keys of `current` that no key of `approved` covers (the same path or a folder above it, with
    /// at least the same access).
    static func widerGrants(_ current: [String], than approved: [String]) -> [String] {
        func split(_ key: String) -> (write: Bool, path: String)? {
            let parts = key.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "grant" else { return nil }
            return (parts[1] == "read-write", String(parts[2]))
        }
        let known = approved.compactMap(split)
        return current.filter { key in
            guard let grant = split(key) else { return true }
            return !known.contains { ($0.write || !grant.write) && ($0.path == grant.path || SandboxContext.isInside(grant.path, $0.path)) }
        }
    }

    /// The grants `manifest`'s settings give now beyond those `record` approved; empty for a record made
    /// before autofill recorded grants.
    func grantsBeyond(_ record: TrustRecord, of manifest: PluginManifest) -> [String] {
        guard let approved = record.grants, let current = grantKeys(of: manifest) else { return [] }
        return Self.widerGrants(current, than: approved)
    }

    /// `providers set ID KEY VALUE`: sets the value, and when it lets an approved provider reach more
    /// than the user approved, asks the person at the terminal (yes records the new grants; no puts
    /// the old value back) or, without one, refuses (exit 77) naming `autofill providers trust ID`; the
    /// provider then does not run until approved. Narrower or unchanged grants ask nothing. Returns the
    /// note of ``ProviderCatalog/setSetting(_:key:value:)``.
    public func setSetting(_ id: String, key: String, value: String) throws(AutofillError) -> String? {
        try changeSetting(id, key: key) { (catalog: inout ProviderCatalog) throws(AutofillError) -> String? in
            try catalog.setSetting(id, key: key, value: value)
        }
    }

    /// `providers unset ID KEY`: the same, for a setting whose default then applies (a default may reach more).
    public func unsetSetting(_ id: String, key: String) throws(AutofillError) {
        _ = try changeSetting(id, key: key) { (catalog: inout ProviderCatalog) throws(AutofillError) -> String? in
            try catalog.unsetSetting(id, key: key)
            return nil
        }
    }

    private func changeSetting(_ id: String, key: String, _ change: (inout ProviderCatalog) throws(AutofillError) -> String?) throws(AutofillError) -> String? {
        let before = try? catalog.manifest(for: id)
        let approvedBefore = before.flatMap { grantKeys(of: $0) }
        let previousValue = catalog.file.configuration.providerSettings[id]?[key]
        var changed = catalog
        let note = try change(&changed)
        guard changed.enabledIDs.contains(id) else { return note }
        var after = ProviderSetup(catalog: changed, stores: stores, records: records, logger: logger)
        after.unapprovedProviders = unapprovedProviders
        let manifest = try after.catalog.manifest(for: id)
        guard var record = try after.trustRecords.record(for: id, bundle: manifest.bundlePath),
            let now = after.grantKeys(of: manifest)
        else { return note }
        let approved = record.grants ?? approvedBefore ?? []
        // Only what this change adds: a provider already waiting for approval stays refused at launch,
        // and a change of another setting asks nothing about it.
        let wider = Self.widerGrants(now, than: approved + (approvedBefore ?? []))
        guard !wider.isEmpty else { return note }
        let named = Self.name(manifest)
        let words = wider.map(SandboxDeclaration.describe(permissionKey:))
        let what = previousValue != nil && changed.file.configuration.providerSettings[id]?[key] == nil ? "Removing" : "Setting"
        if unapprovedProviders == .askAtTerminal, let terminal = TerminalUserInterface.open() {
            let question = (["\(what) \(key) lets \(named) reach more than you approved:"] + words.map { "  \($0)" }
                + ["Approve and let \(manifest.displayName) reach \(wider.count == 1 ? "it" : "them")?"]).joined(separator: "\n")
            let request = UserInterfaceRequest.confirm(title: "Approve a provider's files", message: question)
            if case .confirmed(true)? = try? terminal.present(request, providerName: "autofill") {
                record.grants = Array(Set(approved + now)).sorted()
                try after.trustRecords.save(record, for: id)
                return note
            }
            var restored = changed
            if let previousValue { _ = try restored.setSetting(id, key: key, value: previousValue) } else { try restored.unsetSetting(id, key: key) }
            throw AutofillError(.refused, "\(key) of \(id) was not changed: you did not approve \(words.joined(separator: "; "))")
        }
        // Without a terminal: the change stays, the record keeps what was approved, and the provider
        // does not run until the user approves the rest.
        if record.grants == nil {
            record.grants = approved
            try after.trustRecords.save(record, for: id)
        }
        throw AutofillError(
            .refused,
            "\(what == "Removing" ? "removed" : "set") \(key) of \(id), which lets \(named) reach more than you approved: \(words.joined(separator: "; ")); it will not run until you approve: `autofill providers trust \(id)`")
    }
}
