internal import Foundation
internal import Glibc
internal import Synchronization

/// Issue H's figures: `autofill` through its agent (`autofill-bench --agent [RUNS]`, `Scripts/bench
/// --agent`; docs/PERFORMANCE.md, "The agent (issue H)"), each against a peer measured in the same run:
///
/// 1. `autofill fill SITE --user U`, whole process (spawn to exit), through a warm agent with the
///    Vault unlocked, at 100, 1,000, 10,000 and 100,000 logins: the curve (aim: flat; at 10,000 a
///    median ≤ 5 ms, issue L; issue H's was 10 ms);
/// 2. its peer at every size: `keepassxc-cli show` of the same entry in a KeePass database of the
///    same logins, the password on standard input (aim: autofill ≥ 150× faster at 10,000, issue L);
/// 3. at the reference size (10,000): `autofill suggest` (aim ≤ 10 ms); the first fill after the agent
///    starts (`agent stop`, `autofill suggest` starts a new agent, `autofill unlock` untimed, then the
///    fill: aim ≤ 50 ms); the floors (`/bin/true`, an empty Swift program, the Swift + Foundation
///    floor, `autofill agent status`, `keepassxc-cli --version`) and `autofill fill` with
///    `AUTOFILL_AGENT=off` (the provider started and the vault unlocked in every command);
/// 4. reliability: N clients at once × M fills each (errors: aim 0; throughput), and `kill -9` of
///    the agent in the middle of a request (what the client says, and that the next command starts
///    a new agent).
///
/// Each size has a home of its own (so an agent of its own), set up as a user would: the Vault
/// sample trusted and synced, a vault made with `autofill-vault create` and `import` of a generated
/// Bitwarden CSV, unlocked with `autofill unlock --ui-script` (which writes its identities). All
/// timed commands of a round run one after another, sizes and peers interleaved, so drift in the
/// machine's load hits them alike. The agents are stopped at the end.
struct AgentBenchmark {
    /// `--agent [RUNS] [options]`.
    struct Options {
        var runs = 30
        var sizes = [100, 1_000, 10_000, 100_000]
        var clients = 10
        var clientFills = 1_000
        var keePassSeconds = 60.0
        var seed: UInt64 = 20_250_601
        var keep = false
        /// Only figures 1–3's rounds: no first-fill trials, no concurrent clients, no kill -9.
        var curveOnly = false

        static let usage = """
            USAGE: autofill-bench --agent [RUNS] [options]

            Issue H's figures: autofill fill through a warm agent at several vault sizes against
            keepassxc-cli show on the same entries, autofill suggest, the first fill after the agent
            starts, AUTOFILL_AGENT=off, concurrent clients and kill -9 of the agent (docs/PERFORMANCE.md).

            OPTIONS:
              RUNS                 timed runs of each command (default 30)
              --sizes LIST         vault sizes, comma-separated (default 100,1000,10000,100000)
              --clients N          concurrent clients in the reliability figure (default 10; 0 skips it)
              --client-fills N     fills per client (default 1000)
              --keepass-seconds S  time budget for keepassxc-cli show per size (default 60): large
                                   databases get fewer runs (at least 3), spread over the rounds
              --seed N             the logins' seed (default 20250601)
              --curve              only the rounds of figures 1–3 (the curve, keepassxc-cli, suggest,
                                   the floors): no first-fill trials, concurrent clients or kill -9
              --keep               keep the temporary folder (its path is printed)
              -h, --help           show this help
            """

        static func parse(_ arguments: ArraySlice<String>) throws -> Options {
            var options = Options()
            var rest = arguments
            func number(_ name: String, minimum: Int) throws -> Int {
                guard let text = rest.popFirst(), let value = Int(text.replacingUnderscores), value >= minimum else {
                    throw BenchmarkError("\(name) takes a whole number of at least \(minimum)")
                }
                return value
            }
            if let first = rest.first, let runs = Int(first) {
                guard runs >= 1 else { throw BenchmarkError("RUNS must be at least 1") }
                options.runs = runs
                rest = rest.dropFirst()
            }
            while let argument = rest.popFirst() {
                switch argument {
                case "--sizes":
                    let sizes = (rest.popFirst() ?? "").split(separator: ",").map { Int(String($0).replacingUnderscores) }
                    guard !sizes.isEmpty, sizes.allSatisfy({ ($0 ?? 0) >= 10 }) else { throw BenchmarkError("--sizes takes sizes of at least 10, comma-separated") }
                    options.sizes = Array(Set(sizes.compactMap { $0 })).sorted()
                case "--clients": options.clients = try number(argument, minimum: 0)
                case "--client-fills": options.clientFills = try number(argument, minimum: 1)
                case "--keepass-seconds": options.keePassSeconds = Double(try number(argument, minimum: 1))
                case "--seed": options.seed = UInt64(try number(argument, minimum: 0))
                case "--keep": options.keep = true
                case "--curve": options.curveOnly = true
                case "-h", "--help": throw HelpRequested()
                default: throw BenchmarkError("unknown option \(argument); see --agent --help")
                }
            }
            return options
        }
    }

    /// The folder holding `autofill`, `autofill-vault` and this benchmark.
    let bin: String
    let options: Options

    func run() throws -> String {
        let load = LoadMonitor()
        let loadAtStart = Self.loadAverage()
        let parent = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(parent)/autofill-agent-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchmarkError("cannot create a temporary folder in \(parent)") }
        let root = String(cString: made)
        var homes: [AgentHome] = []
        var offHome: AgentHome?
        defer {
            for home in homes { home.stopAgent() }
            offHome?.stopAgent()
            if options.keep { progress("agent: workspace \(root) (kept)") } else { try? FileManager.default.removeItem(atPath: root) }
        }
        let plugins = "\(repositoryRoot)/.build/plugins"
        guard FileManager.default.fileExists(atPath: "\(plugins)/VaultProvider.afprovider/Info.plist") else {
            throw BenchmarkError("no built Vault sample in \(plugins): run Scripts/build release first")
        }

        // The peer: KeePassXC's command-line client, when installed.
        var keepassxc = Subprocess.find("keepassxc-cli")
        var keePassNote = keepassxc == nil
            ? "keepassxc-cli is missing (Debian package keepassxc; `Scripts/bootstrap bench` installs it): the KeePassXC peer is not in this run"
            : ""
        var keePassKDF = "?"

        for size in options.sizes {
            progress("agent: \(size) logins: generating, autofill-vault import, autofill unlock in an agent of its own")
            let home = try AgentHome(count: size, parent: root, bin: bin, plugins: plugins, seed: options.seed)
            homes.append(home)
            try home.setUpVault()
            if let tool = keepassxc {
                progress("agent: \(size) logins: keepassxc-cli import")
                do {
                    keePassKDF = try home.setUpKeePass(keepassxc: tool)
                } catch {
                    keePassNote = "keepassxc-cli could not be set up (\(error)): the KeePassXC peer is not in this run"
                    keepassxc = nil
                }
            }
        }
        let reference = homes.first { $0.count == 10_000 } ?? homes[homes.count / 2]
        // AUTOFILL_AGENT=off runs in a home of its own: each unlocks the Vault in its own process, which
        // rewrites its home's store and records, and the next fill through that home's agent would pay for it.
        progress("agent: \(reference.count) logins again, a home of its own for AUTOFILL_AGENT=off")
        let withoutAgentHome = try AgentHome(count: reference.count, parent: "\(root)/off", bin: bin, plugins: plugins, seed: options.seed)
        offHome = withoutAgentHome
        try withoutAgentHome.setUpVault()
        waitUntilPluginsSettle(in: plugins)

        // The floors, run in the same rounds.
        var floors: [(name: String, process: Subprocess)] = [
            ("/bin/true (the process floor)", Subprocess(path: Subprocess.find("true") ?? "/bin/true", arguments: [], environment: reference.environment)),
        ]
        if let empty = try Self.emptySwiftProgram(in: root) {
            floors.append(("an empty Swift program (swiftc -O: the Swift runtime floor)", Subprocess(path: empty, arguments: [], environment: reference.environment)))
        }
        floors.append(("autofill-bench --noop (Swift + Foundation floor)", Subprocess(path: MemoryProbe.selfExecutable(), arguments: ["--noop"], environment: reference.environment)))
        floors.append(("autofill agent status (the client, a round trip, no provider)", reference.autofill(["agent", "status"])))
        if let tool = keepassxc {
            floors.append(("keepassxc-cli --version (its start)", Subprocess(path: tool, arguments: ["--version"], environment: reference.environment)))
        }

        // keepassxc-cli at the large sizes takes seconds: within the budget, at least 3 runs, spread over the rounds.
        var keePassRounds: [Int: Set<Int>] = [:]
        if let tool = keepassxc {
            for home in homes {
                let once = try timed(home.keePassShow(home.targets[0], keepassxc: tool), "keepassxc-cli show (\(home.count))", root: root)
                let count = max(3, min(options.runs, Int(options.keePassSeconds * 1000 / max(once, 1))))
                keePassRounds[home.count] = Set((0..<min(count, options.runs)).map { $0 * options.runs / min(count, options.runs) })
            }
        }

        // 1–3: the rounds.
        let warmup = 2
        progress("agent: \(options.runs) rounds (+\(warmup) warm-up): autofill fill at \(homes.map(\.count)), keepassxc-cli show, suggest, AUTOFILL_AGENT=off, \(floors.count) floors")
        var fills: [Int: [Double]] = [:], keePass: [Int: [Double]] = [:]
        var suggest: [Double] = [], withoutAgent: [Double] = []
        var floorTimes = [[Double]](repeating: [], count: floors.count)
        for round in -warmup..<options.runs {
            let record = round >= 0
            for home in homes {
                let target = home.targets[(round + warmup) % home.targets.count]
                let fill = try timed(home.fill(target), "autofill fill at \(home.count)", root: root)
                if record { fills[home.count, default: []].append(fill) }
                if record, let tool = keepassxc, keePassRounds[home.count]?.contains(round) == true {
                    keePass[home.count, default: []].append(try timed(home.keePassShow(target, keepassxc: tool), "keepassxc-cli show at \(home.count)", root: root))
                }
            }
            let target = reference.targets[(round + warmup) % reference.targets.count]
            let s = try timed(reference.autofill(["suggest", target.uri]), "autofill suggest", root: root)
            let off = try timed(withoutAgentHome.fill(target, agent: false), "autofill fill with AUTOFILL_AGENT=off", root: root)
            var floorRound: [Double] = []
            for floor in floors { floorRound.append(try timed(floor.process, floor.name, root: root)) }
            guard record else { continue }
            suggest.append(s)
            withoutAgent.append(off)
            for (index, time) in floorRound.enumerated() { floorTimes[index].append(time) }
        }

        // Memory of each size's agent and Vault helper, after the rounds.
        var memory: [Int: (agent: (now: Double, peak: Double)?, helper: (now: Double, peak: Double)?)] = [:]
        for home in homes {
            let status = try home.agentStatus()
            memory[home.count] = (status.flatMap { residentMemory(of: $0.agent) }, status?.helper.flatMap { residentMemory(of: $0) })
        }

        // 3: the first fill after the agent starts.
        let trials = options.curveOnly ? 0 : options.runs
        progress("agent: \(trials) × (agent stop; suggest starting an agent; unlock; first and second fill) at \(reference.count)")
        var firstCommand: [Double] = [], firstFill: [Double] = [], secondFill: [Double] = []
        var agents = Set<Int32>()
        for trial in 0..<trials {
            let target = reference.targets[trial % reference.targets.count]
            try reference.check(reference.autofill(["agent", "stop"]), "stopping the agent")
            firstCommand.append(try timed(reference.autofill(["suggest", target.uri]), "autofill suggest starting the agent", root: root))
            if let status = try reference.agentStatus() { agents.insert(status.agent) }
            try reference.unlock()
            firstFill.append(try timed(reference.fill(target), "the first fill", root: root))
            secondFill.append(try timed(reference.fill(target), "the second fill", root: root))
        }

        // 4: reliability.
        var reliability: Reliability?
        if options.clients > 0 && !options.curveOnly {
            progress("agent: \(options.clients) clients × \(options.clientFills) fills at once at \(reference.count); then the same with the Swift runtime floor")
            let before = try reference.agentStatus()
            let fillRun = try concurrent(root: root, serving: before, jobs: (0..<options.clients).map { client in
                (0..<options.clientFills).map { index in
                    let target = reference.targets[(client + index) % reference.targets.count]
                    return (reference.fill(target), target.password + "\n")
                }
            })
            let after = try reference.agentStatus()
            let floor = floors.count > 1 ? floors[1] : floors[0]
            let floorRun = try concurrent(root: root, serving: nil, jobs: (0..<options.clients).map { _ in
                [(Subprocess, String?)](repeating: (floor.process, nil), count: options.clientFills)
            })
            reliability = Reliability(fills: fillRun, floor: floorRun, floorName: floor.name, before: before, after: after)
        }

        // 4: kill -9 of the agent mid-request.
        var killed: [String] = []
        if !options.curveOnly {
            progress("agent: kill -9 of the agent during a fill at \(reference.count)")
            killed = try killAgentMidRequest(reference, root: root)
        }

        var machine = MachineInfo.current(temporaryFolder: root, sqliteLibrary: "")
        (machine.otherLoadCores, machine.stealCores) = load.othersAndSteal()
        let loadAtEnd = Self.loadAverage()

        // The report.
        var lines: [String] = []
        lines.append("Agent (issue H): \(machine.cpu), \(machine.cores) cores; \(machine.system), Linux \(machine.kernel); build: \(machine.build)")
        lines.append("  load average \(loadAtStart) at the start, \(loadAtEnd) at the end; other programs used \(String(format: "%.2f", machine.otherLoadCores)) cores on average (steal \(String(format: "%.2f", machine.stealCores)))")
        lines.append("  vaults: autofill-vault import of a generated Bitwarden CSV (\(AgentHome.keyDerivation)), the Vault unlocked in an agent per size (UnlockTimeoutSeconds 86400); UserAuthentication none")
        lines.append(keepassxc == nil ? "  \(keePassNote)" : "  peer: the same logins in KeePass databases made by keepassxc-cli import (KDF: \(keePassKDF)), `keepassxc-cli show -q -s -a Password DB TITLE`, the password on stdin")
        lines.append("  set-up (s):  " + homes.map { home in
            "\(Self.count(home.count)): import \(String(format: "%.2f", home.vaultImportSeconds)), unlock \(String(format: "%.2f", home.unlockSeconds))"
                + (keepassxc == nil ? "" : ", keepassxc import \(String(format: "%.2f", home.keePassImportSeconds))")
        }.joined(separator: "; "))

        lines.append("1–2. autofill fill SITE --user U, whole process (spawn to exit), warm agent, Vault unlocked; \(options.runs) runs, sizes and peers interleaved (median  p99)")
        lines.append("  " + Self.pad("logins", 9) + Self.pad("autofill fill", 22) + Self.pad("keepassxc-cli show (runs)", 32) + "keepassxc / autofill")
        for home in homes {
            let f = Samples(fills[home.count] ?? [])
            var row = "  " + Self.pad(Self.count(home.count), 9) + Self.pad("\(Self.ms(f.median))  \(Self.ms(f.p99))", 22)
            if let times = keePass[home.count] {
                let k = Samples(times)
                row += Self.pad("\(Self.ms(k.median))  \(Self.ms(k.p99)) (\(k.count))", 32) + Self.ratio(k.median / f.median)
            } else {
                row += "(no peer)"
            }
            lines.append(row)
        }
        let smallest = Samples(fills[homes.first!.count] ?? []), largest = Samples(fills[homes.last!.count] ?? [])
        lines.append("  the curve: \(Self.count(homes.last!.count)) logins / \(Self.count(homes.first!.count)): \(String(format: "%.2f", largest.median / smallest.median))× the median"
            + (largest.median / smallest.median <= 1.25 ? " (flat)" : " (NOT flat)"))
        let referenceFill = Samples(fills[reference.count] ?? [])
        var aims = "  at \(Self.count(reference.count)): median \(Self.ms(referenceFill.median)) (aim ≤ 5 ms, issue L: \(referenceFill.median <= 5 ? "met" : "NOT met"))"
        if let times = keePass[reference.count] {
            let ratio = Samples(times).median / referenceFill.median
            aims += "; keepassxc-cli show takes \(Self.ratio(ratio)) as long (aim ≥ 150×, issue L: \(ratio >= 150 ? "met" : "NOT met"))"
        }
        lines.append(aims)

        lines.append("3. at \(Self.count(reference.count)) logins, in the same rounds (median  p99; ratio to autofill fill's median \(Self.ms(referenceFill.median)))")
        let s = Samples(suggest), off = Samples(withoutAgent)
        lines.append("  autofill suggest SITE                    \(Self.ms(s.median))  \(Self.ms(s.p99))   \(Self.ratio(s.median / referenceFill.median))   (aim ≤ 10 ms: \(s.median <= 10 ? "met" : "NOT met"))")
        lines.append("  autofill fill, AUTOFILL_AGENT=off         \(Self.ms(off.median))  \(Self.ms(off.p99))   \(Self.ratio(off.median / referenceFill.median))   (each command starts the Vault's helper and unlocks: \(AgentHome.keyDerivation), decrypting \(Self.count(reference.count)) logins)")
        for (index, floor) in floors.enumerated() {
            let t = Samples(floorTimes[index])
            lines.append("  " + Self.pad(floor.name, 65) + "\(Self.ms(t.median))  \(Self.ms(t.p99))   \(Self.ratio(t.median / referenceFill.median))")
        }
        let first = Samples(firstCommand), firstF = Samples(firstFill), second = Samples(secondFill)
        if trials > 0 {
            lines.append("  the first fill after the agent starts (\(trials) trials, \(agents.count) distinct agents: `agent stop`; `autofill suggest` starts a new agent; `autofill unlock`, untimed; the fill):")
            lines.append("    first fill \(Self.ms(firstF.median))  p99 \(Self.ms(firstF.p99)) (aim ≤ 50 ms: \(firstF.median <= 50 ? "met" : "NOT met")); the second fill \(Self.ms(second.median))  p99 \(Self.ms(second.p99)); "
                + "the suggest that started the agent \(Self.ms(first.median))  p99 \(Self.ms(first.p99))")
        }

        if let reliability {
            lines += reliability.lines(clients: options.clients, each: options.clientFills, size: reference.count)
        }
        lines += killed
        lines.append("  memory after the rounds (resident now / peak, MB): " + homes.map { home in
            let entry = memory[home.count]
            func text(_ value: (now: Double, peak: Double)??) -> String { (value ?? nil).map { String(format: "%.1f / %.1f", $0.now, $0.peak) } ?? "?" }
            return "\(Self.count(home.count)): agent \(text(entry?.agent)), Vault helper \(text(entry?.helper))"
        }.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }

    // MARK: Reliability

    /// What N clients at once did.
    struct ConcurrentRun {
        var wallSeconds: Double
        var latencies: [Double]
        var errors: [String]
        var errorCount: Int
        /// CPU seconds used meanwhile by the clients (all of them), the agent and its Vault helper.
        var clientCPU: Double
        var agentCPU: Double?
        var helperCPU: Double?
    }

    struct Reliability {
        var fills: ConcurrentRun
        var floor: ConcurrentRun
        var floorName: String
        var before: (agent: Int32, helper: Int32?)?
        var after: (agent: Int32, helper: Int32?)?

        func lines(clients: Int, each: Int, size: Int) -> [String] {
            let total = clients * each
            let l = Samples(fills.latencies), f = Samples(floor.latencies)
            var lines = ["4. reliability at \(AgentBenchmark.count(size)) logins: \(clients) clients at once × \(AgentBenchmark.count(each)) fills each (whole processes; each output checked)"]
            lines.append("  \(AgentBenchmark.count(total)) fills in \(String(format: "%.1f", fills.wallSeconds)) s: \(String(format: "%.0f", Double(total) / fills.wallSeconds)) fills/s; "
                + "errors \(fills.errorCount) (aim 0: \(fills.errorCount == 0 ? "met" : "NOT met")); latency under this load median \(AgentBenchmark.ms(l.median))  p99 \(AgentBenchmark.ms(l.p99))  max \(AgentBenchmark.ms(l.max))")
            for error in fills.errors { lines.append("    error: \(error)") }
            func perFill(_ seconds: Double?) -> String { seconds.map { AgentBenchmark.ms($0 * 1000 / Double(total)) } ?? "?" }
            lines.append("  CPU per fill: the client \(perFill(fills.clientCPU)), the agent \(perFill(fills.agentCPU)), the Vault's helper \(perFill(fills.helperCPU)) "
                + "(the empty Swift program: \(perFill(floor.clientCPU))); \(String(format: "%.2f", ((fills.clientCPU + (fills.agentCPU ?? 0) + (fills.helperCPU ?? 0)) / fills.wallSeconds))) of the cores busy with them")
            lines.append("  peer, the same \(clients) × \(AgentBenchmark.count(each)) with \(floorName): \(String(format: "%.1f", floor.wallSeconds)) s, "
                + "\(String(format: "%.0f", Double(total) / floor.wallSeconds))/s, median \(AgentBenchmark.ms(f.median))  p99 \(AgentBenchmark.ms(f.p99)); errors \(floor.errorCount)")
            let same = before != nil && before?.agent == after?.agent && before?.helper == after?.helper
            lines.append("  the agent: pid \(before.map { "\($0.agent)" } ?? "?") before, \(after.map { "\($0.agent)" } ?? "?") after; its Vault helper \(before?.helper.map { "\($0)" } ?? "?") before, \(after?.helper.map { "\($0)" } ?? "?") after"
                + (same ? " (the same processes served every fill)" : " (CHANGED)"))
            return lines
        }
    }

    /// Runs a thread per client, all at once, each running its `jobs` one after another: a process
    /// and the output it must print (nil: any). A process counts as an error unless it exits 0 and
    /// prints that. The CPU time of the clients (our reaped children) and of `serving` (the agent and
    /// its helper) is taken around the run.
    private func concurrent(root: String, serving: (agent: Int32, helper: Int32?)?, jobs: [[(Subprocess, String?)]]) throws -> ConcurrentRun {
        let results = ClientResults()
        let finished = DispatchSemaphore(value: 0)
        let (childrenBefore, agentBefore, helperBefore) = (Self.childrenCPU(), serving.flatMap { Self.cpu(of: $0.agent) }, serving?.helper.flatMap { Self.cpu(of: $0) })
        let start = ContinuousClock.now
        for (client, clientJobs) in jobs.enumerated() {
            // A thread each (not concurrentPerform, which runs as many at once as there are cores).
            let thread = Thread {
                defer { finished.signal() }
                var latencies: [Double] = []
                latencies.reserveCapacity(clientJobs.count)
                let errorFile = "\(root)/client-\(client).err"
                for (index, (process, expected)) in clientJobs.enumerated() {
                    do {
                        let outcome = try process.run(captureOutput: expected != nil, errorFile: errorFile)
                        latencies.append(outcome.elapsed.milliseconds)
                        if outcome.status != 0 || (expected.map { $0 != outcome.output } ?? false) {
                            let said = ((try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "").split(separator: "\n").last.map(String.init) ?? ""
                            results.error("client \(client), fill \(index): status \(outcome.status)\(outcome.status == 0 ? ", another output" : ""): \(said)")
                        }
                    } catch {
                        results.fail("\(error)")
                        return
                    }
                }
                results.add(latencies)
            }
            thread.start()
        }
        for _ in jobs { finished.wait() }
        let wall = (ContinuousClock.now - start).milliseconds / 1000
        let (latencies, errors, errorCount, failure) = results.state.withLock { ($0.latencies, $0.errors, $0.errorCount, $0.failure) }
        if let failure { throw BenchmarkError("a client could not run its command: \(failure)") }
        func used(_ before: Double?, _ after: Double?) -> Double? { before.flatMap { before in after.map { $0 - before } } }
        let agentCPU = used(agentBefore, serving.flatMap { Self.cpu(of: $0.agent) })
        let helperCPU = used(helperBefore, serving?.helper.flatMap { Self.cpu(of: $0) })
        return ConcurrentRun(wallSeconds: wall, latencies: latencies, errors: errors, errorCount: errorCount,
                             clientCPU: Self.childrenCPU() - childrenBefore, agentCPU: agentCPU, helperCPU: helperCPU)
    }

    /// What the client threads found.
    private final class ClientResults: Sendable {
        let state = Mutex<(latencies: [Double], errors: [String], errorCount: Int, failure: String?)>(([], [], 0, nil))

        func add(_ latencies: [Double]) { state.withLock { $0.latencies += latencies } }

        /// Counts an error, keeping the first five messages.
        func error(_ message: String) {
            state.withLock {
                $0.errorCount += 1
                if $0.errors.count < 5 { $0.errors.append(message) }
            }
        }

        func fail(_ reason: String) { state.withLock { $0.failure = reason } }
    }

    /// CPU seconds (user + system) used so far by process `pid`, all its threads, from /proc/PID/stat.
    static func cpu(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")  // fields[0] is the state, field 3 of proc(5)
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU seconds (user + system) used so far by this process's reaped children.
    static func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    // MARK: kill -9

    /// Stops the Vault's helper (SIGSTOP) so that a fill waits in the agent, starts the fill, kills
    /// the agent (SIGKILL) while it waits, and reports what the client said, that the helper ended
    /// with the agent, and what the next commands did.
    private func killAgentMidRequest(_ home: AgentHome, root: String) throws -> [String] {
        let target = home.targets[0]
        guard let status = try home.agentStatus(), let helper = status.helper else {
            return ["5. kill -9: NOT measured: no agent with a running Vault helper at \(home.count)"]
        }
        kill(helper, SIGSTOP)
        let running = try home.fill(target).start(outputFile: "\(root)/kill.out", errorFile: "\(root)/kill.err")
        usleep(300_000)
        let waiting = running.isRunning
        let killedAt = ContinuousClock.now
        kill(status.agent, SIGKILL)
        let outcome = try running.wait()
        let clientEnded = (ContinuousClock.now - killedAt).milliseconds
        var helperEnded: Double?
        while helperEnded == nil && ContinuousClock.now - killedAt < .seconds(5) {
            if !processIsRunning(helper) { helperEnded = (ContinuousClock.now - killedAt).milliseconds } else { usleep(1_000) }
        }
        if helperEnded == nil { kill(helper, SIGCONT) }
        let said = ((try? String(contentsOfFile: "\(root)/kill.err", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)

        let next = try home.fill(target).run(captureOutput: true, errorFile: "\(root)/next.err")
        let nextSaid = ((try? String(contentsOfFile: "\(root)/next.err", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let newAgent = try home.agentStatus()
        try home.unlock()
        let again = try home.fill(target).run(captureOutput: true)
        let afterUnlock = try home.agentStatus()

        var lines = ["5. kill -9 of the agent mid-request (\(Self.count(home.count)) logins): the Vault's helper (pid \(helper)) stopped with SIGSTOP, so the fill waits in the agent; SIGKILL to the agent (pid \(status.agent)) 0.3 s into the fill"]
        lines.append("  the fill was \(waiting ? "still waiting" : "NOT waiting any more (it ended before the kill)") when the agent was killed; the client exited \(outcome.status) \(Self.ms(clientEnded)) after the kill, "
            + "stdout \(outcome.output.isEmpty ? "empty" : "NOT empty"), stderr: \"\(said)\"")
        lines.append("  the Vault's helper " + (helperEnded.map { "ended with the agent (gone \(Self.ms($0)) after the kill)" } ?? "was STILL RUNNING 5 s after the kill"))
        lines.append("  the next `autofill fill` (no UI script) started a new agent (pid \(newAgent.map { "\($0.agent)" } ?? "none")\(newAgent?.agent == status.agent ? ": THE SAME" : "")) and exited \(next.status)"
            + (next.status == 0 ? " with \(next.output == target.password + "\n" ? "the password" : "ANOTHER output")" : ": \"\(nextSaid)\"")
            + (next.status == 21 ? " (the vault is locked again, as after any end of the agent)" : ""))
        lines.append("  after `autofill unlock`: `autofill fill` exited \(again.status)\(again.output == target.password + "\n" ? " with the password" : ""), agent pid \(afterUnlock.map { "\($0.agent)" } ?? "none")")
        return lines
    }

    // MARK: Helpers

    /// Runs `process` once (stdout to /dev/null); its wall time in milliseconds. Fails, with what it
    /// said on stderr (a second run), unless it exits 0.
    private func timed(_ process: Subprocess, _ what: String, root: String) throws -> Double {
        let outcome = try process.run()
        guard outcome.status == 0 else {
            let again = try process.run(errorFile: "\(root)/failed.err")
            let said = ((try? String(contentsOfFile: "\(root)/failed.err", encoding: .utf8)) ?? "").split(separator: "\n").suffix(3).joined(separator: " | ")
            throw BenchmarkError("\(what) exited with \(outcome.status) (again: \(again.status)): \(said)")
        }
        return outcome.elapsed.milliseconds
    }

    /// Builds an empty Swift program with `swiftc -O` (the Swift runtime's start alone); nil without swiftc.
    private static func emptySwiftProgram(in folder: String) throws -> String? {
        guard let swiftc = Subprocess.find("swiftc") else {
            progress("agent: swiftc is not on PATH: no empty Swift program among the floors")
            return nil
        }
        let source = "\(folder)/empty.swift", program = "\(folder)/empty-swift"
        try "// An empty program: what starting the Swift runtime costs.\n".write(toFile: source, atomically: true, encoding: .utf8)
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let built = try Subprocess(path: swiftc, arguments: ["-O", source, "-o", program], environment: environment).run(keepStderr: true)
        guard built.status == 0 else {
            progress("agent: swiftc could not build the empty program (status \(built.status)): no empty Swift program among the floors")
            return nil
        }
        return program
    }

    /// /proc/loadavg's three averages.
    private static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func ms(_ value: Double) -> String {
        if value.isNaN { return "–" }
        if value >= 1000 { return String(format: "%.2f s", value / 1000) }
        return String(format: value < 10 ? "%.2f ms" : "%.1f ms", value)
    }

    static func ratio(_ value: Double) -> String { String(format: value >= 100 ? "%.0f×" : value >= 10 ? "%.1f×" : "%.2f×", value) }

    static func count(_ value: Int) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    static func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count + 1), withPad: " ", startingAt: 0) }
}
