public import AutofillCore
public import AutofillMatching
public import AutofillStore

/// Suggests identities for a service from the enabled providers' identity stores.
///
/// This is the QuickType path of the model: it reads stores and plists only and never loads a
/// provider's code. A provider is asked only for the kinds its plist declares.
public struct SuggestionEngine: Sendable {
    /// One enabled provider's store, as the engine reads it.
    public struct Source: Sendable {
        public var providerID: String
        public var providerName: String
        public var position: Int
        public var capabilities: Capabilities
        public var store: SQLiteIdentityStore?

        public init(providerID: String, providerName: String, position: Int, capabilities: Capabilities, store: SQLiteIdentityStore?) {
            self.providerID = providerID
            self.providerName = providerName
            self.position = position
            self.capabilities = capabilities
            self.store = store
        }
    }

    /// The enabled providers, in the user's order.
    public let sources: [Source]
    /// Problems met while opening stores (a provider missing, a store unreadable); suggestions
    /// from the other providers still work.
    public let warnings: [String]

    /// Creates an engine over explicit sources.
    public init(sources: [Source], warnings: [String] = []) {
        self.sources = sources
        self.warnings = warnings
    }

    /// The enabled providers of `catalog`, with their stores in `directory` (stores are opened, never created).
    public init(catalog: ProviderCatalog, directory: IdentityStoreDirectory) {
        var sources: [Source] = []
        var warnings: [String] = []
        for (position, id) in catalog.enabledIDs.enumerated() {
            guard let manifest = try? catalog.manifest(for: id) else {
                warnings.append("\(id) is enabled but no valid bundle declares it; its identities are not suggested")
                continue
            }
            do {
                let store = try SQLiteIdentityStore.openIfExists(providerID: id, in: directory)
                sources.append(Source(providerID: id, providerName: manifest.displayName, position: position,
                                      capabilities: manifest.capabilities, store: store))
            } catch {
                warnings.append("\(manifest.displayName): \(error.message)")
            }
        }
        self.init(sources: sources, warnings: warnings)
    }

    /// The kinds a provider with `capabilities` may be asked for.
    public static func kinds(declaredBy capabilities: Capabilities) -> Set<CredentialIdentity.Kind> {
        var kinds: Set<CredentialIdentity.Kind> = []
        if capabilities.contains(.providesPasswords) { kinds.insert(.password) }
        if capabilities.contains(.providesPasskeys) { kinds.insert(.passkey) }
        if capabilities.contains(.providesOneTimeCodes) { kinds.insert(.oneTimeCode) }
        return kinds
    }

    /// Every matching identity of `kinds`, best first (SuggestionRanking's order).
    public func suggestions(for query: ServiceQuery, kinds: Set<CredentialIdentity.Kind>) throws(IdentityStoreError) -> [Suggestion] {
        var found: [Suggestion] = []
        for source in sources {
            guard let store = source.store else { continue }
            let wanted = kinds.intersection(Self.kinds(declaredBy: source.capabilities))
            guard !wanted.isEmpty else { continue }
            for (order, identity) in try store.identities(lookupKey: query.lookupKey, kinds: wanted).enumerated() {
                guard let match = query.match(identity) else { continue }
                found.append(Suggestion(providerID: source.providerID, providerName: source.providerName,
                                        providerPosition: source.position, identity: identity, match: match, storeOrder: order))
            }
        }
        return SuggestionRanking.ranked(found)
    }
}
