internal import AutofillCore
internal import AutofillHost
internal import AutofillMatching
internal import AutofillStore

/// Figure 1: a suggestion query in-process, from the page's text to the ranked list, through
/// `SuggestionEngine.suggestions(for:kinds:)` over the three stores; and its peers, scans of all
/// identities held in memory (what one writes without the lookup-key index).
struct SuggestionBenchmark {
    struct Result {
        /// Every query, in order (index-aligned with the queries).
        var engine: [Double]
        var kinds: [BenchmarkQuery.Kind]
        /// Suggestions returned per query.
        var suggestionCounts: [Int]
        /// The naive scan (`ServiceQuery.match(_ identity:)` on every identity) over the first queries.
        var naive: Samples
        /// A scan over identities whose services were parsed once up front (`match(_:kind:)`).
        var preparsed: Samples
        /// The engine's times for the naive scan's queries and the pre-parsed scan's queries.
        var engineOnNaiveQueries: Samples
        var engineOnPreparsedQueries: Samples
        /// Queries whose scan result differed from the engine's (should be 0).
        var mismatches: [String]
        /// Building the engine from the configuration: reading it, the bundles' plists, opening the stores.
        var openEngine: Samples
        /// The engine's steps timed one by one.
        var phases: QueryPhases

        var engineSamples: Samples { Samples(engine) }

        func engineSamples(of kind: BenchmarkQuery.Kind) -> Samples {
            Samples(zip(engine, kinds).filter { $0.1 == kind }.map(\.0))
        }
    }

    let workspace: Workspace
    let data: GeneratedData
    let queries: [BenchmarkQuery]
    let naiveQueries: Int
    let preparsedQueries: Int
    static let allKinds = Set(CredentialIdentity.Kind.allCases)

    /// The engine the CLI would build: the configuration, its catalog, the stores it names.
    func makeEngine() throws -> SuggestionEngine {
        let file = try ConfigurationFile.read(path: workspace.config, source: .option, writePath: workspace.config, home: workspace.home)
        let engine = SuggestionEngine(catalog: ProviderCatalog(file: file), directory: workspace.stores)
        guard engine.warnings.isEmpty, engine.sources.count == Workspace.providers.count, engine.sources.allSatisfy({ $0.store != nil }) else {
            throw BenchmarkError("the engine did not open the three stores: \(engine.warnings)")
        }
        return engine
    }

    func run(progress: (String) -> Void) throws -> Result {
        var openTimes: [Duration] = []
        for _ in 0..<20 {
            let (elapsed, _) = try measure { try makeEngine() }
            openTimes.append(elapsed)
        }
        let engine = try makeEngine()

        // Warm up: SQLite's page cache, libpsl, the allocator.
        for query in queries.prefix(500) { _ = try Self.suggest(query.text, engine: engine) }

        progress("in-process: \(queries.count) queries through SuggestionEngine")
        var times: [Double] = [], counts: [Int] = []
        times.reserveCapacity(queries.count)
        counts.reserveCapacity(queries.count)
        for query in queries {
            let (elapsed, suggestions) = try measure { try Self.suggest(query.text, engine: engine) }
            times.append(elapsed.milliseconds)
            counts.append(suggestions.count)
        }

        progress("in-process: the same queries again, step by step")
        let phases = try QueryPhases.replay(engine: engine, queries: queries)

        // The peers hold every identity in memory, as the provider's own (store order) arrays.
        // Each provider contributes only the kinds its bundle declares, as in the engine.
        let scan = InMemoryScan(data: data, kinds: engine.sources.map { SuggestionEngine.kinds(declaredBy: $0.capabilities) })
        var mismatches: [String] = []
        func check(_ query: BenchmarkQuery, _ scanned: [Suggestion]) throws {
            let expected = try Self.suggest(query.text, engine: engine)
            if Self.comparable(scanned) != Self.comparable(expected) {
                mismatches.append("\(query.text): engine \(expected.count), scan \(scanned.count)")
            }
        }
        progress("in-process peer: naive scan of \(data.total) identities for \(min(naiveQueries, queries.count)) queries")
        var naive: [Double] = []
        for query in queries.prefix(naiveQueries) {
            let (elapsed, scanned) = try measure { try scan.naive(query.text) }
            naive.append(elapsed.milliseconds)
            try check(query, scanned)
        }
        progress("in-process peer: pre-parsed scan for \(min(preparsedQueries, queries.count)) queries")
        var preparsed: [Double] = []
        for query in queries.prefix(preparsedQueries) {
            let (elapsed, scanned) = try measure { try scan.preparsed(query.text) }
            preparsed.append(elapsed.milliseconds)
            try check(query, scanned)
        }
        return Result(engine: times, kinds: queries.map(\.kind), suggestionCounts: counts, naive: Samples(naive),
                      preparsed: Samples(preparsed), engineOnNaiveQueries: Samples(Array(times.prefix(naiveQueries))),
                      engineOnPreparsedQueries: Samples(Array(times.prefix(preparsedQueries))), mismatches: mismatches,
                      openEngine: Samples(openTimes), phases: phases)
    }

    /// What a host does for a page: parse the text, ask the engine.
    static func suggest(_ text: String, engine: SuggestionEngine) throws -> [Suggestion] {
        try engine.suggestions(for: ServiceQuery(text), kinds: allKinds)
    }

    /// A suggestion list without store positions (the scans number candidates differently).
    static func comparable(_ suggestions: [Suggestion]) -> [String] {
        suggestions.map { "\($0.providerID)|\($0.match)|\($0.identity)" }
    }
}

/// The peers of figure 1: every identity in memory, scanned for each query.
struct InMemoryScan {
    struct Entry {
        let provider: Int
        let order: Int
        let identity: CredentialIdentity
        let service: ServiceName?
    }

    let entries: [Entry]

    /// Every identity of `data` whose kind its provider declares (`kinds`, in provider order).
    init(data: GeneratedData, kinds: [Set<CredentialIdentity.Kind>]) {
        var entries: [Entry] = []
        entries.reserveCapacity(data.total)
        for (provider, identities) in data.identities.enumerated() {
            for (order, identity) in identities.enumerated() where kinds[provider].contains(identity.kind) {
                entries.append(Entry(provider: provider, order: order, identity: identity, service: IdentityIndex.serviceName(for: identity)))
            }
        }
        self.entries = entries
    }

    /// What one writes without an index: `ServiceQuery.match` on every identity.
    func naive(_ text: String) throws -> [Suggestion] {
        let query = try ServiceQuery(text)
        var found: [Suggestion] = []
        for entry in entries {
            guard let match = query.match(entry.identity) else { continue }
            found.append(suggestion(entry, match))
        }
        return SuggestionRanking.ranked(found)
    }

    /// The same scan over services parsed once, when the identities were loaded.
    func preparsed(_ text: String) throws -> [Suggestion] {
        let query = try ServiceQuery(text)
        var found: [Suggestion] = []
        for entry in entries {
            guard let service = entry.service, let match = query.match(service, kind: entry.identity.kind) else { continue }
            found.append(suggestion(entry, match))
        }
        return SuggestionRanking.ranked(found)
    }

    private func suggestion(_ entry: Entry, _ match: MatchQuality) -> Suggestion {
        let provider = Workspace.providers[entry.provider]
        return Suggestion(providerID: provider.id, providerName: provider.name, providerPosition: entry.provider,
                          identity: entry.identity, match: match, storeOrder: entry.order)
    }
}
