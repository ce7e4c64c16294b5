import AutofillCore
import AutofillHost
import AutofillMatching
import Foundation
import Synchronization
import Testing

/// The fault fixtures: a provider that crashes, aborts, exits, hangs, never answers, allocates
/// without bound or misbehaves while loading, always in a helper process (in this process, most
/// would end the test run). Each test puts the faulty provider (Alpha) first and a good one (Beta)
/// second, fills with fallback, and shows the host kept serving: Beta's credential arrives, the
/// fault is reported once, and this process is alive to check it.
struct ProviderFaultTests {
    let folder: TemporaryFolder
    let log = LogCapture()
    let faults = Faults()
    let query: ServiceQuery

    init() throws {
        folder = try TemporaryFolder()
        query = try ServiceQuery("https://example.com/login")
    }

    /// Alpha (built with `alphaDefines`) and Beta (the plain fixture), both enabled, in helper processes.
    /// With `alphaFault`, Alpha's entry is `fixture_faults_entry` with that `FixtureFault`.
    func setup(alphaDefines: [String] = [], alphaFault: String? = nil, extra: [String: Any] = [:]) throws -> ProviderSetup {
        for (name, defines) in [("alpha", alphaDefines), ("beta", [])] {
            let entry = name == "alpha" && alphaFault != nil ? "fixture_faults_entry" : "fixture_provider_entry"
            try TestPlugins.fixture(
                in: "\(folder.path)/plugins", name: name,
                plist: TestPlugins.plist(id: "org.test.\(name)", name: name.capitalized, entry: entry), defines: defines)
        }
        let config = "\(folder.path)/config.plist"
        try TestPlugins.write([
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.test.alpha", "org.test.beta"],
            "IdentityStoreDirectory": "stores", "NoUIDeadlineSeconds": 0.5,
            "ProviderSettings": ["org.test.alpha": ["FixtureName": "alpha", "FixtureFault": alphaFault ?? ""], "org.test.beta": ["FixtureName": "beta"]],
            "ProviderIsolation": ["MemoryLimitMB": 128, "LoadDeadlineSeconds": 2],
        ].merging(extra) { $1 }, to: config)
        let file = try ConfigurationFile.locate(option: config, environment: ["HOME": folder.path])
        var setup = try ProviderSetup.approving(file, records: "\(folder.path)/records", logger: log.logger)
        setup.onProviderFault = faults.record
        return setup
    }

    /// Alpha's identity `alphaUser` (ranked first) and Beta's "ok", at example.com.
    func identities(_ setup: ProviderSetup, alphaUser: String) throws {
        for (provider, user, rank) in [("alpha", alphaUser, 10), ("beta", "ok", 5)] {
            try #require(try setup.store(for: "org.test.\(provider)")).save([
                .password(.init(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: user, rank: rank))])
        }
    }

    /// A router with no UI and no host authentication, telling `notices`.
    func router(_ setup: ProviderSetup, notices: Notices = Notices(), deadline: Duration = .milliseconds(500)) -> FillRouter {
        FillRouter(setup: setup, ui: UnavailableUserInterface(), authenticator: NoUserAuthentication(),
                   deadline: deadline, notify: notices.add)
    }

    /// Fills example.com with fallback: the first suggestion (Alpha's), then the next.
    func fill(_ setup: ProviderSetup, router: FillRouter? = nil, notices: Notices = Notices()) async throws -> FillResult {
        let candidates = try SuggestionEngine(catalog: setup.catalog, directory: setup.stores).suggestions(for: query, kinds: [.password])
        return try await (router ?? self.router(setup, notices: notices)).fill(candidates, for: query, pick: .position(1), fallback: true)
    }

    static let beta = Credential.password(PasswordCredential(user: "ok", password: Secret("pw-beta")))

    /// A fault during a request, what the user is told, and the kind reported.
    struct RequestFault: Sendable, CustomTestStringConvertible {
        let user: String
        let notice: String
        let kind: ProviderFault.Kind
        /// The no-UI deadline: generous where the fault takes time of its own (filling 128 MB on a busy machine).
        var deadline: Duration = .milliseconds(500)
        var testDescription: String { user }
    }

    static let requestFaults = [
        RequestFault(user: "segv", notice: "Alpha crashed (SIGSEGV) while answering provideCredentialWithoutUserInteraction(for:)",
                     kind: .crashed(signal: SIGSEGV)),
        RequestFault(user: "abort", notice: "Alpha crashed (SIGABRT) while answering provideCredentialWithoutUserInteraction(for:)",
                     kind: .crashed(signal: SIGABRT)),
        RequestFault(user: "exit:3", notice: "Alpha exited (status 3) while answering provideCredentialWithoutUserInteraction(for:)",
                     kind: .exited(status: 3)),
        RequestFault(user: "hang", notice: "Alpha did not answer within 0.5 s", kind: .killedAtDeadline),
        RequestFault(user: "never", notice: "Alpha did not answer within 0.5 s", kind: .killedAtDeadline),
        RequestFault(user: "alloc", notice: "Alpha ran out of its 128 MB memory limit while answering provideCredentialWithoutUserInteraction(for:)",
                     kind: .exceededMemory(limitBytes: 128 << 20), deadline: .seconds(20)),
    ]

    @Test(arguments: requestFaults)
    func aFaultDuringARequestFallsBackToTheNextProviderAndTheNextRequestGetsAFreshHelper(fault: RequestFault) async throws {
        let setup = try setup()
        try identities(setup, alphaUser: fault.user)
        let notices = Notices()
        let router = router(setup, notices: notices, deadline: fault.deadline)
        let result = try await fill(setup, router: router)
        #expect(result.credential == Self.beta)
        #expect(notices.all.first?.hasPrefix("\(fault.notice). Trying the next suggestion: ok") == true, "\(notices.all)")
        try await eventually { faults.all.count == 1 }
        #expect(faults.all.map(\.kind) == [fault.kind])
        #expect(faults.all.first?.message.hasPrefix("Alpha ") == true)

        // The same router's Alpha serves again, from a new helper: the fault ended a helper, not the provider.
        try #require(try setup.store(for: "org.test.alpha")).save([
            .password(.init(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: "ok", rank: 20))])
        let again = try await fill(setup, router: router)
        #expect(again.credential == .password(PasswordCredential(user: "ok", password: Secret("pw-alpha"))))
        #expect(faults.all.count == 1)
    }

    /// A fault while loading, the message, and the kind reported.
    struct LoadFault: Sendable, CustomTestStringConvertible {
        let define: String
        let message: String
        let kind: ProviderFault.Kind
        var testDescription: String { define }
    }

    static let loadFaults = [
        LoadFault(define: "FIXTURE_CRASH_IN_CONSTRUCTOR",
                  message: "the provider crashed (SIGSEGV) while its library libFixture.so was being loaded (in its constructors)",
                  kind: .crashed(signal: SIGSEGV)),
        LoadFault(define: "FIXTURE_CRASH_IN_ENTRY", message: "the provider crashed (SIGSEGV) in its entry function fixture_provider_entry",
                  kind: .crashed(signal: SIGSEGV)),
        LoadFault(define: "FIXTURE_HANG_IN_ENTRY",
                  message: "the provider did not finish loading within 2 s (stuck in its entry function fixture_provider_entry) and was stopped",
                  kind: .killedAtDeadline),
    ]

    @Test(arguments: loadFaults)
    func aFaultWhileLoadingIsReportedAsAPluginProblemAndTheNextProviderServes(fault: LoadFault) async throws {
        let setup = try setup(alphaDefines: [fault.define])
        try identities(setup, alphaUser: "ok")
        let notices = Notices()
        let result = try await fill(setup, notices: notices)
        #expect(result.credential == Self.beta)
        #expect(notices.all.first?.contains("Alpha could not be loaded: the plugin org.test.alpha cannot be loaded:") == true, "\(notices.all)")
        #expect(notices.all.first?.contains(fault.message) == true, "\(notices.all)")
        #expect(faults.all.map(\.kind) == [fault.kind])

        // `plugin validate` loads through a helper too, and reports the same problem.
        let manifest = try setup.catalog.manifest(for: "org.test.alpha")
        let validation = HelperConnection.validate(
            bundle: manifest.bundlePath, services: ProviderServices(store: InMemoryIdentityStore(), logger: log.logger),
            options: HelperOptions(loadDeadline: .seconds(2)))
        #expect(!validation.isValid)
        #expect(validation.problems.map(\.message) == [fault.message])
        #expect(validation.problems.map(\.code) == [.loadFailed])
    }

    @Test func whatAPluginPrintsGoesToTheLogNeverToTheHostsOutput() async throws {
        let setup = try setup(alphaDefines: ["FIXTURE_PRINT_AT_LOAD"])
        try identities(setup, alphaUser: "print")
        let result = try await fill(setup)
        #expect(result.credential == .password(PasswordCredential(user: "ok", password: Secret("pw-alpha"))))
        try await eventually { log.contains("and a last line without newline") }
        #expect(log.contains("notice: the provider wrote to stdout: fixture prints to stdout at load"))
        #expect(log.contains("warning: the provider wrote to stderr: fixture prints to stderr at load"))
        #expect(log.contains("notice: the provider wrote to stdout: fixture alpha prints to stdout"))
        #expect(log.contains("warning: the provider wrote to stderr: fixture alpha prints to stderr"))
        #expect(faults.all.isEmpty)
    }

    @Test func oversizedAndTooManyValuesAreRefusedWithoutHarm() async throws {
        // The default ceiling: the fixture builds its million identities (≈ 100 MB) before it calls.
        let setup = try setup(extra: ["ProviderIsolation": ["LoadDeadlineSeconds": 2]])
        try identities(setup, alphaUser: "bigstring")
        let notices = Notices()
        #expect(try await fill(setup, notices: notices).credential == Self.beta)
        #expect(notices.all.first?.hasPrefix("Alpha sent a malformed answer to provideCredentialWithoutUserInteraction(for:): password: 65537 bytes, over the limit of 65536") == true, "\(notices.all)")
        #expect(log.contains("big completion status -2"))

        try #require(try setup.store(for: "org.test.alpha")).wipe()
        try identities(setup, alphaUser: "bigids")
        #expect(try await fill(setup).credential == .password(PasswordCredential(user: "ok", password: Secret("pw-alpha"))))
        #expect(log.contains("store_save of too many status -2"))
        #expect(log.contains("identities: 1000001 elements, over the limit of 1000000"))
        #expect(faults.all.isEmpty)
    }

    /// Also in process, as the peer: 100,000 identities in one `store_replace` at load.
    @Test(arguments: Isolated.modes)
    func aHugeNumberOfIdentitiesArrivesThroughTheHelper(isolation: ProviderIsolation) async throws {
        let setup = try setup(alphaDefines: ["FIXTURE_IDENTITIES=100000"], extra: [
            "ProviderIsolation": ["Default": isolation.rawValue, "LoadDeadlineSeconds": 60]])
        let synced = try setup.sync(["org.test.alpha"])
        #expect(try synced.first?.result.get() == 100_000)
        #expect(log.contains("store_replace of many status 0"))
        let engine = SuggestionEngine(catalog: setup.catalog, directory: setup.stores)
        let suggestions = try engine.suggestions(for: try ServiceQuery("alpha-99999.test"), kinds: [.password])
        #expect(suggestions.map(\.identity.displayUser) == ["u99999"])
    }

    @Test func aProviderCannotReachAnotherProvidersRequestsOrStore() async throws {
        let setup = try setup()
        try identities(setup, alphaUser: "forge")
        let alphaStore = try #require(try setup.store(for: "org.test.alpha"))
        let betaStore = try #require(try setup.store(for: "org.test.beta"))
        let services = { (store: any CredentialIdentityStore, name: String) in
            ProviderServices(store: store, settings: ["FixtureName": name], logger: self.log.logger)
        }
        let alpha = try HelperConnection.launch(
            manifest: try setup.catalog.manifest(for: "org.test.alpha"), services: services(alphaStore, "alpha"))
        let beta = try HelperConnection.launch(
            manifest: try setup.catalog.manifest(for: "org.test.beta"), services: services(betaStore, "beta"))

        // Beta holds a request; Alpha completes every request id from 1 to 64 but its own.
        let identity = PasswordCredentialIdentity(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: "never")
        async let pending = beta.send(.credentialWithoutUserInteraction(.password(identity)), deadline: .seconds(2))
        try await eventually { beta.session.pendingCount == 1 }
        let forged = PasswordCredentialIdentity(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: "forge")
        #expect(await alpha.send(.credentialWithoutUserInteraction(.password(forged)), deadline: .seconds(3))
            == .completed(.password(PasswordCredential(user: "ok", password: Secret("pw-alpha")))))
        #expect(log.contains("forged accepted 0"))
        #expect(await pending == .failed(ProviderFailure(.timedOut, "Beta did not answer within 2 s")), "Beta's request was never completed by Alpha")

        // Alpha's store writes reach its own store only, whatever they name: there is no argument
        // that could name another store, and its helper holds no store at all.
        #expect(try alphaStore.count() == 2 && betaStore.count() == 2)
        let helper = try #require(alpha.helperProcessID)
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(helper)/fd").compactMap { fd in
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(helper)/fd/\(fd)")
        }
        #expect(!open.contains { $0.contains(".sqlite") || $0.contains("/stores") }, "\(open)")
    }

    @Test func aBurstOfCrashesNeverTakesTheHostDown() async throws {
        let setup = try setup()
        try identities(setup, alphaUser: "segv")
        for _ in 0..<5 {
            #expect(try await fill(setup).credential == Self.beta)
        }
        try await eventually { faults.all.count == 5 }
        #expect(faults.all.count == 5)
    }

    /// Faults that end a request (a crash, an exit, a kill at the deadline), each recorded slowly.
    static let recordedFaults = ["segv", "exit:3", "never"]

    @Test(arguments: recordedFaults)
    func aFaultIsRecordedBeforeTheRequestThatMetItEnds(user: String) async throws {
        // Recording takes 300 ms (a slow disk, a ledger another process holds locked): the request's
        // outcome still comes only after it, so a command that prints and exits has recorded it.
        let faults = Faults(recordingTime: .milliseconds(300))
        let setup = try setup()
        let connection = try HelperConnection.launch(
            manifest: try setup.catalog.manifest(for: "org.test.alpha"),
            services: ProviderServices(store: InMemoryIdentityStore(), settings: ["FixtureName": "alpha"], logger: log.logger),
            onFault: faults.record)
        let identity = PasswordCredentialIdentity(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: user)
        guard case .failed = await connection.send(.credentialWithoutUserInteraction(.password(identity)), deadline: .milliseconds(500)) else {
            Issue.record("the request did not fail")
            return
        }
        #expect(faults.all.count == 1, "the request ended before its fault was recorded")
    }

    @Test func aForgedFaultRecordAndAStuffedFaultSocketDoNotChangeWhatTheUserIsTold() async throws {
        let setup = try setup(alphaFault: "forge-fault")
        try identities(setup, alphaUser: "ok")
        let notices = Notices()
        #expect(try await fill(setup, notices: notices).credential == Self.beta)
        #expect(notices.all.first?.hasPrefix(
            "Alpha crashed (SIGSEGV) while answering provideCredentialWithoutUserInteraction(for:). Trying the next suggestion") == true,
                "\(notices.all)")
        #expect(faults.all.map(\.kind) == [.crashed(signal: SIGSEGV)])
    }

    @Test func repeatedCrashesQuarantineTheProviderAndTheOthersStillServe() async throws {
        // A day's window: under load this test's task can wait many minutes between its two fills.
        var setup = try setup(extra: ["Quarantine": ["FaultCount": 2, "WindowMinutes": 1440]])
        setup.onProviderFault = nil  // the default: the fault ledger
        let notes = Notices()
        setup.notify = notes.add
        try identities(setup, alphaUser: "segv")
        for _ in 0..<2 {
            #expect(try await fill(setup).credential == Self.beta)
        }
        #expect(notes.all.contains { $0.hasPrefix("Alpha (org.test.alpha) is quarantined: it crashed or was killed 2 times") }, "\(notes.all)")
        let notices = Notices()
        #expect(try await fill(setup, notices: notices).credential == Self.beta)
        #expect(notices.all.first?.contains("Alpha (org.test.alpha) is quarantined since") == true, "\(notices.all)")
        #expect(setup.trustState(of: try setup.catalog.manifest(for: "org.test.alpha")).name == "quarantined")
    }
}

/// Faults the setup reported, collected.
final class Faults: Sendable {
    private let faults = Mutex<[ProviderFault]>([])
    /// How long recording one takes (a slow disk, a ledger locked by another process).
    let recordingTime: Duration

    init(recordingTime: Duration = .zero) {
        self.recordingTime = recordingTime
    }

    var all: [ProviderFault] { faults.withLock { $0 } }
    var record: @Sendable (PluginManifest, ProviderFault) -> Void {
        { _, fault in
            if self.recordingTime > .zero { usleep(UInt32(self.recordingTime.components.seconds * 1_000_000 + self.recordingTime.components.attoseconds / 1_000_000_000_000)) }
            self.faults.withLock { $0.append(fault) }
        }
    }
}
