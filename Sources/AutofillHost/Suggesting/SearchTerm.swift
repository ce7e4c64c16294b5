public import AutofillCore
public import AutofillMatching

/// What `autofill suggest` and `autofill fill` look for: a site (a URL or domain, docs/MATCHING.md)
/// or a name (``NameQuery``: `fastmail`, `github`, `Email/fastmail`).
public enum SearchTerm: Sendable, CustomStringConvertible {
    case site(ServiceQuery)
    case name(NameQuery)

    /// `text` as a name when `byName` or when ``NameQuery/isName(_:)`` says it is one, else as a
    /// site; the error names what is wrong with a site that does not parse.
    public init(_ text: String, byName: Bool = false) throws(AutofillError) {
        if byName || NameQuery.isName(text) {
            // A URL searched as a name is searched without what it holds before its host
            // (`https://alice:password@…`): that is never matched, echoed or kept.
            let name = text.contains("://") ? (try? ServiceQuery(text)).map { $0.name.description } ?? text : text
            guard let query = NameQuery(name) else { throw AutofillError(.invalidData, "the name to search for is empty") }
            self = .name(query)
            return
        }
        do {
            self = .site(try ServiceQuery(text))
        } catch {
            throw AutofillError(.invalidData, "\(error)")
        }
    }

    /// The site as parsed (never a `user:password@` typed before the host), or the name as given.
    public var description: String {
        switch self {
        case .site(let query): query.name.description
        case .name(let query): query.term
        }
    }

    /// The services a fill of `suggestion` is for: the site's, or (a name search) the suggestion's own.
    func services(of suggestion: Suggestion) -> [ServiceIdentifier] {
        switch self {
        case .site(let query): query.serviceIdentifiers
        case .name: IdentityIndex.serviceName(for: suggestion.identity).map { [$0.serviceIdentifier] } ?? []
        }
    }

    /// The host a fill of `suggestion` delivers to (``RecentFills``): the site's, or the suggestion's own.
    func host(of suggestion: Suggestion) -> String? {
        switch self {
        case .site(let query): query.name.hostText
        case .name: IdentityIndex.serviceName(for: suggestion.identity)?.hostText
        }
    }

    /// For a site search that found nothing, the part of the site a person would remember, to search
    /// by name instead (`fastmail` for `www.fastmail.com`). nil for a name search.
    public var nameSearchLabel: String? {
        guard case .site(let query) = self else { return nil }
        let host = query.name.hostText
        return PublicSuffixList.shared.registrableDomain(host)?.split(separator: ".").first.map(String.init) ?? host
    }
}

extension SuggestionEngine {
    /// Every identity of `kinds` across the enabled providers whose name, user or site holds
    /// `query`'s term, ranked: exact name, prefix, substring, then SuggestionRanking's order.
    public func suggestions(named query: NameQuery, kinds: Set<CredentialIdentity.Kind>) throws(IdentityStoreError) -> [Suggestion] {
        var found: [Suggestion] = []
        for source in sources {
            guard let store = source.store else { continue }
            let wanted = kinds.intersection(Self.kinds(declaredBy: source.capabilities))
            guard !wanted.isEmpty else { continue }
            for (order, identity) in try store.allIdentities(kinds: wanted).enumerated() {
                guard let match = query.match(identity) else { continue }
                found.append(Suggestion(providerID: source.providerID, providerName: source.providerName,
                                        providerPosition: source.position, identity: identity, match: match, storeOrder: order))
            }
        }
        return SuggestionRanking.ranked(found)
    }

    /// The suggestions for `term`: a site's (``suggestions(for:kinds:)``) or a name's.
    public func suggestions(for term: SearchTerm, kinds: Set<CredentialIdentity.Kind>) throws(IdentityStoreError) -> [Suggestion] {
        switch term {
        case .site(let query): try suggestions(for: query, kinds: kinds)
        case .name(let query): try suggestions(named: query, kinds: kinds)
        }
    }
}
