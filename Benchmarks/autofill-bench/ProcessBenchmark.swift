internal import Foundation
internal import AutofillMatching

/// Figures 2 and 5: `autofill suggest` as a whole process (start, dynamic linking, configuration,
/// the bundles' plists, opening three stores, the query, printing), and its peak RSS; with peers
/// run interleaved in the same loop so that drift affects them alike.
struct ProcessBenchmark {
    /// One program the loop runs, and what each run cost.
    struct Series {
        let name: String
        let command: String
        var times: [Double] = []
        var maxRSS: [Int] = []

        var samples: Samples { Samples(times) }
        var rss: Samples { Samples(maxRSS.map(Double.init)) }
    }

    struct Result {
        var suggest: Series
        var peers: [Series]
        /// How the peak RSS figures were taken.
        var rssSource: String
        /// The memory probe: a fresh benchmark process that only opens the engine and runs the queries.
        var probe: MemoryProbe.Report?

        func peer(_ name: String) -> Series? { peers.first { $0.name == name } }
    }

    let workspace: Workspace
    let autofill: String
    let queries: [BenchmarkQuery]
    let runs: Int

    func run(progress: (String) -> Void) throws -> Result {
        let environment = workspace.environment
        let storePath = workspace.stores.path(for: Workspace.providers[0].id)
        let sqlite3 = Subprocess.find("sqlite3")
        let truePath = Subprocess.find("true") ?? "/bin/true"

        // A sanity run: the binary works with this configuration and finds suggestions.
        if let hit = queries.first(where: { $0.kind == .hitURL }) {
            let check = try Subprocess(path: autofill, arguments: ["suggest", hit.text, "--config", workspace.config, "--json"],
                                       environment: environment).run(captureOutput: true, keepStderr: true)
            guard check.status == 0, check.output.contains("\"suggestions\"") else {
                throw BenchmarkError("\(autofill) suggest failed (status \(check.status)) for \(hit.text): \(check.output.prefix(300))")
            }
        }

        var suggest = Series(name: "autofill suggest", command: "autofill suggest <url> --config <3 providers>")
        var peers = [
            Series(name: "/bin/true", command: "\(truePath) (process floor)"),
            Series(name: "autofill --help", command: "autofill --help (start-up, linking, argument parser)"),
            Series(name: "autofill suggest, no providers", command: "autofill suggest <url> --config <none enabled>"),
        ]
        if sqlite3 != nil {
            peers.append(Series(name: "sqlite3 indexed SELECT", command: "sqlite3 -readonly <one store> \"SELECT ... WHERE lookup_key = ?\""))
        }

        func commands(_ query: BenchmarkQuery) throws -> [Subprocess] {
            let lookupKey = try ServiceQuery(query.text).lookupKey
            let select = "SELECT kind, service_type, service, user, record_identifier, credential_id, user_handle, rank FROM identity WHERE lookup_key = '\(lookupKey.replacingOccurrences(of: "'", with: "''"))' ORDER BY id"
            var list = [
                Subprocess(path: autofill, arguments: ["suggest", query.text, "--config", workspace.config], environment: environment),
                Subprocess(path: truePath, arguments: [], environment: environment),
                Subprocess(path: autofill, arguments: ["--help"], environment: environment),
                Subprocess(path: autofill, arguments: ["suggest", query.text, "--config", workspace.emptyConfig], environment: environment),
            ]
            if let sqlite3 { list.append(Subprocess(path: sqlite3, arguments: ["-readonly", storePath, select], environment: environment)) }
            return list
        }

        progress("process: \(runs) runs each of autofill suggest and \(peers.count) peers (interleaved, 3 warm-up rounds)")
        for round in -3..<runs {
            let query = queries[(round + 3) % queries.count]
            let list = try commands(query)
            for (index, command) in list.enumerated() {
                let outcome = try command.run()
                guard outcome.status == 0 else {
                    throw BenchmarkError("\(command.path) \(command.arguments.joined(separator: " ")) exited with \(outcome.status)")
                }
                guard round >= 0 else { continue }
                if index == 0 {
                    suggest.times.append(outcome.elapsed.milliseconds)
                    suggest.maxRSS.append(outcome.maxRSSKilobytes)
                } else {
                    peers[index - 1].times.append(outcome.elapsed.milliseconds)
                    peers[index - 1].maxRSS.append(outcome.maxRSSKilobytes)
                }
            }
        }

        // Peak RSS, in separate runs under GNU time (wait4's ru_maxrss on our own children is useless
        // here: posix_spawn uses vfork, and Linux carries the parent's high-water RSS into a child
        // at exec, so every child would report at least this benchmark's own peak).
        var rssSource = "wait4 ru_maxrss (UPPER BOUND: includes this benchmark's own RSS; install GNU time for exact figures)"
        if let time = Subprocess.find("/usr/bin/time") {
            rssSource = "/usr/bin/time -f %M (the child is forked by time, whose own RSS is tiny)"
            let output = "\(workspace.root)/time-output.txt"
            suggest.maxRSS = []
            for index in peers.indices { peers[index].maxRSS = [] }
            for round in 0..<min(runs, 10) {
                for (index, command) in try commands(queries[round % queries.count]).enumerated() {
                    let run = try Subprocess(path: time, arguments: ["-f", "%M", "-o", output, command.path] + command.arguments,
                                             environment: command.environment).run()
                    guard run.status == 0, let text = try? String(contentsOfFile: output, encoding: .utf8),
                          let kilobytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                        throw BenchmarkError("\(time) \(command.path) failed (status \(run.status))")
                    }
                    if index == 0 { suggest.maxRSS.append(kilobytes) } else { peers[index - 1].maxRSS.append(kilobytes) }
                }
            }
        }
        return Result(suggest: suggest, peers: peers, rssSource: rssSource, probe: nil)
    }
}
