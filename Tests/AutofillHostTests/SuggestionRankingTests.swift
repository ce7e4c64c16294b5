import AutofillCore
import AutofillHost
import AutofillMatching
import Testing

/// The documented total order of suggestions (docs/RANKING.md).
struct SuggestionRankingTests {
    static func suggestion(_ user: String, provider: Int, rank: Int = 0, match: MatchQuality = .exactHost,
                           kind: CredentialIdentity.Kind = .password, order: Int = 0) -> Suggestion {
        let identity: CredentialIdentity =
            switch kind {
            case .password: .password(.init(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: user, rank: rank))
            case .passkey: .passkey(.init(relyingPartyIdentifier: "example.com", userName: user, credentialID: [1], userHandle: [1], rank: rank))
            case .oneTimeCode: .oneTimeCode(.init(serviceIdentifier: .init(identifier: "example.com", type: .domain), label: user, rank: rank))
            }
        return Suggestion(providerID: "p\(provider)", providerName: "P\(provider)", providerPosition: provider, identity: identity,
                          match: match, storeOrder: order)
    }

    func order(_ suggestions: [Suggestion]) -> [String] {
        SuggestionRanking.ranked(suggestions).map { "\($0.identity.displayUser)@\($0.providerPosition)" }
    }

    @Test func matchQualityComesFirst() {
        let ranked = order([
            Self.suggestion("site", provider: 0, rank: 100, match: .sameRegistrableDomain),
            Self.suggestion("parent2", provider: 0, rank: 50, match: .parentDomain(distance: 2)),
            Self.suggestion("parent1", provider: 0, match: .parentDomain(distance: 1)),
            Self.suggestion("host", provider: 2, match: .exactHost),
            Self.suggestion("url", provider: 2, match: .exactURL),
        ])
        #expect(ranked == ["url@2", "host@2", "parent1@0", "parent2@0", "site@0"])
    }

    @Test func thenProviderOrderThenRankWithinOneProvider() {
        let ranked = order([
            Self.suggestion("low", provider: 0, rank: 1),
            Self.suggestion("high", provider: 2, rank: 9),
            Self.suggestion("tie-b", provider: 1, rank: 5),
            Self.suggestion("tie-a", provider: 2, rank: 5),
            Self.suggestion("higher", provider: 0, rank: 2),
        ])
        #expect(ranked == ["higher@0", "low@0", "tie-b@1", "high@2", "tie-a@2"])
    }

    @Test(arguments: [Int.max, Int(Int32.max), 1])
    func aHugeRankDoesNotPutAProviderAheadOfTheUsersFirst(rank: Int) {
        let ranked = order([
            Self.suggestion("mallory", provider: 1, rank: rank),
            Self.suggestion("alice", provider: 0, rank: Int.min),
            Self.suggestion("alice", provider: 1, rank: rank),
        ])
        #expect(ranked == ["alice@0", "alice@1", "mallory@1"])
    }

    @Test func theSameAccountFromTwoProvidersStaysTogether() {
        let ranked = order([
            Self.suggestion("alice", provider: 0, rank: 5),
            Self.suggestion("bob", provider: 0, rank: 3),
            Self.suggestion("Alice", provider: 1, rank: 0),
        ])
        #expect(ranked == ["alice@0", "Alice@1", "bob@0"])
    }

    @Test func aStableTieBreakByUserThenStoreOrder() {
        let ranked = order([
            Self.suggestion("zed", provider: 0, order: 0),
            Self.suggestion("amy", provider: 0, order: 1),
            Self.suggestion("amy", provider: 0, kind: .oneTimeCode, order: 2),
        ])
        #expect(ranked == ["amy@0", "amy@0", "zed@0"])
        #expect(SuggestionRanking.ranked([Self.suggestion("zed", provider: 0), Self.suggestion("amy", provider: 0)]).map(\.identity.displayUser)
            == ["amy", "zed"])
    }

    @Test func theOrderDoesNotDependOnTheInputOrder() {
        let input = (0..<30).map { Self.suggestion("u\($0 % 7)", provider: $0 % 3, rank: $0 % 4, match: $0 % 5 == 0 ? .exactURL : .exactHost, order: $0) }
        let expected = order(input)
        for seed in 0..<10 {
            var shuffled = input
            var generator = SplitMix64(seed: UInt64(seed))
            shuffled.shuffle(using: &generator)
            #expect(order(shuffled) == expected)
        }
    }
}

