internal import AutofillCore

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
        let groups = Dictionary(grouping: suggestions) { AccountKey($0) }
        let orderedGroups = groups.map { key, members in
            (key: key, members: members.sorted(by: memberOrder))
        }.sorted { a, b in groupOrder(a.members[0], b.members[0]) }
        return orderedGroups.flatMap(\.members)
    }

    /// Within an account: rank, then provider order, then store order.
    static func memberOrder(_ a: Suggestion, _ b: Suggestion) -> Bool {
        if a.identity.rank != b.identity.rank { return a.identity.rank > b.identity.rank }
        if a.providerPosition != b.providerPosition { return a.providerPosition < b.providerPosition }
        return a.storeOrder < b.storeOrder
    }

    /// Between accounts, compared by their best members.
    static func groupOrder(_ a: Suggestion, _ b: Suggestion) -> Bool {
        if a.match != b.match { return a.match < b.match }
        if a.identity.rank != b.identity.rank { return a.identity.rank > b.identity.rank }
        if a.providerPosition != b.providerPosition { return a.providerPosition < b.providerPosition }
        let userA = a.identity.displayUser.lowercased(), userB = b.identity.displayUser.lowercased()
        if userA != userB { return userA < userB }
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
        let match: String
        let kind: CredentialIdentity.Kind
        let user: String

        init(_ suggestion: Suggestion) {
            match = "\(suggestion.match)"
            kind = suggestion.identity.kind
            user = suggestion.identity.displayUser.lowercased()
        }
    }
}
