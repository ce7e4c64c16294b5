internal import AutofillCore
internal import Foundation

/// Turns the benchmarks' results into the report's measurements, aims and peer ratios.
struct ReportBuilder {
    typealias Figure = BenchmarkReport.Figure
    typealias Peer = BenchmarkReport.Peer
    typealias Measurement = BenchmarkReport.Measurement

    let options: Options
    let data: GeneratedData
    let storeBytes: [Int]
    let fillTimes: [Duration]
    let suggestion: SuggestionBenchmark.Result
    let writes: StoreWriteBenchmark.Result
    let process: ProcessBenchmark.Result

    func build(machine: MachineInfo) -> BenchmarkReport {
        var warnings: [String] = []
        if machine.otherLoadCores > 0.25 {
            warnings.append(String(format: "other programs kept %.1f cores busy on average during the run: figures are slower and noisier than on an idle machine", machine.otherLoadCores))
        }
        if machine.build != "release" { warnings.append("this is a \(machine.build) build") }
        if process.rssSource.hasPrefix("wait4") { warnings.append("GNU time (/usr/bin/time, Debian package `time`) is missing: the peak RSS figures are upper bounds") }
        if !suggestion.mismatches.isEmpty {
            warnings.append("the scans disagreed with the engine on \(suggestion.mismatches.count) queries, e.g. \(suggestion.mismatches.prefix(3).joined(separator: "; "))")
        }
        return BenchmarkReport(
            machine: machine,
            parameters: ["identitiesPerProvider": options.identities, "queries": options.queries, "runs": options.runs,
                         "replaceRuns": options.replaceRuns, "saves": options.saves, "naiveQueries": options.naiveQueries,
                         "preparsedQueries": options.preparsedQueries, "seed": Int(truncatingIfNeeded: options.seed)],
            data: dataSummary(),
            measurements: [query(), wholeProcess(), replace(), save(), memory()],
            breakdown: breakdown(),
            warnings: warnings)
    }

    private func dataSummary() -> [String: Double] {
        let all = data.identities.joined()
        let universe = data.universe
        var summary: [String: Double] = [
            "providers": Double(data.identities.count), "identitiesPerProvider": Double(options.identities),
            "identities": Double(data.total), "sites": Double(universe.sites.count), "hotSites": Double(universe.hot.count),
            "popularSites": Double(universe.popular.count), "idnSites": Double(universe.idn.count),
            "exactOnlySites": Double(universe.exactOnly.count), "rejectedGeneratedNames": Double(universe.rejected),
            "passwords": Double(all.count { $0.kind == .password }), "passkeys": Double(all.count { $0.kind == .passkey }),
            "oneTimeCodes": Double(all.count { $0.kind == .oneTimeCode }),
            "urlServiceIdentifiers": Double(all.count { if case .password(let id) = $0 { id.serviceIdentifier.type == .url } else { false } }),
        ]
        for (index, bytes) in storeBytes.enumerated() { summary["storeBytes.\(Workspace.providers[index].id)"] = Double(bytes) }
        for (index, time) in fillTimes.enumerated() { summary["initialFillMilliseconds.\(Workspace.providers[index].id)"] = time.milliseconds }
        return summary
    }

    private func ms(_ name: String, _ value: Double) -> Figure { Figure(name: name, value: value, unit: "ms") }

    private func peer(_ name: String, _ what: String, _ figure: Figure, against headline: Double) -> Peer {
        Peer(name: name, what: what, figure: figure, ratio: headline / figure.value)
    }

    private func query() -> Measurement {
        let engine = suggestion.engineSamples
        let counts = suggestion.suggestionCounts
        let naiveRatioBase = suggestion.engineOnNaiveQueries.median
        let preparsedBase = suggestion.engineOnPreparsedQueries.median
        let withoutHot = Samples(zip(suggestion.engine, suggestion.kinds).filter { $0.1 != .hot }.map(\.0))
        let fit = Self.leastSquares(x: counts.map(Double.init), y: suggestion.engine)
        return Measurement(
            id: "suggestionQueryInProcess",
            title: "Suggestion query, in-process",
            samples: engine.count,
            figures: [ms("p50", engine.median), ms("p90", engine.p90), ms("p99", engine.p99), ms("max", engine.max)],
            aimFigure: "p99", aim: 1, aimText: "p99 ≤ 1 ms", aimMet: engine.p99 <= 1,
            peers: [
                peer("naive scan", "all \(data.total) identities in memory, ServiceQuery.match(identity) on each, then ranked; \(suggestion.naive.count) queries (the first of the same list); ratio against the engine's median on those queries (\(BenchmarkReport.format(naiveRatioBase, "ms")))",
                     ms("p50", suggestion.naive.median), against: naiveRatioBase),
                peer("pre-parsed scan", "the same scan over services parsed once up front (match(_:kind:)); \(suggestion.preparsed.count) queries; ratio against the engine's median on those (\(BenchmarkReport.format(preparsedBase, "ms")))",
                     ms("p50", suggestion.preparsed.median), against: preparsedBase),
            ],
            notes: [
                "Each sample: ServiceQuery(text) + SuggestionEngine.suggestions(for:kinds: all) over the 3 stores, timed with ContinuousClock; 500 warm-up queries first.",
                "Suggestions per query: mean \(String(format: "%.1f", Double(counts.reduce(0, +)) / Double(max(counts.count, 1)))), max \(counts.max() ?? 0); \(counts.count { $0 == 0 }) of \(counts.count) queries found nothing.",
                "By query kind (p50 / p99): " + BenchmarkQuery.Kind.allCases.compactMap { kind in
                    let samples = suggestion.engineSamples(of: kind)
                    guard samples.count > 0 else { return nil }
                    return "\(kind.rawValue) \(BenchmarkReport.format(samples.median, "ms")) / \(BenchmarkReport.format(samples.p99, "ms")) (n=\(samples.count))"
                }.joined(separator: ", "),
                "Without the hot-site queries: p50 \(BenchmarkReport.format(withoutHot.median, "ms")), p90 \(BenchmarkReport.format(withoutHot.p90, "ms")), p99 \(BenchmarkReport.format(withoutHot.p99, "ms")) (n=\(withoutHot.count)).",
                "Cost against result size (least squares over all queries): \(BenchmarkReport.format(fit.intercept, "ms")) + \(BenchmarkReport.format(fit.slope, "ms")) per suggestion, so 1 ms buys about \(fit.slope > 0 ? String(Int((1 - fit.intercept) / fit.slope)) : "?") suggestions.",
                "Building the engine (configuration, 3 bundle plists, opening 3 stores): median \(BenchmarkReport.format(suggestion.openEngine.median, "ms")) (not part of a query).",
            ] + suggestion.phases.notes())
    }

    private func wholeProcess() -> Measurement {
        let suggest = process.suggest.samples
        let headline = suggest.median
        let peers = process.peers.map { series in
            peer(series.name, series.command, ms("median", series.samples.median), against: headline)
        }
        var notes = ["\(process.suggest.command); stdout to /dev/null; interleaved with the peers, one of each per round, after 3 warm-up rounds; wall time from posix_spawn to wait4."]
        func median(_ name: String) -> Double? { process.peer(name)?.samples.median }
        if let floor = median(ProcessBenchmark.floor), let swift = median(ProcessBenchmark.swiftFloor),
           let missing = median(ProcessBenchmark.missingConfig), let none = median(ProcessBenchmark.noProviders) {
            notes.append(String(format: "Split of the median (differences of peer medians): process floor %.1f ms; loading the Swift runtime + Foundation (ICU) + autofill's libraries %.1f ms; autofill's own start-up and argument parsing %.1f ms; configuration + plugin discovery %.1f ms; opening the 3 stores + the query + printing %.1f ms.",
                                floor, swift - floor, missing - swift, none - missing, headline - none))
        }
        var figures = [ms("median", suggest.median), ms("p90", suggest.p90), ms("max", suggest.max)]
        if let hot = process.hotSuggest?.samples, hot.count > 0 {
            figures.append(ms("hot p50", hot.median))
            figures.append(ms("hot p90", hot.p90))
            notes.append("\"hot\": separate runs (interleaved in the same loop) asking only for the hot sites, each with hundreds of suggestions printed as a text table: median \(BenchmarkReport.format(hot.median, "ms")), p90 \(BenchmarkReport.format(hot.p90, "ms")), max \(BenchmarkReport.format(hot.max, "ms")); the aim is checked on the random mix.")
        }
        if let sqlite = process.peer(ProcessBenchmark.sqlite) {
            notes.append("The sqlite3 peer reads one store (autofill reads three) for the same query's lookup key: p90 \(BenchmarkReport.format(sqlite.samples.p90, "ms")).")
        }
        return Measurement(
            id: "suggestWholeProcess", title: "autofill suggest, whole process", samples: suggest.count,
            figures: figures,
            aimFigure: "median", aim: 30, aimText: "median ≤ 30 ms", aimMet: suggest.median <= 30,
            peers: peers, notes: notes)
    }

    private func replace() -> Measurement {
        let samples = writes.replace
        let preparation = writes.rowPreparation.median
        return Measurement(
            id: "replace", title: "replace(with:) of \(BenchmarkReport.count(Double(options.identities))) identities", samples: samples.count,
            figures: [ms("median", samples.median), ms("max", samples.max)],
            aimFigure: "median", aim: 1500, aimText: "median ≤ 1.5 s", aimMet: samples.median <= 1500,
            peers: [peer("bare INSERT loop", "SQLite directly: BEGIN IMMEDIATE; DELETE FROM identity; a prepared plain INSERT per row (keys and lookup keys computed beforehand, untimed); COMMIT. Same schema and indexes (read from the store), WAL, synchronous=NORMAL",
                         ms("median", writes.bareReplace.median), against: samples.median)],
            notes: [
                "Each run replaces a full store (\(BenchmarkReport.count(Double(options.identities))) identities deleted, a different list of as many inserted; the two lists alternate). The first replace, into an empty store: \(BenchmarkReport.format(writes.replaceIntoEmpty, "ms")).",
                "The store's replace takes \(BenchmarkReport.format(samples.median - writes.bareReplace.median, "ms")) more than the bare peer (medians). Computing the rows' identity keys and lookup keys (a ServiceName parse + libpsl per identity), which replace does inside and the peer gets done beforehand, takes \(BenchmarkReport.format(preparation, "ms")) alone; the rest is the upsert (ON CONFLICT) statement and Swift binding overhead.",
                "Store after the runs: \(BenchmarkReport.format(Double(writes.storeBytes) / 1024, "kB")) (database + WAL).",
            ])
    }

    private func save() -> Measurement {
        let samples = writes.saveNew
        return Measurement(
            id: "saveOne", title: "save of one identity into a \(BenchmarkReport.count(Double(options.identities)))-identity store", samples: samples.count,
            figures: [ms("median", samples.median), ms("p99", samples.p99), ms("max", samples.max)],
            aimFigure: "p99", aim: 2, aimText: "p99 ≤ 2 ms", aimMet: samples.p99 <= 2,
            peers: [peer("bare INSERT", "SQLite directly: BEGIN IMMEDIATE; one prepared INSERT; COMMIT, into a copy of the same table",
                         ms("median", writes.bareSave.median), against: samples.median)],
            notes: [
                "A new identity per save (a new account on a random site); each save is its own transaction (state check + upsert), WAL with synchronous=NORMAL, so a commit does not fsync but an automatic checkpoint (every ~1000 WAL pages) does.",
                "Saving an existing identity with a new rank (an update): median \(BenchmarkReport.format(writes.saveUpdate.median, "ms")), p99 \(BenchmarkReport.format(writes.saveUpdate.p99, "ms")), max \(BenchmarkReport.format(writes.saveUpdate.max, "ms")).",
                "Bare INSERT peer: p99 \(BenchmarkReport.format(writes.bareSave.p99, "ms")), max \(BenchmarkReport.format(writes.bareSave.max, "ms")).",
            ])
    }

    private func memory() -> Measurement {
        let rss = process.suggest.rss
        var peers: [Peer] = []
        for name in [ProcessBenchmark.help, ProcessBenchmark.swiftFloor, ProcessBenchmark.floor, ProcessBenchmark.sqlite] {
            guard let series = process.peer(name) else { continue }
            peers.append(peer(name, "peak RSS of the peer process, measured the same way", Figure(name: "median", value: series.rss.median, unit: "kB"), against: rss.median))
        }
        var figures = [Figure(name: "median", value: rss.median, unit: "kB"), Figure(name: "max", value: rss.max, unit: "kB")]
        if let hot = process.hotSuggest?.rss, hot.count > 0 {
            figures.append(Figure(name: "hot max", value: hot.max, unit: "kB"))
        }
        var notes = ["Peak RSS of \(rss.count) runs of each process (different queries; \"hot max\": hot-site queries) from \(process.rssSource). The aim is checked on every autofill figure, in-process included."]
        if let probe = process.probe {
            figures.append(Figure(name: "in-process", value: Double(probe.afterQueriesKilobytes), unit: "kB"))
            notes.append("In-process (a fresh autofill-bench child that only builds the engine and runs \(probe.queries) queries): VmRSS \(BenchmarkReport.format(Double(probe.startKilobytes), "kB")) at start, \(BenchmarkReport.format(Double(probe.openedKilobytes), "kB")) with the 3 stores open, \(BenchmarkReport.format(Double(probe.afterQueriesKilobytes), "kB")) after the queries; peak (VmHWM) \(BenchmarkReport.format(Double(probe.peakKilobytes), "kB")).")
        }
        let (ownRSS, ownPeak) = MemoryProbe.ownMemory()
        notes.append("The benchmark process itself, holding the generated identities and the in-memory peers: VmRSS \(BenchmarkReport.format(Double(ownRSS), "kB")), peak \(BenchmarkReport.format(Double(ownPeak), "kB")) (not a host figure).")
        let inProcessOK = process.probe.map { Double($0.peakKilobytes) <= 40 * 1024 } ?? true
        let exact = !process.rssSource.hasPrefix("wait4")
        return Measurement(
            id: "memory", title: "Host memory: peak RSS of autofill suggest", samples: rss.count,
            figures: figures, aimFigure: "max", aim: 40 * 1024, aimText: "RSS ≤ 40 MB",
            aimMet: exact ? max(rss.max, process.hotSuggest?.rss.max ?? 0) <= 40 * 1024 && inProcessOK : nil, peers: peers, notes: notes)
    }

    /// The line y = intercept + slope·x closest to the points.
    static func leastSquares(x: [Double], y: [Double]) -> (intercept: Double, slope: Double) {
        let n = Double(x.count)
        guard n > 1 else { return (.nan, .nan) }
        let meanX = x.reduce(0, +) / n, meanY = y.reduce(0, +) / n
        let covariance = zip(x, y).reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) }
        let variance = x.reduce(0) { $0 + ($1 - meanX) * ($1 - meanX) }
        let slope = variance > 0 ? covariance / variance : .nan
        return (meanY - slope * meanX, slope)
    }

    private func breakdown() -> [String: Double] {
        var result: [String: Double] = [
            "engineOpenMedianMs": suggestion.openEngine.median,
            "replaceIntoEmptyMs": writes.replaceIntoEmpty,
            "rowPreparationMedianMs": writes.rowPreparation.median,
            "saveUpdateMedianMs": writes.saveUpdate.median, "saveUpdateP99Ms": writes.saveUpdate.p99,
            "bareSaveP99Ms": writes.bareSave.p99,
            "suggestP90Ms": process.suggest.samples.p90,
        ]
        for kind in BenchmarkQuery.Kind.allCases {
            let samples = suggestion.engineSamples(of: kind)
            guard samples.count > 0 else { continue }
            result["query.\(kind.rawValue).p50Ms"] = samples.median
            result["query.\(kind.rawValue).p99Ms"] = samples.p99
            result["query.\(kind.rawValue).count"] = Double(samples.count)
        }
        for series in process.peers {
            result["process.\(series.name).medianMs"] = series.samples.median
            result["process.\(series.name).p90Ms"] = series.samples.p90
            result["process.\(series.name).maxRSSkB"] = series.rss.max
        }
        if let hot = process.hotSuggest?.samples, hot.count > 0 {
            result["process.hotSite.medianMs"] = hot.median
            result["process.hotSite.p90Ms"] = hot.p90
        }
        for (name, totals) in [("hot", suggestion.phases.hot), ("others", suggestion.phases.others)] where totals.queries > 0 {
            let queries = Double(totals.queries)
            result["phases.\(name).queries"] = queries
            result["phases.\(name).meanCandidates"] = Double(totals.candidates) / queries
            result["phases.\(name).meanSuggestions"] = Double(totals.suggestions) / queries
            result["phases.\(name).meanParseMs"] = totals.parse / queries
            result["phases.\(name).meanFetchMs"] = totals.fetch / queries
            result["phases.\(name).meanMatchMs"] = totals.match / queries
            result["phases.\(name).meanRankMs"] = totals.rank / queries
        }
        if let probe = process.probe {
            result["probe.startRSSkB"] = Double(probe.startKilobytes)
            result["probe.openedRSSkB"] = Double(probe.openedKilobytes)
            result["probe.afterQueriesRSSkB"] = Double(probe.afterQueriesKilobytes)
            result["probe.peakRSSkB"] = Double(probe.peakKilobytes)
        }
        return result
    }
}
