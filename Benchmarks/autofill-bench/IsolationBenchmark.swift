internal import AutofillCore
internal import AutofillHost
internal import AutofillMatching
internal import Foundation
internal import Logging

/// Issue E's figures: what running providers in helper processes costs, each against its in-process
/// peer measured in the same run (`autofill-bench --isolation [RUNS]`, docs/PERFORMANCE.md):
///
/// 1. a no-UI request on a loaded provider (the sample Vault, unlocked through its configuration UI,
///    and the C Netrc), in process and through its helper, interleaved (aim: ≤ 10 ms median added);
/// 2. `autofill fill` end to end, whole process, with the configuration's `ProviderIsolation` set to
///    each mode: through an agent per mode (each keeps its Vault unlocked: the helper's cost is a
///    request's), and each command in its own process (`AUTOFILL_AGENT=off`: each fill starts the
///    provider and unlocks the demo vault from a UI script);
/// 3. loading a plugin: `PluginLoader.load` of a fresh copy against `HelperConnection.launch`;
/// 4. a crash to the next candidate served: the router with a provider that crashes (SIGSEGV) first
///    and a good one second, from the crash's notice to the fill's end (aim: ≤ 50 ms); peers: the same
///    with a provider that fails cleanly, in a helper and in process;
/// 5. the Vault helper's memory.
struct IsolationBenchmark {
    let bin: String
    let runs: Int

    private static let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
    private static let alice = PasswordCredentialIdentity(
        serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: "alice", recordIdentifier: "vault-1")

    func run() async throws -> String {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("autofill-isolation-bench-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let runtime = "\(home)/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // The folders the plugins and their helpers use, in this process and in the commands it runs.
        setenv("HOME", home, 1)
        setenv("XDG_RUNTIME_DIR", runtime, 1)
        setenv("XDG_DATA_HOME", "\(home)/.local/share", 1)
        setenv("XDG_CONFIG_HOME", "\(home)/.config", 1)
        setenv(HelperProtocol.executableEnvironmentKey, "\(bin)/\(HelperProtocol.executableName)", 1)
        // In a folder of its own: the Vault's sandbox may change files in its vault's folder (docs/SANDBOX.md).
        let vault = "\(home)/vault/vault.afvault"
        try FileManager.default.createDirectory(atPath: "\(home)/vault", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/Config/demo/vault/vault.afvault", toPath: vault)
        let environment = ["HOME=\(home)", "XDG_RUNTIME_DIR=\(runtime)", "XDG_DATA_HOME=\(home)/.local/share",
                           "XDG_CONFIG_HOME=\(home)/.config", "PATH=/usr/bin:/bin"]
        // The demo vault's master password, for the Vault's unlock prompt (a loaded Vault starts locked).
        let unlockScript = "\(home)/unlock.ui"
        try "secret correct horse battery staple\n".write(toFile: unlockScript, atomically: true, encoding: .utf8)
        let copies = Copies(root: "\(home)/copies")
        let fixtures = try Fixtures(folder: "\(home)/fixtures")

        var lines: [String] = []
        progress("isolation: requests on loaded providers (\(runs * 5) each, interleaved)")
        lines += try await requests(vault: vault, unlockScript: unlockScript, copies: copies)
        progress("isolation: autofill fill, whole process, each mode (\(runs) runs each, interleaved)")
        lines += try wholeProcessFill(home: home, vault: vault, unlockScript: unlockScript, environment: environment)
        progress("isolation: plugin loads (\(runs) fresh copies each)")
        lines += try loads(vault: vault, copies: copies)
        progress("isolation: a crash to the next candidate (\(runs) fills each)")
        lines += try await crashes(home: home, fixtures: fixtures)
        return lines.joined(separator: "\n")
    }

    // MARK: 1. Requests

    private func requests(vault: String, unlockScript: String, copies: Copies) async throws -> [String] {
        // Each Vault connection answers its unlock prompt from a script of its own (one answer each).
        func vaultServices() throws -> ProviderServices {
            ProviderServices(store: InMemoryIdentityStore(), settings: ["VaultFile": vault, "UnlockTimeoutSeconds": "3600"],
                             userInterface: try ScriptedUserInterface(path: unlockScript), logger: Self.logger)
        }
        let netrcServices = ProviderServices(
            store: InMemoryIdentityStore(), settings: ["NetrcFile": "\(repositoryRoot)/Config/demo/netrc/netrc"], logger: Self.logger)
        let carol = PasswordCredentialIdentity(serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: "carol")
        var lines = ["Isolation: a no-UI request on a loaded provider (\(runs * 5) each, interleaved; median  p99)"]
        var memory: [String] = []
        for (sample, identity) in [("VaultProvider", Self.alice), ("NetrcProvider", carol)] {
            let vault = sample == "VaultProvider"
            let inProcess = try PluginLoader.load(bundle: try copies.fresh(sample), services: vault ? try vaultServices() : netrcServices)
            let helper = try HelperConnection.launch(bundle: try copies.fresh(sample), services: vault ? try vaultServices() : netrcServices)
            let request = ProviderRequest.credentialWithoutUserInteraction(.password(identity))
            for connection in [inProcess, helper] as [any ProviderConnection] {
                // The Vault keeps its unlock in the memory of the process it runs in: unlock each (what `autofill unlock` does).
                if vault, await connection.send(.extensionConfiguration, deadline: nil) != .completed(.configurationCompleted) {
                    throw BenchmarkError("the Vault did not unlock through its configuration UI")
                }
                for _ in 0..<20 {  // warm up: caches, the helper's first round trips
                    guard case .completed = await connection.send(request, deadline: .seconds(3)) else {
                        throw BenchmarkError("\(sample) did not answer \(identity.user)'s password; is the vault unlocked?")
                    }
                }
            }
            var local: [Duration] = [], isolated: [Duration] = []
            let clock = ContinuousClock()
            for _ in 0..<(runs * 5) {
                var start = clock.now
                _ = await inProcess.send(request, deadline: .seconds(3))
                local.append(clock.now - start)
                start = clock.now
                _ = await helper.send(request, deadline: .seconds(3))
                isolated.append(clock.now - start)
            }
            let l = Samples(local), i = Samples(isolated)
            let name = sample == "VaultProvider" ? "Vault (Swift)" : "Netrc (C)"
            lines.append("  \(pad(name, 14)) in process \(ms(l.median, 2))  \(ms(l.p99, 2))   helper \(ms(i.median, 2))  \(ms(i.p99, 2))"
                + "   added \(ms(i.median - l.median, 2)) median (aim ≤ 10 ms: \(i.median - l.median <= 10 ? "met" : "NOT met")), \(ratio(i.median, l.median))")
            // Read while the connection (and so its helper) is alive.
            if let pid = helper.helperProcessID, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
                let fields = status.split(separator: "\n").filter { $0.hasPrefix("VmPeak") || $0.hasPrefix("VmHWM") }
                    .map { $0.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") }
                memory.append("\(name) helper \(fields.joined(separator: ", "))")
            }
        }
        lines.append("  memory after these requests (address-space peak, resident peak): \(memory.joined(separator: "; "))")
        return lines
    }

    // MARK: 2. Whole process

    private func wholeProcessFill(home: String, vault: String, unlockScript: String, environment: [String]) throws -> [String] {
        let modes: [ProviderIsolation] = [.inProcess, .helperProcess]
        var configs: [ProviderIsolation: String] = [:]
        for isolation in modes {
            let plist: [String: Any] = [
                "PluginSearchPaths": ["\(repositoryRoot)/.build/plugins"],
                "EnabledProviders": ["org.autofill.vault", "org.autofill.netrc", "org.autofill.authenticator"],
                "ProviderSettings": [
                    "org.autofill.vault": ["VaultFile": vault, "UnlockTimeoutSeconds": "3600"],
                    "org.autofill.netrc": ["NetrcFile": "\(repositoryRoot)/Config/demo/netrc/netrc"],
                    "org.autofill.authenticator": ["OTPAuthFile": "\(repositoryRoot)/Config/demo/authenticator/otpauth.txt"],
                ],
                "UserAuthentication": ["Policy": "none"], "IdentityStoreDirectory": "\(home)/stores",
                "ProviderIsolation": ["Default": isolation.rawValue],
            ]
            let config = "\(home)/config-\(isolation).plist"
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
            configs[isolation] = config
        }
        // Both configurations list the same bundles by hand: approving their files once serves both.
        try shell("\(bin)/autofill providers trust org.autofill.vault org.autofill.netrc org.autofill.authenticator --config \(configs[.inProcess]!)",
                  environment)
        try shell("\(bin)/autofill providers sync --config \(configs[.inProcess]!)", environment)
        waitUntilPluginsSettle(in: "\(repositoryRoot)/.build/plugins")

        // An agent per mode (one provider id runs one way in an agent), each in a runtime folder of its
        // own, with the Vault unlocked in it (which also writes its identities); and each mode again
        // with every command in its own process, unlocking the vault from the UI script every time.
        var agentEnvironments: [ProviderIsolation: [String]] = [:]
        for isolation in modes {
            let runtime = "\(home)/run-\(isolation)"
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            agentEnvironments[isolation] = environment.filter { !$0.hasPrefix("XDG_RUNTIME_DIR=") } + ["XDG_RUNTIME_DIR=\(runtime)"]
        }
        defer {
            for environment in agentEnvironments.values {
                _ = try? Subprocess(path: "\(bin)/autofill", arguments: ["agent", "stop"], environment: environment).run()
            }
        }
        for isolation in modes {
            try shell("\(bin)/autofill unlock org.autofill.vault --ui-script \(unlockScript) --config \(configs[isolation]!)", agentEnvironments[isolation]!)
        }
        let site = ["fill", "https://www.example.com/login", "--user", "alice"]
        let cases: [(label: String, isolation: ProviderIsolation, process: Subprocess)] = modes.flatMap { isolation in
            [("agent", isolation, Subprocess(path: "\(bin)/autofill", arguments: site + ["--config", configs[isolation]!],
                                              environment: agentEnvironments[isolation]!)),
             ("own process", isolation, Subprocess(path: "\(bin)/autofill", arguments: site + ["--ui-script", unlockScript, "--config", configs[isolation]!],
                                                    environment: environment + ["AUTOFILL_AGENT=off"]))]
        }
        for (label, isolation, process) in cases {
            let check = try process.run(captureOutput: true, keepStderr: true)
            guard check.status == 0, check.output == "alice-demo-password\n" else {
                throw BenchmarkError("autofill fill (\(isolation), \(label)) did not print alice's password (status \(check.status))")
            }
        }
        var fills = [[Duration]](repeating: [], count: cases.count)
        for _ in 0..<runs {
            for (index, entry) in cases.enumerated() { fills[index].append(try entry.process.run().elapsed) }
        }
        var lines = ["Isolation: autofill fill end to end, whole process, Vault unlocked (\(runs) runs each, interleaved)"]
        for label in ["agent", "own process"] {
            let index = { (isolation: ProviderIsolation) in cases.firstIndex { $0.label == label && $0.isolation == isolation }! }
            let l = Samples(fills[index(.inProcess)]), i = Samples(fills[index(.helperProcess)])
            lines.append(label == "agent"
                ? "  through the agent (Vault unlocked there; the provider in the agent's process or its helper):"
                : "  each command in its own process (AUTOFILL_AGENT=off; each fill starts the provider and unlocks the demo vault, scrypt N=2^12):")
            lines.append("    in process \(ms(l.median))  p99 \(ms(l.p99))   helper \(ms(i.median))  p99 \(ms(i.p99))   added \(ms(i.median - l.median)) median, \(ratio(i.median, l.median))")
        }
        return lines
    }

    // MARK: 3. Loads

    private func loads(vault: String, copies: Copies) throws -> [String] {
        var lines = ["Isolation: loading a plugin (a fresh copy each time; median  p99)"]
        let clock = ContinuousClock()
        for sample in ["VaultProvider", "NetrcProvider"] {
            let services = ProviderServices(store: InMemoryIdentityStore(), settings: ["VaultFile": vault], logger: Self.logger)
            var local: [Duration] = [], isolated: [Duration] = [], sandboxed: [Duration] = []
            for _ in 0..<runs {
                let (a, b, c) = (try copies.fresh(sample), try copies.fresh(sample), try copies.fresh(sample))
                var start = clock.now
                _ = try PluginLoader.load(bundle: a, services: services)
                local.append(clock.now - start)
                start = clock.now
                _ = try HelperConnection.launch(bundle: b, services: services)  // released at once: its helper is stopped
                isolated.append(clock.now - start)
                let policy = try Self.sandbox(bundle: c, vault: vault)  // what the host grants: built before the clock starts
                start = clock.now
                _ = try HelperConnection.launch(bundle: c, services: services, options: HelperOptions(sandbox: policy))
                sandboxed.append(clock.now - start)
            }
            let l = Samples(local), i = Samples(isolated), s = Samples(sandboxed)
            let name = sample == "VaultProvider" ? "Vault (Swift)" : "Netrc (C)"
            lines.append("  \(pad(name, 14)) in process \(ms(l.median))  \(ms(l.p99))   helper (spawn, handshake, load) \(ms(i.median))  \(ms(i.p99))   \(ratio(i.median, l.median))")
            lines.append("  \(pad("", 14)) sandboxed helper \(ms(s.median))  \(ms(s.p99))   the sandbox adds \(ms(s.median - i.median)) to the median (aim ≤ 2 ms)")
        }
        return lines
    }

    /// A sandbox like the one the host builds for a sample (docs/SANDBOX.md): the system read-only,
    /// the Swift runtime, the bundle, the vault's folder, a private data folder.
    static func sandbox(bundle: String, vault: String) throws -> SandboxPolicy {
        let data = "\(bundle).data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var rules: [SandboxPolicy.Rule] = ["/usr", "/lib", "/lib64", "/etc/ld.so.cache"].map { .init(path: $0, access: .read, reason: "system") }
        if let runtime = SandboxSupport.swiftRuntimeFolder { rules.append(.init(path: runtime, access: .read, reason: "the Swift runtime")) }
        rules.append(.init(path: bundle, access: .read, reason: "its bundle"))
        rules.append(.init(path: (vault as NSString).deletingLastPathComponent, access: [.read, .write], reason: "its vault"))
        rules.append(.init(path: "/dev/null", access: [.read, .write], reason: "devices"))
        rules.append(.init(path: data, access: [.read, .write], reason: "its data folder"))
        let environment = ProcessInfo.processInfo.environment
        var kept = ["HOME": environment["HOME"] ?? "/", "PATH": "/usr/bin:/bin", "TMPDIR": data]
        kept["XDG_RUNTIME_DIR"] = environment["XDG_RUNTIME_DIR"]
        if let runtime = environment["XDG_RUNTIME_DIR"] { rules.append(.init(path: "\(runtime)/autofill", access: [.read, .write], reason: "sessions")) }
        return SandboxPolicy(rules: rules, environment: kept, dataFolder: data)
    }

    // MARK: 4. Crashes

    private func crashes(home: String, fixtures: Fixtures) async throws -> [String] {
        var lines = ["Isolation: a failing first candidate to the next one served (\(runs) fills each; the router, fallback on)"]
        let query = try ServiceQuery("https://example.com/login")
        let cases: [(String, ProviderIsolation, String)] = [
            ("crash (SIGSEGV), helpers", .helperProcess, "segv"),
            ("clean failure, helpers", .helperProcess, "cancel:0"),
            ("clean failure, in process", .inProcess, "cancel:0"),
        ]
        var crashToServed: Double = .nan
        for (label, isolation, user) in cases {
            let setup = try fixtures.setup(home: "\(home)/router-\(isolation)-\(user)", isolation: isolation, alphaUser: user)
            var afterNotice: [Double] = [], total: [Double] = []
            for _ in 0..<runs {
                let noticed = NoticeClock()
                let router = FillRouter(setup: setup, ui: UnavailableUserInterface(), authenticator: NoUserAuthentication(),
                                        deadline: .seconds(3), notify: { _ in noticed.mark() })
                let candidates = try SuggestionEngine(catalog: setup.catalog, directory: setup.stores).suggestions(for: query, kinds: [.password])
                let start = ContinuousClock.now
                let result = try await router.fill(candidates, for: query, pick: .position(1), fallback: true)
                let end = ContinuousClock.now
                guard result.providerID == "org.bench.beta", let notice = noticed.time else {
                    throw BenchmarkError("the fallback did not reach Beta (\(label))")
                }
                afterNotice.append((end - notice).milliseconds)
                total.append((end - start).milliseconds)
            }
            let a = Samples(afterNotice), t = Samples(total)
            if user == "segv" { crashToServed = a.median }
            lines.append("  \(pad(label, 26)) failure → next served \(ms(a.median))  p99 \(ms(a.p99))   whole fill \(ms(t.median))  p99 \(ms(t.p99))")
        }
        lines.append("  (the next candidate's provider is started at the fallback, as in a fresh `autofill fill`; aim ≤ 50 ms: \(crashToServed <= 50 ? "met" : "NOT met"))")

        // Warm: both providers already running; the crash request alone, then the next provider's answer.
        let alpha = try HelperConnection.launch(bundle: fixtures.alpha, services: fixtures.services("alpha"))
        let beta = try HelperConnection.launch(bundle: fixtures.beta, services: fixtures.services("beta"))
        var detect: [Duration] = [], served: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0..<runs {
            guard case .completed = await alpha.send(fixtures.request("ok"), deadline: .seconds(3)) else {  // a fresh helper, untimed
                throw BenchmarkError("Alpha did not restart")
            }
            let start = clock.now
            let crashed = await alpha.send(fixtures.request("segv"), deadline: .seconds(3))
            let detected = clock.now
            let answer = await beta.send(fixtures.request("ok"), deadline: .seconds(3))
            let end = clock.now
            guard case .failed(let failure) = crashed, failure.reason == .transport, case .completed = answer else {
                throw BenchmarkError("unexpected outcomes: \(crashed), \(answer)")
            }
            detect.append(detected - start)
            served.append(end - start)
        }
        let d = Samples(detect), s = Samples(served)
        lines.append("  warm (both running): request → crash reported \(ms(d.median, 2))  p99 \(ms(d.p99, 2));  → next served \(ms(s.median, 2))  p99 \(ms(s.p99, 2))")
        return lines
    }

    // MARK: Helpers

    private func shell(_ command: String, _ environment: [String]) throws {
        let outcome = try Subprocess(path: "/bin/sh", arguments: ["-c", command], environment: environment).run(keepStderr: true)
        guard outcome.status == 0 else { throw BenchmarkError("setup failed (\(outcome.status)): \(command)") }
    }

    private func ms(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f ms", value) }
    private func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f×", a / b) }
    private func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }
}

/// Fresh copies of the built sample bundles (a new file each: a new in-process load).
private struct Copies {
    let root: String

    func fresh(_ sample: String) throws -> String {
        let folder = "\(root)/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let target = "\(folder)/\(sample).afprovider"
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/.build/plugins/\(sample).afprovider", toPath: target)
        return target
    }
}

/// The test fixture provider (Tests/AutofillHostTests/Fixtures/fixture_provider.c), built by `cc` as
/// Alpha and Beta; a request's user name chooses what it does ("ok", "segv", "cancel:0").
private struct Fixtures {
    let folder: String
    var alpha: String { "\(folder)/alpha.afprovider" }
    var beta: String { "\(folder)/beta.afprovider" }

    init(folder: String) throws {
        self.folder = folder
        for name in ["alpha", "beta"] {
            let bundle = "\(folder)/\(name).afprovider"
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            let plist: [String: Any] = [
                "CFBundleIdentifier": "org.bench.\(name)", "CFBundleDisplayName": name.capitalized, "CFBundleExecutable": "libFixture.so",
                "AFProviderABIVersion": 1, "AFProviderEntrySymbol": "fixture_provider_entry",
                "NSExtension": ["NSExtensionPointIdentifier": PluginManifest.extensionPointIdentifier,
                                "NSExtensionAttributes": ["ASCredentialProviderExtensionCapabilities": ["ProvidesPasswords": true]]],
            ]
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: "\(bundle)/Info.plist"))
            let compile = try Subprocess(path: "/usr/bin/cc", arguments: [
                "-std=c11", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-pthread", "-I", "\(repositoryRoot)/Sources/CAutofillProvider/include",
                "\(repositoryRoot)/Tests/AutofillHostTests/Fixtures/fixture_provider.c", "-o", "\(bundle)/libFixture.so",
            ], environment: ["PATH=/usr/bin:/bin"]).run(keepStderr: true)
            guard compile.status == 0 else { throw BenchmarkError("cc could not build the fixture provider") }
        }
    }

    func services(_ name: String) -> ProviderServices {
        ProviderServices(store: InMemoryIdentityStore(), settings: ["FixtureName": name], logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
    }

    func request(_ user: String) -> ProviderRequest {
        .credentialWithoutUserInteraction(.password(PasswordCredentialIdentity(
            serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: user)))
    }

    /// Alpha and Beta enabled in `isolation`, with Alpha's `alphaUser` suggested before Beta's "ok".
    func setup(home: String, isolation: ProviderIsolation, alphaUser: String) throws -> ProviderSetup {
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let config = "\(home)/config.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": [folder], "EnabledProviders": ["org.bench.alpha", "org.bench.beta"], "IdentityStoreDirectory": "stores",
            "ProviderSettings": ["org.bench.alpha": ["FixtureName": "alpha"], "org.bench.beta": ["FixtureName": "beta"]],
            "ProviderIsolation": ["Default": isolation.rawValue],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        let file = try ConfigurationFile.locate(option: config, environment: ["HOME": home])
        var setup = ProviderSetup(catalog: ProviderCatalog(file: file), stores: try file.identityStores(environment: [:]),
                                  records: HostRecords(path: "\(home)/records"), logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
        setup.notify = { _ in }
        for id in ["org.bench.alpha", "org.bench.beta"] { _ = try setup.trust(id) }  // listed by hand: approve the files
        setup.onProviderFault = { _, _ in }  // no fault ledger: a benchmark crashes on purpose, again and again
        for (id, user, rank) in [("org.bench.alpha", alphaUser, 10), ("org.bench.beta", "ok", 5)] {
            try setup.store(for: id)?.save([.password(PasswordCredentialIdentity(
                serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: user, rank: rank))])
        }
        return setup
    }
}

/// When the router first told the user something (the failure's notice).
private final class NoticeClock: @unchecked Sendable {
    // @unchecked: written once by the router's notify, read after `fill` returned (which happens after).
    private(set) var time: ContinuousClock.Instant?
    func mark() { if time == nil { time = ContinuousClock.now } }
}

/// Runs `body` on Swift's concurrency pool and blocks this (main) thread until it is done.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>(), done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// The result of a task another thread waits for.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked: written once by the task before the waiter's semaphore is signalled, read after it.
    var result: Result<T, any Error>?
}
