import AutofillCore
import AutofillHost
import AutofillTestSupport
import Foundation
import Synchronization
import Testing

/// The helper process itself: what it inherits, that it dies with the host and with its
/// connection, and that a helper that breaks the protocol or speaks another version is refused.
struct HelperProcessTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    func bundle(_ name: String = "alpha", defines: [String] = []) throws -> String {
        try TestPlugins.fixture(in: folder.path, name: name, plist: TestPlugins.plist(id: "org.test.\(name)", name: name.capitalized),
                                defines: defines)
    }

    func launch(_ bundle: String, options: HelperOptions = HelperOptions(), name: String = "alpha",
                onFault: (@Sendable (PluginManifest, ProviderFault) -> Void)? = nil) throws -> HelperConnection {
        try HelperConnection.launch(
            bundle: bundle, services: ProviderServices(store: InMemoryIdentityStore(), settings: ["FixtureName": name], logger: log.logger),
            options: options, onFault: onFault)
    }

    /// A bundle of the fixture whose entry is `fixture_faults_entry` (the `FixtureFault` setting's behaviours).
    func faultBundle(_ name: String = "alpha", defines: [String] = []) throws -> String {
        try TestPlugins.fixture(in: folder.path, name: name,
                                plist: TestPlugins.plist(id: "org.test.\(name)", name: name.capitalized, entry: "fixture_faults_entry"),
                                defines: defines)
    }

    /// Launches `bundle` with `FixtureFault` = `fault`.
    func launch(_ bundle: String, fault: String, options: HelperOptions = HelperOptions(),
                onFault: (@Sendable (PluginManifest, ProviderFault) -> Void)? = nil) throws -> HelperConnection {
        try HelperConnection.launch(
            bundle: bundle,
            services: ProviderServices(store: InMemoryIdentityStore(), settings: ["FixtureName": "alpha", "FixtureFault": fault],
                                       logger: log.logger),
            options: options, onFault: onFault)
    }

    /// The pid the fixture logged as "forked child PID".
    func forkedChild() throws -> Int32 {
        let line = try #require(log.all.first { $0.contains("forked child ") })
        return try #require(Int32(line.split(separator: " ").last ?? ""))
    }

    /// The process group of `pid` (the fifth field of /proc/PID/stat).
    static func processGroup(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        return fields.count > 2 ? Int32(fields[2]) : nil
    }

    /// The session id (sixth field of /proc/PID/stat) and controlling terminal (seventh) of `pid`.
    static func session(of pid: Int32) -> Int32? { statField(pid, 3) }
    static func controllingTerminal(of pid: Int32) -> Int32? { statField(pid, 4) }

    static func statField(_ pid: Int32, _ index: Int) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        return fields.count > index ? Int32(fields[index]) : nil
    }

    static let request = ProviderRequest.credentialWithoutUserInteraction(.password(PasswordCredentialIdentity(
        serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: "ok")))

    @Test func aHelperHoldsOnlyItsOwnDescriptors() throws {
        // Two helpers at once: neither may hold the other's socket or pipes (close-on-exec everywhere).
        let alpha = try launch(try bundle("alpha"))
        let beta = try launch(try bundle("beta"), name: "beta")
        for helper in [alpha, beta] {
            let pid = try #require(helper.helperProcessID)
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap(Int.init).sorted()
            let targets = descriptors.map { fd in (fd, (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? "?") }
            #expect(Array(descriptors.prefix(5)) == [0, 1, 2, 3, 4])
            #expect(targets[0].1 == "/dev/null")
            #expect(targets[1].1.hasPrefix("pipe:") && targets[2].1.hasPrefix("pipe:"))
            #expect(targets[3].1.hasPrefix("socket:") && targets[4].1.hasPrefix("socket:"))
            // Anything else is the helper's own runtime (Dispatch's epoll, eventfd, timerfd), or its plugin's
            // library, held open because it was loaded through that descriptor (/proc/self/fd/N): never a
            // socket, a pipe, or another file.
            let own = "\(helper.manifest.bundlePath)/libFixture.so"
            for (fd, target) in targets where fd > 4 {
                #expect(target.hasPrefix("anon_inode:") || target == own, "fd \(fd) -> \(target)")
            }
        }
    }

    @Test func aHelperStartedAheadOfNeedServesTheFirstLaunchWithItsOptions() async throws {
        // A memory limit no other test uses, so no launch running in parallel takes this helper.
        let options = HelperOptions(memoryLimitMegabytes: 384)
        HelperPrestart.start(options: options)
        let waiting = try #require(HelperPrestart.waitingProcessID)
        #expect(ProcessTable.isRunning(waiting))
        // Another limit does not take it.
        let other = try launch(try bundle("beta"), name: "beta")
        #expect(other.helperProcessID != waiting)
        #expect(HelperPrestart.waitingProcessID == waiting)
        // The same options do, and it loads and serves the plugin it is told about only now.
        let connection = try launch(try bundle(), options: options)
        #expect(connection.helperProcessID == waiting)
        #expect(HelperPrestart.waitingProcessID == nil)
        let identity = PasswordCredentialIdentity(serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: "ok")
        let outcome = await connection.send(.credentialWithoutUserInteraction(.password(identity)), deadline: .seconds(3))
        guard case .completed(.password) = outcome else {
            Issue.record("the prestarted helper did not serve: \(outcome)")
            return
        }
    }

    @Test func theHelperOfAReleasedConnectionIsStopped() async throws {
        var connection: HelperConnection? = try launch(try bundle())
        let pid = try #require(connection?.helperProcessID)
        #expect(ProcessTable.isRunning(pid))
        connection = nil
        try await eventually { !ProcessTable.isRunning(pid) }
        #expect(!ProcessTable.isRunning(pid))
    }

    @Test func theHelperDiesWithTheHost() throws {
        // A real host process: `autofill providers sync` waiting for a plugin stuck in its entry
        // function. Killing autofill with SIGKILL (no cleanup at all) must take its helper along.
        // Synchronous on purpose: the host gives up on the stuck plugin after its load deadline (600 s at
        // most), and an async test under load can resume from an await later than that.
        let plugins = "\(folder.path)/plugins"
        try TestPlugins.fixture(in: plugins, name: "stuck", plist: TestPlugins.plist(id: "org.test.stuck", name: "Stuck"),
                                defines: ["FIXTURE_HANG_IN_ENTRY"])
        let config = "\(folder.path)/config.plist"
        try TestPlugins.write([
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.test.stuck"], "IdentityStoreDirectory": "stores",
            "ProviderIsolation": ["LoadDeadlineSeconds": 600],
        ], to: config)
        // Listed by hand: approve its files first, as a user would (else it is refused before it starts).
        let (approved, output) = try TestPlugins.run("\(Repository.root)/.build/debug/autofill", ["providers", "trust", "org.test.stuck", "--config", config],
                                                     environment: ["HOME": folder.path, "PATH": "/usr/bin:/bin"])
        #expect(approved == 0, "\(output)")
        let host = Process()
        host.executableURL = URL(fileURLWithPath: "\(Repository.root)/.build/debug/autofill")
        host.arguments = ["providers", "sync", "--config", config]
        host.environment = ["HOME": folder.path, "PATH": "/usr/bin:/bin"]
        host.standardOutput = FileHandle.nullDevice
        host.standardError = FileHandle.nullDevice
        try host.run()
        defer { if host.isRunning { kill(host.processIdentifier, SIGKILL); host.waitUntilExit() } }
        // The helper program itself: a child seen between fork and exec still runs autofill's image.
        var helper: Int32?
        waitUntil {
            helper = ProcessTable.children(of: host.processIdentifier).first { ProcessTable.name(of: $0) == "autofill-provid" }
            return helper != nil
        }
        let pid = try #require(helper, "no helper under the host; its children: \(ProcessTable.children(of: host.processIdentifier).map { "\($0) \(ProcessTable.name(of: $0) ?? "")" })")
        usleep(200_000)  // into the entry function
        #expect(ProcessTable.isRunning(pid))
        kill(host.processIdentifier, SIGKILL)
        host.waitUntilExit()
        waitUntil { !ProcessTable.isRunning(pid) }
        #expect(!ProcessTable.isRunning(pid), "the helper outlived its host")
    }

    @Test func aProviderRefusedBeforeLoadingNeverRunsInItsHelper() throws {
        let store = InMemoryIdentityStore(), faults = Faults()
        let error = try #require(throws: AutofillError.self) {
            try HelperConnection.launch(
                bundle: try bundle(), services: ProviderServices(store: store, settings: ["FixtureName": "alpha"], logger: log.logger),
                onFault: faults.record, beforeLoading: { () throws(AutofillError) in throw AutofillError(.refused, "not admitted") })
        }
        #expect(error.message == "not admitted")
        #expect(store.allIdentities.isEmpty, "the entry function (which saves an identity) never ran")
        #expect(faults.all.isEmpty)
        #expect(!log.contains("store_save"))
    }

    @Test func theHelperRefusesToRunByHand() throws {
        let (status, output) = try TestPlugins.run("\(Repository.root)/.build/debug/autofill-provider-helper", [])
        #expect(status == 64)
        #expect(output.contains("is started by autofill, not by hand"))
    }

    /// A stand-in helper (a Python script on the same descriptors) that says `hello` with `version`,
    /// then sends `after` (raw bytes) and waits for the host to close the socket.
    func fakeHelper(version: UInt32, after: [UInt8] = []) throws -> String {
        let script = "\(folder.path)/fake-helper-\(version)-\(after.count)"
        let hello = [UInt8](arrayLiteral: 9, 0, 0, 0, 1) + withUnsafeBytes(of: version.littleEndian, Array.init) + [1, 0, 0, 0]
        let bytes = (hello + after).map(String.init).joined(separator: ",")
        try """
            #!/usr/bin/python3
            import os
            os.write(3, bytes([\(bytes)]))
            while os.read(3, 65536): pass

            """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        return script
    }

    @Test func aHelperOfAnotherProtocolVersionIsRefusedAsAProblem() throws {
        let faults = Faults()
        let error = try #require(throws: AutofillError.self) {
            try launch(try bundle(), options: HelperOptions(executable: try fakeHelper(version: 1)), onFault: faults.record)
        }
        #expect(error.code == .invalidPlugin)
        #expect(error.problems.map(\.message) == ["the provider helper speaks protocol version 1 and C ABI version 1; this autofill speaks \(HelperProtocol.version) and 1"])
        #expect(error.problems.first?.fix.hasPrefix("reinstall autofill") == true)
        #expect(faults.all.isEmpty, "not the plugin's fault")
    }

    @Test func aHelperThatBreaksTheProtocolIsStoppedAndReported() throws {
        let faults = Faults()
        // After a correct hello: a frame claiming 2 GB.
        let error = try #require(throws: AutofillError.self) {
            try launch(try bundle(), options: HelperOptions(executable: try fakeHelper(version: HelperProtocol.version, after: [0, 0, 0, 0x80, 1])),
                       onFault: faults.record)
        }
        #expect(error.problems.first?.message.hasPrefix("the provider broke the helper protocol (a frame of 2147483648 bytes") == true,
                "\(error): \(error.problems)")
        #expect(faults.all.map(\.kind) == [.protocolViolation])
    }

    @Test func aMissingHelperExecutableSaysWhatToDo() throws {
        let error = try #require(throws: AutofillError.self) {
            try launch(try bundle(), options: HelperOptions(executable: "\(folder.path)/no-such-helper"))
        }
        #expect(error.code == .notFound)
        #expect(error.message.contains("is not an executable file"))
    }

    @Test func theMemoryCeilingAndNoCoreDumpsApplyToTheHelper() throws {
        let connection = try launch(try bundle(), options: HelperOptions(memoryLimitMegabytes: 300))
        let pid = try #require(connection.helperProcessID)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8).split(separator: "\n")
        let address = try #require(limits.first { $0.hasPrefix("Max address space") })
        let core = try #require(limits.first { $0.hasPrefix("Max core file size") })
        #expect(address.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2) == ["314572800", "314572800"])
        #expect(core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"])
    }

    // MARK: The helper's end is its process ending, and its process group ends with it

    @Test func aHelperLeadsAProcessGroupOfItsOwnAndWhatItForkedEndsWithIt() async throws {
        var connection: HelperConnection? = try launch(try faultBundle(), fault: "fork-complete")
        let helper = try #require(connection?.helperProcessID)
        #expect(Self.processGroup(of: helper) == helper)
        #expect(Self.session(of: helper) == helper, "a session of its own: no controlling terminal")
        #expect(Self.controllingTerminal(of: helper) == 0)
        guard case .completed = await connection!.send(Self.request, deadline: TestDeadline.answer) else {
            Issue.record("the fixture did not complete")
            return
        }
        let child = try forkedChild()
        #expect(ProcessTable.isRunning(child))
        #expect(Self.processGroup(of: child) == helper, "the plugin's child is in its helper's group")
        connection = nil
        try await eventually { !ProcessTable.isRunning(child) && !ProcessTable.isRunning(helper) }
        #expect(!ProcessTable.isRunning(helper))
        #expect(!ProcessTable.isRunning(child), "the child the plugin forked outlived its helper")
    }

    @Test func aForkThenCrashDuringARequestIsACrashEvenWhileTheForkedChildHoldsTheSocket() async throws {
        let faults = Faults()
        // When the fault was reported, timed on the host's reader thread (this test's own task may wait
        // for a thread of the shared pool, busy with other tests, before it resumes).
        let reported = Mutex<ContinuousClock.Instant?>(nil)
        let connection = try launch(try faultBundle(), fault: "fork-crash", onFault: { manifest, fault in
            reported.withLock { $0 = .now }
            faults.record(manifest, fault)
        })
        let start = ContinuousClock.now
        let outcome = await connection.send(Self.request, deadline: .seconds(20))
        #expect(outcome == .failed(ProviderFailure(
            .transport, "Alpha crashed (SIGSEGV) while answering provideCredentialWithoutUserInteraction(for:)")))
        let took = try #require(reported.withLock { $0 }) - start
        #expect(took < .seconds(10), "the host waited for the child, not for the helper")
        #expect(faults.all.map(\.kind) == [.crashed(signal: SIGSEGV)])
        let child = try forkedChild()
        try await eventually { !ProcessTable.isRunning(child) }
        #expect(!ProcessTable.isRunning(child), "the crashed helper's child lives on")
    }

    @Test func aForkThenCrashWhileLoadingIsReportedAtOnceNotAfterTheChildEnds() throws {
        let faults = Faults()
        // Compiled before the clock starts: under a loaded CI machine, cc alone can take seconds.
        let bundle = try faultBundle(defines: ["FIXTURE_FORK_THEN_CRASH_AT_LOAD"])
        let start = ContinuousClock.now
        let error = try #require(throws: AutofillError.self) {
            try launch(bundle, fault: "",
                       options: HelperOptions(loadDeadline: .seconds(50)), onFault: faults.record)
        }
        #expect(ContinuousClock.now - start < .seconds(10), "the host waited for the forked child (an hour) or the load deadline (50 s)")
        #expect(error.problems.map(\.message)
            == ["the provider crashed (SIGSEGV) while its library libFixture.so was being loaded (in its constructors)"])
        #expect(faults.all.map(\.kind) == [.crashed(signal: SIGSEGV)])
    }
}
