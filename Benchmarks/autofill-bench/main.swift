// autofill-bench: the figures of issue B (suggestion latency, whole-process latency, store writes,
// memory), each measured against a peer in the same run; `--fill` issue C's, `--isolation` issue E's,
// `--agent` issue H's, `--secret-service` the Secret Service provider's, `--keepass` the KeePassXC provider's. See docs/PERFORMANCE.md.
internal import AutofillCore
internal import Foundation

/// Progress goes to stderr so that `--json` output stays clean.
func progress(_ text: String) {
    FileHandle.standardError.write(Data("autofill-bench: \(text)\n".utf8))
}

/// The repository root, from this file's place in it (Benchmarks/autofill-bench/main.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

func runBenchmark(_ options: Options) throws -> BenchmarkReport {
    let executableFolder = URL(fileURLWithPath: MemoryProbe.selfExecutable()).deletingLastPathComponent().path
    let autofill = options.autofill ?? "\(executableFolder)/autofill"
    guard access(autofill, X_OK) == 0 else { throw BenchmarkError("no autofill binary at \(autofill): build it (Scripts/build release) or pass --autofill") }
    let parent = options.temporaryParent ?? ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    let workspace = try Workspace(parent: parent, builtBundles: options.plugins ?? "\(repositoryRoot)/.build/plugins", keep: options.keep)
    if options.keep { progress("workspace: \(workspace.root) (kept)") }

    let load = LoadMonitor()
    var generator = SeededGenerator(seed: options.seed)
    progress("generating \(options.identities) identities × \(Workspace.providers.count) providers (seed \(options.seed))")
    var universeGenerator = generator.fork(1)
    let universe = DomainUniverse(siteCount: max(50, options.identities / 5), generator: &universeGenerator)
    var identityGenerator = generator.fork(2)
    let data = GeneratedData(universe: universe, identities: IdentityGenerator(universe: universe)
        .generate(providers: Workspace.providers.count, perProvider: options.identities, generator: &identityGenerator))
    var queryGenerator = generator.fork(3)
    let queries = QueryGenerator(universe: universe).generate(count: options.queries, generator: &queryGenerator)

    progress("filling the 3 stores in \(workspace.stores.path)")
    let fillTimes = try workspace.fill(with: data)
    let storeBytes = Workspace.providers.map { provider in
        let path = workspace.stores.path(for: provider.id)
        return Workspace.fileSize(path) + Workspace.fileSize(path + "-wal")
    }

    let suggestion = try SuggestionBenchmark(workspace: workspace, data: data, queries: queries,
                                             naiveQueries: options.naiveQueries, preparsedQueries: options.preparsedQueries).run(progress: progress)
    var process = try ProcessBenchmark(workspace: workspace, autofill: autofill, queries: queries, runs: options.runs).run(progress: progress)
    progress("memory: a fresh process opening the stores and running \(queries.count) queries")
    process.probe = try MemoryProbe.measure(workspace: workspace, queries: queries)
    var writeGenerator = generator.fork(4)
    let writes = try StoreWriteBenchmark(workspace: workspace, data: data, replaceRuns: options.replaceRuns, saves: options.saves)
        .run(progress: progress, generator: &writeGenerator)

    var machine = MachineInfo.current(temporaryFolder: workspace.root, sqliteLibrary: (try? DirectSQLite().version) ?? "?")
    (machine.otherLoadCores, machine.stealCores) = load.othersAndSteal()
    return ReportBuilder(options: options, data: data, storeBytes: storeBytes, fillTimes: fillTimes, suggestion: suggestion,
                         writes: writes, process: process).build(machine: machine)
}

// `--noop`: exit at once (the Swift + Foundation start-up peer of the process figures).
if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == "--noop" { exit(0) }

// `--fill [RUNS]`: only issue C's fill figure (FillBenchmark).
if CommandLine.arguments.count >= 2 && CommandLine.arguments[1] == "--fill" {
    let executableFolder = URL(fileURLWithPath: MemoryProbe.selfExecutable()).deletingLastPathComponent().path
    do {
        let runs = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 30 : 30
        print(try FillBenchmark(autofill: "\(executableFolder)/autofill", runs: runs).run())
        exit(0)
    } catch {
        progress("error: \(error)")
        exit(1)
    }
}

// `--secret-service [RUNS]`: only the Secret Service provider's fill (SecretServiceBenchmark).
if CommandLine.arguments.count >= 2 && CommandLine.arguments[1] == "--secret-service" {
    let executableFolder = URL(fileURLWithPath: MemoryProbe.selfExecutable()).deletingLastPathComponent().path
    do {
        let runs = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 30 : 30
        print(try SecretServiceBenchmark(autofill: "\(executableFolder)/autofill", runs: runs).run())
        exit(0)
    } catch {
        progress("error: \(error)")
        exit(1)
    }
}

// `--keepass-save [RUNS]`: only saving into the KeePassXC provider's database (KeePassSaveBenchmark).
if CommandLine.arguments.count >= 2 && CommandLine.arguments[1] == "--keepass-save" {
    let executableFolder = URL(fileURLWithPath: MemoryProbe.selfExecutable()).deletingLastPathComponent().path
    do {
        let runs = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 20 : 20
        print(try KeePassSaveBenchmark(bin: executableFolder, runs: runs).run())
        exit(0)
    } catch {
        progress("error: \(error)")
        exit(1)
    }
}

// `--keepass [RUNS]`: only the KeePassXC provider's unlock and warm fill (KeePassBenchmark).
if CommandLine.arguments.count >= 2 && CommandLine.arguments[1] == "--keepass" {
    let executableFolder = URL(fileURLWithPath: MemoryProbe.selfExecutable()).deletingLastPathComponent().path
    do {
        let runs = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 30 : 30
        print(try KeePassBenchmark(bin: executableFolder, runs: runs).run())
        exit(0)
    } catch {
        progress("error: \(error)")
        exit(1)
    }
}

// `--isolation [RUNS]`: only issue E's figures (IsolationBenchmark).
if CommandLine.arguments.count >= 2 && CommandLine.arguments[1] == "--isolation" {
    let executableFolder = URL(fileURLWithPath: MemoryProbe.selfExecutable()).deletingLastPathComponent().path
    let runs = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 30 : 30
    do {
        print(try waitFor { try await IsolationBenchmark(bin: executableFolder, runs: runs).run() })
        exit(0)
    } catch {
        progress("error: \(error)")
        exit(1)
    }
}

// `--helper-start [RUNS]`: only issue M's figures (HelperStartBenchmark): helper start and warm fill
// with and without bubblewrap's namespaces.
if CommandLine.arguments.count >= 2 && CommandLine.arguments[1] == "--helper-start" {
    let executableFolder = URL(fileURLWithPath: MemoryProbe.selfExecutable()).deletingLastPathComponent().path
    let runs = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 30 : 30
    do {
        print(try waitFor { try await HelperStartBenchmark(bin: executableFolder, runs: runs).run() })
        exit(0)
    } catch {
        progress("error: \(error)")
        exit(1)
    }
}

// `--agent [RUNS] [options]`: only issue H's figures (AgentBenchmark).
if CommandLine.arguments.count >= 2 && CommandLine.arguments[1] == "--agent" {
    let executableFolder = URL(fileURLWithPath: MemoryProbe.selfExecutable()).deletingLastPathComponent().path
    do {
        let options = try AgentBenchmark.Options.parse(CommandLine.arguments.dropFirst(2))
        print(try AgentBenchmark(bin: executableFolder, options: options).run())
        exit(0)
    } catch is HelpRequested {
        print(AgentBenchmark.Options.usage)
        exit(0)
    } catch {
        progress("error: \(error)")
        exit(1)
    }
}

do {
    let options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    if let probe = options.memoryProbe {
        try MemoryProbe.runChild(config: probe.config, queryFile: probe.queries)
        exit(0)
    }
    let report = try runBenchmark(options)
    if let path = options.jsonFile { try (try report.json() + "\n").write(toFile: path, atomically: true, encoding: .utf8) }
    print(options.json ? try report.json() : report.text())
} catch is HelpRequested {
    print(Options.usage)
} catch {
    progress("error: \(error)")
    exit(1)
}
