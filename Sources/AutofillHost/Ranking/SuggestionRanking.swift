internal import AutofillCore

/// The one total order of suggestions across providers (docs/RANKING.md).
///
/// 1. match quality: exact URL, exact host, parent domains by distance, then same site;
/// 2. the user's provider order;
/// 3. rank value, higher first: it orders one provider's identities among themselves, never one
///    provider's against another's (a provider cannot outrank the user's choice with a huge rank);
/// 4. a stable tie-break: user name (case-insensitive), then the kind, then the order in the
///    provider's store.
///
/// One account (same kind and user name, case-insensitive, at the same match quality) offered by
/// several providers stays together: the account takes the place of its best member, and its
/// members follow each other in provider order (then rank, within one provider).
public enum SuggestionRanking {
    /// `suggestions` in the documented order.
    public static func ranked(_ suggestions: [Suggestion]) -> [Suggestion] {
        // Sort small keys by index, not the suggestions themselves: a Suggestion carries strings,
        // and moving it costs retains and releases in every comparison.
        let keys = suggestions.indices.map { Key(suggestions[$0], index: $0) }
        var groupOf: [AccountKey: Int] = [:]
        var groups: [[Int]] = []
        for key in keys {
            let account = AccountKey(match: key.match, kind: key.kind, user: key.user)
            if let group = groupOf[account] {
                groups[group].append(key.index)
            } else {
                groupOf[account] = groups.count
                groups.append([key.index])
            }
        }
        for group in groups.indices { groups[group].sort { memberOrder(keys[$0], keys[$1]) } }
        groups.sort { groupOrder(keys[$0[0]], keys[$1[0]]) }
        var ranked: [Suggestion] = []
        ranked.reserveCapacity(suggestions.count)
        for group in groups { for index in group { ranked.append(suggestions[index]) } }
        return ranked
    }

    /// What the order looks at, for one suggestion.
    struct Key {
        let match: Int
        let rank: Int
        let position: Int
        let user: String
        let kind: Int
        let storeOrder: Int
        let index: Int

        init(_ suggestion: Suggestion, index: Int) {
            match = suggestion.match.order
            rank = suggestion.identity.rank
            position = suggestion.providerPosition
            user = suggestion.identity.displayUser.lowercased()
            kind = SuggestionRanking.kindOrder(suggestion.identity.kind)
            storeOrder = suggestion.storeOrder
            self.index = index
        }
    }

    /// Within an account: provider order, then rank (so within one provider), then store order.
    static func memberOrder(_ a: Key, _ b: Key) -> Bool {
        if a.position != b.position { return a.position < b.position }
        if a.rank != b.rank { return a.rank > b.rank }
        return a.storeOrder < b.storeOrder
    }

    /// Between accounts, compared by their best members: rank only counts between two of one provider.
    static func groupOrder(_ a: Key, _ b: Key) -> Bool {
        if a.match != b.match { return a.match < b.match }
        if a.position != b.position { return a.position < b.position }
        if a.rank != b.rank { return a.rank > b.rank }
        if a.user != b.user { return a.user < b.user }
        if a.kind != b.kind { return a.kind < b.kind }
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
        let match: Int
        let kind: Int
        let user: String
    }
}
