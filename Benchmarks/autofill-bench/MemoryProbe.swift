internal import AutofillCore
internal import AutofillHost
internal import AutofillMatching
internal import AutofillStore
internal import Foundation

/// Figure 5's in-process part: the benchmark started again as a child (`--memory-probe`) that
/// does only what the host does (read the configuration, open the three stores, run the queries)
/// and reports its own RSS. The parent cannot measure this on itself: it holds the 300,000
/// generated identities for the peers.
enum MemoryProbe {
    struct Report: Codable {
        /// VmRSS at start (runtime and libraries), after opening the engine, after the queries; and VmHWM (peak), in kB.
        var startKilobytes: Int
        var openedKilobytes: Int
        var afterQueriesKilobytes: Int
        var peakKilobytes: Int
        var queries: Int
    }

    /// VmRSS and VmHWM of this process, in kilobytes.
    static func ownMemory() -> (rss: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        var rss = 0, peak = 0
        for line in status.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 2, let value = Int(parts[1]) else { continue }
            if parts[0] == "VmRSS:" { rss = value }
            if parts[0] == "VmHWM:" { peak = value }
        }
        return (rss, peak)
    }

    /// The child's side: prints one JSON report on stdout.
    static func runChild(config: String, queryFile: String) throws {
        let start = ownMemory().rss
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"] ?? "/"
        let file = try ConfigurationFile.read(path: config, source: .option, writePath: config, home: home)
        let engine = SuggestionEngine(catalog: ProviderCatalog(file: file), directory: IdentityStoreDirectory(environment: environment))
        guard engine.sources.count == Workspace.providers.count else { throw BenchmarkError("the probe opened \(engine.sources.count) stores") }
        let opened = ownMemory().rss
        let texts = try String(contentsOfFile: queryFile, encoding: .utf8).split(separator: "\n").map(String.init)
        var total = 0
        for text in texts {
            total += try SuggestionBenchmark.suggest(text, engine: engine).count
        }
        let (after, peak) = ownMemory()
        let report = Report(startKilobytes: start, openedKilobytes: opened, afterQueriesKilobytes: after, peakKilobytes: peak, queries: texts.count)
        print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        if total < 0 { print(total) }  // keeps the work observable
    }

    /// The parent's side: writes the queries, starts the child, reads its report.
    static func measure(workspace: Workspace, queries: [BenchmarkQuery]) throws -> Report {
        try (queries.map(\.text).joined(separator: "\n") + "\n").write(toFile: workspace.queryFile, atomically: true, encoding: .utf8)
        let outcome = try Subprocess(path: selfExecutable(), arguments: ["--memory-probe", workspace.config, workspace.queryFile],
                                     environment: workspace.environment).run(captureOutput: true, keepStderr: true)
        guard outcome.status == 0, let report = try? JSONDecoder().decode(Report.self, from: Data(outcome.output.utf8)) else {
            throw BenchmarkError("the memory probe failed (status \(outcome.status)): \(outcome.output.prefix(300))")
        }
        return report
    }

    static func selfExecutable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
