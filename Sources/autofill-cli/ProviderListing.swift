import AutofillCore
import AutofillHost
import AutofillStore

/// What `autofill providers list` shows, as text or JSON.
struct ProviderListing: Encodable {
    struct Configuration: Encodable {
        let path: String
        let source: String
        let searchPaths: [String]
    }

    struct Provider: Encodable {
        let id: String?
        let displayName: String?
        let status: String
        let position: Int?
        let bundle: String?
        let capabilities: [String]
        /// Enabled providers: their identity store (nil when it does not exist yet).
        let store: Store?
        /// Enabled providers: whether the host would run them (nil when no single bundle declares the id).
        let trust: Trust?
        /// What its sandbox lets it reach, in plain words (docs/SANDBOX.md).
        let permissions: [String]
        let problems: [String]
        /// Whether it publishes identities only once unlocked (`AFProviderIdentitiesAfterUnlock`).
        var identitiesAfterUnlock = false
    }

    /// An enabled provider's trust, as `providers list` reports it (docs/CLI.md).
    struct Trust: Encodable {
        /// `trusted`, `notRecorded`, `changed`, `quarantined`, `unsafe` or `unreadable`.
        let state: String
        /// When the files were recorded, and how (`enabled`, `trusted`, `confirmed`).
        let recorded: String?
        let origin: String?
        /// `changed`: the files that differ.
        let changedFiles: [String]?
        /// `quarantined`: since when.
        let quarantinedSince: String?
        /// Why the host refuses it and what to do; absent when it runs.
        let reason: String?

        init(_ state: ProviderTrustState, manifest: PluginManifest) {
            self.state = state.name
            var record: TrustRecord?
            switch state {
            case .trusted(let trusted): record = trusted
            case .changed(_, let changed): record = changed
            case .newPermissions(_, let changed): record = changed
            default: record = nil
            }
            recorded = record?.recorded.autofillTimestamp
            origin = record?.origin.rawValue
            if case .changed(let files, _) = state { changedFiles = files } else { changedFiles = nil }
            if case .quarantined(let quarantine) = state { quarantinedSince = quarantine.since.autofillTimestamp } else { quarantinedSince = nil }
            reason = state.refusal(for: manifest)?.description
        }

        /// The TRUST column.
        var column: String {
            switch state {
            case "notRecorded": "not recorded"
            default: state
            }
        }
    }

    /// An enabled provider's identity store, as `providers list` reports it.
    struct Store: Encodable {
        let identities: Int
        let isEnabled: Bool
        let supportsIncrementalUpdates: Bool
    }

    let configuration: Configuration
    let providers: [Provider]

    init(setup: ProviderSetup) {
        let catalog = setup.catalog, stores = setup.stores
        let file = catalog.file
        configuration = Configuration(path: file.path, source: file.source.rawValue, searchPaths: file.searchPaths)
        let enabled = catalog.enabledIDs
        var rows: [Provider] = []
        for (index, id) in enabled.enumerated() {
            let bundles = catalog.bundles(for: id)
            let manifest = bundles.first?.manifest
            let status = bundles.isEmpty ? "missing" : bundles.count > 1 ? "duplicate" : "enabled"
            let problems =
                bundles.isEmpty ? ["enabled, but no valid bundle declares this id in the search folders"]
                : bundles.count > 1 ? ["declared by \(bundles.map(\.bundlePath).joined(separator: " and ")): remove all but one"] : []
            // Reading the store runs no plugin code; a store that is missing or unreadable shows as absent.
            let store = (try? SQLiteIdentityStore.openIfExists(providerID: id, in: stores)).flatMap { $0 }.flatMap { store in
                try? Store(identities: store.count(), isEnabled: store.state().isEnabled,
                           supportsIncrementalUpdates: store.state().supportsIncrementalUpdates)
            }
            // Permissions, digests and records: reading files, running no plugin code.
            let trust = bundles.count == 1 ? manifest.map { Trust(setup.trustState(of: $0), manifest: $0) } : nil
            rows.append(Provider(
                id: id, displayName: manifest?.displayName, status: status, position: index + 1,
                bundle: manifest?.bundlePath, capabilities: manifest?.capabilities.members.map(\.plistKey) ?? [],
                store: store, trust: trust, permissions: manifest.map { setup.sandboxSummary(for: $0) } ?? [], problems: problems,
                identitiesAfterUnlock: manifest?.identitiesAfterUnlock ?? false))
        }
        for plugin in catalog.plugins where plugin.ignoredBecause != nil || !(plugin.manifest.map { enabled.contains($0.identifier) } ?? false) {
            let errors = plugin.problems.filter { $0.severity == .error }.map(\.description) + (plugin.ignoredBecause.map { ["ignored: it \($0); remove it"] } ?? [])
            rows.append(Provider(
                id: plugin.manifest?.identifier, displayName: plugin.manifest?.displayName,
                status: plugin.ignoredBecause != nil ? "ignored" : plugin.manifest == nil ? "invalid" : "available", position: nil, bundle: plugin.bundlePath,
                capabilities: plugin.manifest?.capabilities.members.map(\.plistKey) ?? [], store: nil, trust: nil,
                permissions: plugin.manifest.map { setup.sandboxSummary(for: $0) } ?? [], problems: errors))
        }
        providers = rows
    }

    var text: String {
        let source: String =
            switch configuration.source {
            case "embeddedDefault": "the built-in demo"
            case "option": "--config"
            case "environment": "$AUTOFILL_CONFIG"
            default: "your configuration"
            }
        var lines = ["Configuration: \(Self.printable(configuration.path)) (\(source))"]
        guard !providers.isEmpty else {
            let folders = configuration.searchPaths.map(Self.printable).joined(separator: ", ")
            lines.append("No providers: put .afprovider bundles in \(folders) or run `autofill providers enable PATH`.")
            return lines.joined(separator: "\n")
        }
        let table = providers.map { p in
            [p.position.map(String.init) ?? "-", p.id ?? "?", p.displayName ?? "?", p.status, p.trust?.column ?? "-",
             p.capabilities.isEmpty ? "-" : p.capabilities.joined(separator: ", ")]
        }
        let rendered = Table(header: ["#", "ID", "NAME", "STATUS", "TRUST", "CAPABILITIES"], rows: table).lines
        lines.append(rendered[0])
        for (row, provider) in zip(rendered.dropFirst(), providers) {
            lines.append(row)
            if let bundle = provider.bundle { lines.append("   \(Self.printable(bundle))") }
            if provider.position != nil, provider.identitiesAfterUnlock, (provider.store?.identities ?? 0) == 0, let id = provider.id {
                lines.append("   no identities until it is unlocked (its sites are encrypted too): autofill unlock \(id)")
            } else if provider.position != nil {
                lines.append("   " + (provider.store.map { store in
                    let count = "\(store.identities) identit\(store.identities == 1 ? "y" : "ies")"
                    return store.supportsIncrementalUpdates ? count : "\(count), waiting for the provider's full list (autofill providers sync)"
                } ?? "no identity store yet (autofill providers sync)"))
            }
            if !provider.permissions.isEmpty {
                lines.append("   may: " + provider.permissions.map(Self.printable).joined(separator: "\n        "))
            }
            if let trust = provider.trust, let reason = trust.reason {
                lines.append("   ! \(Self.printable(reason).replacingNewlines("\n     "))")
            }
            for problem in provider.problems { lines.append("   ! \(Self.printable(problem).replacingNewlines("\n     "))") }
        }
        return lines.joined(separator: "\n")
    }

    /// Text from a bundle (a path, a problem quoting its plist) with control characters, escape
    /// sequences and bidi controls escaped; newlines kept (the caller indents them).
    static func printable(_ text: String) -> String {
        DisplayText.escaped(text, keepingNewlines: true)
    }
}

extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }

    func replacingNewlines(_ replacement: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
