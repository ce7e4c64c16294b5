internal import AutofillCore
internal import AutofillMatching

/// The one total order of suggestions across providers (docs/RANKING.md).
///
/// 1. match quality: exact URL, exact host, parent domains by distance, then same site;
/// 2. rank value, higher first;
/// 3. the user's provider order;
/// 4. a stable tie-break: user name (case-insensitive), then the order in the provider's store.
///
/// One account (same kind and user name, case-insensitive, at the same match quality) offered by
/// several providers stays together: the account takes the place of its best member, and its
/// members follow each other by rank, then provider order.
public enum SuggestionRanking {
    /// `suggestions` in the documented order.
    public static func ranked(_ suggestions: [Suggestion]) -> [Suggestion] {
        // Keys are computed once per suggestion, not once per comparison.
        let keyed = suggestions.map { (suggestion: $0, user: $0.identity.displayUser.lowercased()) }
        let groups = Dictionary(grouping: keyed) { AccountKey(match: $0.suggestion.match, kind: $0.suggestion.identity.kind, user: $0.user) }
        return groups.values
            .map { $0.sorted { memberOrder($0.suggestion, $1.suggestion) } }
            .sorted { groupOrder($0[0], $1[0]) }
            .flatMap { $0.map(\.suggestion) }
    }

    /// Within an account: rank, then provider order, then store order.
    static func memberOrder(_ a: Suggestion, _ b: Suggestion) -> Bool {
        if a.identity.rank != b.identity.rank { return a.identity.rank > b.identity.rank }
        if a.providerPosition != b.providerPosition { return a.providerPosition < b.providerPosition }
        return a.storeOrder < b.storeOrder
    }

    /// Between accounts, compared by their best members.
    static func groupOrder(_ x: (suggestion: Suggestion, user: String), _ y: (suggestion: Suggestion, user: String)) -> Bool {
        let a = x.suggestion, b = y.suggestion
        if a.match != b.match { return a.match < b.match }
        if a.identity.rank != b.identity.rank { return a.identity.rank > b.identity.rank }
        if a.providerPosition != b.providerPosition { return a.providerPosition < b.providerPosition }
        if x.user != y.user { return x.user < y.user }
        if a.identity.kind != b.identity.kind { return kindOrder(a.identity.kind) < kindOrder(b.identity.kind) }
        return a.storeOrder < b.storeOrder
    }

    static func kindOrder(_ kind: CredentialIdentity.Kind) -> Int {
        switch kind {
        case .passkey: 0
        case .password: 1
        case .oneTimeCode: 2
        }
    }

    /// What makes two suggestions the same account.
    struct AccountKey: Hashable {
        let match: MatchQuality
        let kind: CredentialIdentity.Kind
        let user: String
    }
}
