internal import AutofillMatching
internal import Foundation

/// Figures 2 and 5: `autofill suggest` as a whole process (start, dynamic linking, configuration,
/// the bundles' plists, opening three stores, the query, printing), and its peak RSS; with peers
/// run interleaved in the same loop so that drift affects them alike. The peers are chosen so
/// that their differences split the whole-process time into its parts.
struct ProcessBenchmark {
    /// One program the loop runs, and what its runs cost.
    struct Series {
        let name: String
        let command: String
        let expectedStatus: Int32
        /// The command for a round's query and the round's number.
        let make: (BenchmarkQuery, Int) throws -> Subprocess
        var times: [Double] = []
        /// The kind of query each timed run asked.
        var kinds: [BenchmarkQuery.Kind] = []
        var maxRSS: [Int] = []

        var samples: Samples { Samples(times) }
        var rss: Samples { Samples(maxRSS.map(Double.init)) }
    }

    struct Result {
        var suggest: Series
        /// `autofill suggest` for hot sites only (hundreds of suggestions printed), when there are any.
        var hotSuggest: Series?
        var peers: [Series]
        /// How the peak RSS figures were taken.
        var rssSource: String
        /// The memory probe: a fresh benchmark process that only opens the engine and runs the queries.
        var probe: MemoryProbe.Report?

        func peer(_ name: String) -> Series? { peers.first { $0.name == name } }
    }

    static let floor = "/bin/true"
    static let swiftFloor = "Swift + Foundation floor"
    static let help = "autofill --help"
    static let missingConfig = "autofill suggest, missing config"
    static let noProviders = "autofill suggest, no providers"
    static let sqlite = "sqlite3 indexed SELECT"

    let workspace: Workspace
    let autofill: String
    let queries: [BenchmarkQuery]
    let runs: Int

    func makeSeries() -> (suggest: Series, hot: Series?, peers: [Series]) {
        let environment = workspace.environment
        let (autofill, config, emptyConfig) = (self.autofill, workspace.config, workspace.emptyConfig)
        let missing = "\(workspace.root)/no-such-config.plist"
        let storePath = workspace.stores.path(for: Workspace.providers[0].id)
        let truePath = Subprocess.find("true") ?? "/bin/true"
        let suggest = Series(name: "autofill suggest", command: "autofill suggest <url> --config <3 providers>", expectedStatus: 0) { query, _ in
            Subprocess(path: autofill, arguments: ["suggest", query.text, "--config", config], environment: environment)
        }
        var peers = [
            Series(name: Self.floor, command: "\(truePath): the process floor (fork/exec, a C program)", expectedStatus: 0) { _, _ in
                Subprocess(path: truePath, arguments: [], environment: environment)
            },
            Series(name: Self.swiftFloor, command: "autofill-bench --noop: a Swift binary linking the same runtime, Foundation and autofill libraries, exiting at once", expectedStatus: 0) { _, _ in
                Subprocess(path: MemoryProbe.selfExecutable(), arguments: ["--noop"], environment: environment)
            },
            Series(name: Self.help, command: "autofill --help: start-up, argument parser, help text", expectedStatus: 0) { _, _ in
                Subprocess(path: autofill, arguments: ["--help"], environment: environment)
            },
            Series(name: Self.missingConfig, command: "autofill suggest <url> --config <missing file>: start-up, argument parsing, query parsing; exits 66 before reading anything", expectedStatus: 66) { query, _ in
                Subprocess(path: autofill, arguments: ["suggest", query.text, "--config", missing], environment: environment)
            },
            Series(name: Self.noProviders, command: "autofill suggest <url> --config <none enabled>: + configuration and plugin discovery (3 Info.plists), no store", expectedStatus: 0) { query, _ in
                Subprocess(path: autofill, arguments: ["suggest", query.text, "--config", emptyConfig], environment: environment)
            },
        ]
        if let sqlite3 = Subprocess.find("sqlite3") {
            peers.append(Series(name: Self.sqlite, command: "sqlite3 -readonly <one store> \"SELECT <the 8 columns> FROM identity WHERE lookup_key = '<the query's key>' ORDER BY id\"", expectedStatus: 0) { query, _ in
                let key = try ServiceQuery(query.text).lookupKey.replacingOccurrences(of: "'", with: "''")
                let select = "SELECT kind, service_type, service, user, record_identifier, credential_id, user_handle, rank FROM identity WHERE lookup_key = '\(key)' ORDER BY id"
                return Subprocess(path: sqlite3, arguments: ["-readonly", storePath, select], environment: environment)
            })
        }
        let hotQueries = queries.filter { $0.kind == .hot }
        let hot = hotQueries.isEmpty ? nil : Series(name: "autofill suggest, hot site", command: "autofill suggest <hot-site url> --config <3 providers>", expectedStatus: 0) { _, round in
            Subprocess(path: autofill, arguments: ["suggest", hotQueries[round % hotQueries.count].text, "--config", config], environment: environment)
        }
        return (suggest, hot, peers)
    }

    func run(progress: (String) -> Void) throws -> Result {
        var (suggest, hot, peers) = makeSeries()

        // A sanity run: the binary works with this configuration and finds suggestions.
        if let hit = queries.first(where: { $0.kind == .hitURL }) {
            let check = try Subprocess(path: autofill, arguments: ["suggest", hit.text, "--config", workspace.config, "--json"],
                                       environment: workspace.environment).run(captureOutput: true, keepStderr: true)
            guard check.status == 0, check.output.contains("\"suggestions\"") else {
                throw BenchmarkError("\(autofill) suggest failed (status \(check.status)) for \(hit.text): \(check.output.prefix(300))")
            }
        }

        progress("process: \(runs) runs each of autofill suggest\(hot == nil ? "" : " (any site, hot site)") and \(peers.count) peers (interleaved, 3 warm-up rounds)")
        for round in -3..<runs {
            let query = queries[(round + 3) % queries.count]
            for index in -2..<peers.count {
                guard let series = index == -2 ? hot : index == -1 ? suggest : peers[index] else { continue }
                let command = try series.make(query, round + 3)
                let outcome = try command.run()
                guard outcome.status == series.expectedStatus else {
                    throw BenchmarkError("\(command.path) \(command.arguments.joined(separator: " ")) exited with \(outcome.status), expected \(series.expectedStatus)")
                }
                guard round >= 0 else { continue }
                switch index {
                case -2: hot?.times.append(outcome.elapsed.milliseconds)
                case -1:
                    suggest.times.append(outcome.elapsed.milliseconds)
                    suggest.kinds.append(query.kind)
                default: peers[index].times.append(outcome.elapsed.milliseconds)
                }
            }
        }

        // Peak RSS, in separate runs under GNU time. wait4's ru_maxrss on our own children is useless
        // here: posix_spawn uses vfork, and Linux carries the parent's high-water RSS into a child at
        // exec, so every child would report at least this benchmark's own peak.
        var rssSource = "wait4 ru_maxrss (UPPER BOUND: includes this benchmark's own RSS; install GNU time for exact figures)"
        let memoryRounds = min(runs, 10)
        if let time = Subprocess.find("/usr/bin/time") {
            rssSource = "/usr/bin/time -f %M (the child is forked by time, whose own RSS is tiny)"
            progress("process memory: \(memoryRounds) runs of each under \(time)")
            let output = "\(workspace.root)/time-output.txt"
            for round in 0..<memoryRounds {
                for index in -2..<peers.count {
                    guard let series = index == -2 ? hot : index == -1 ? suggest : peers[index] else { continue }
                    let command = try series.make(queries[round % queries.count], round)
                    let run = try Subprocess(path: time, arguments: ["-f", "%M", "-o", output, command.path] + command.arguments,
                                             environment: command.environment).run()
                    guard let text = try? String(contentsOfFile: output, encoding: .utf8),
                          let kilobytes = text.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
                        throw BenchmarkError("\(time) \(command.path) gave no figure (status \(run.status))")
                    }
                    switch index {
                    case -2: hot?.maxRSS.append(kilobytes)
                    case -1: suggest.maxRSS.append(kilobytes)
                    default: peers[index].maxRSS.append(kilobytes)
                    }
                }
            }
        } else {
            progress("process memory: GNU time is missing; peak RSS from wait4 is an upper bound")
            for round in 0..<memoryRounds {
                for index in -1..<peers.count {
                    let series = index < 0 ? suggest : peers[index]
                    let outcome = try series.make(queries[round % queries.count], round).run()
                    if index < 0 { suggest.maxRSS.append(outcome.maxRSSKilobytes) } else { peers[index].maxRSS.append(outcome.maxRSSKilobytes) }
                }
            }
        }
        return Result(suggest: suggest, hotSuggest: hot, peers: peers, rssSource: rssSource, probe: nil)
    }
}
