internal import AutofillCore
internal import AutofillHost
internal import AutofillMatching

/// Where a suggestion query's time goes: the engine's steps replayed one by one through the same
/// public APIs (parse the page's text; fetch candidates from each store by lookup key; match each
/// candidate; rank), timed separately. Explains figure 1; not a figure itself.
struct QueryPhases {
    struct Totals: Codable {
        var queries = 0
        var candidates = 0
        var suggestions = 0
        var parse = 0.0
        var fetch = 0.0
        var match = 0.0
        var rank = 0.0

        var total: Double { parse + fetch + match + rank }

        /// Milliseconds per candidate (fetch, match) or per suggestion (rank); 0 when none.
        func perCandidate(_ value: Double) -> Double { candidates == 0 ? 0 : value / Double(candidates) }
        func perSuggestion(_ value: Double) -> Double { suggestions == 0 ? 0 : value / Double(suggestions) }
    }

    /// Totals for the hot-site queries and for all the others.
    var hot = Totals()
    var others = Totals()

    static func replay(engine: SuggestionEngine, queries: [BenchmarkQuery]) throws -> QueryPhases {
        var phases = QueryPhases()
        let kinds = SuggestionBenchmark.allKinds
        for query in queries {
            let (parseTime, serviceQuery) = try measure { try ServiceQuery(query.text) }
            let (fetchTime, lists) = try measure {
                try engine.sources.map { source in
                    (source, try source.store?.identities(lookupKey: serviceQuery.lookupKey, kinds: kinds) ?? [])
                }
            }
            let (matchTime, found) = measure {
                var found: [Suggestion] = []
                for (source, identities) in lists {
                    for (order, identity) in identities.enumerated() {
                        guard let match = serviceQuery.match(identity) else { continue }
                        found.append(Suggestion(providerID: source.providerID, providerName: source.providerName,
                                                providerPosition: source.position, identity: identity, match: match, storeOrder: order))
                    }
                }
                return found
            }
            let (rankTime, ranked) = measure { SuggestionRanking.ranked(found) }
            let candidates = lists.reduce(0) { $0 + $1.1.count }
            func add(_ totals: inout Totals) {
                totals.queries += 1
                totals.candidates += candidates
                totals.suggestions += ranked.count
                totals.parse += parseTime.milliseconds
                totals.fetch += fetchTime.milliseconds
                totals.match += matchTime.milliseconds
                totals.rank += rankTime.milliseconds
            }
            if query.kind == .hot { add(&phases.hot) } else { add(&phases.others) }
        }
        return phases
    }

    /// One line per group for the report.
    func notes() -> [String] {
        [("hot-site queries", hot), ("other queries", others)].compactMap { name, totals in
            guard totals.queries > 0 else { return nil }
            let total = totals.total
            func share(_ value: Double) -> String { total > 0 ? String(Int((value / total * 100).rounded())) + " %" : "-" }
            func micro(_ value: Double) -> String { BenchmarkReport.format(value, "ms") }
            return "Phases, \(name) (\(totals.queries); mean \(totals.candidates / totals.queries) candidates, \(totals.suggestions / totals.queries) suggestions): "
                + "parse \(share(totals.parse)), fetch from SQLite \(share(totals.fetch)) (\(micro(totals.perCandidate(totals.fetch))) per candidate), "
                + "match \(share(totals.match)) (\(micro(totals.perCandidate(totals.match))) per candidate), "
                + "rank \(share(totals.rank)) (\(micro(totals.perSuggestion(totals.rank))) per suggestion); mean \(micro(total / Double(totals.queries))) per query."
        }
    }
}
