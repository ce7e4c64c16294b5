import AutofillCore
import AutofillHost
import AutofillMatching
import Foundation
import Testing

/// The iOS 26 entry points through real C plugins, in this process and in helper processes: only a
/// provider that declares a capability receives its requests, a provider built against the earlier
/// header still loads, and the host checks what comes back.
struct CredentialUpdateRoutingTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
        let all = ["ProvidesPasswords": true, "SupportsSavePasswordCredentials": true,
                   "SupportsGeneratePasswordCredentials": true, "SupportsCredentialUpdate": true]
        try TestPlugins.fixture(in: "\(folder.path)/plugins", name: "saver",
                                plist: TestPlugins.plist(id: "org.test.saver", name: "Saver", capabilities: all),
                                defines: ["FIXTURE_IOS26"])
        // Implements the entry points but does not declare them.
        try TestPlugins.fixture(in: "\(folder.path)/plugins", name: "sneaky",
                                plist: TestPlugins.plist(id: "org.test.sneaky", name: "Sneaky"), defines: ["FIXTURE_IOS26"])
        // Built against the earlier header: its table ends before the appended entries.
        let oldTable = "FIXTURE_TABLE_SIZE=offsetof(af_provider,prepare_interface_for_save_password)"
        try TestPlugins.fixture(in: "\(folder.path)/plugins", name: "old",
                                plist: TestPlugins.plist(id: "org.test.old", name: "Old"), defines: [oldTable])
        try TestPlugins.fixture(in: "\(folder.path)/plugins", name: "oldclaims",
                                plist: TestPlugins.plist(id: "org.test.oldclaims", name: "OldClaims", capabilities: all),
                                defines: [oldTable])
    }

    func router(_ enabled: [String], _ isolation: ProviderIsolation, settings: [String: [String: String]] = [:]) throws
        -> (router: FillRouter, setup: ProviderSetup)
    {
        let config = "\(folder.path)/config-\(UUID().uuidString).plist"
        var providerSettings: [String: [String: String]] = [:]
        for id in enabled { providerSettings["org.test.\(id)"] = ["FixtureName": id].merging(settings[id] ?? [:]) { $1 } }
        try TestPlugins.write([
            "PluginSearchPaths": ["plugins"], "EnabledProviders": enabled.map { "org.test.\($0)" },
            "IdentityStoreDirectory": "stores-\(UUID().uuidString)", "ProviderSettings": providerSettings,
            "ProviderIsolation": ["Default": isolation.rawValue],
        ], to: config)
        let file = try ConfigurationFile.locate(option: config, environment: ["HOME": folder.path])
        let setup = try ProviderSetup.approving(file, records: "\(folder.path)/records", logger: log.logger)
        let ui = UnavailableUserInterface(reason: "no UI in this test")
        return (FillRouter(setup: setup, ui: ui, authenticator: NoUserAuthentication(), deadline: .seconds(3), notify: { _ in }), setup)
    }

    /// Saves a password identity for `user` at `site` in `provider`'s store.
    func holds(_ setup: ProviderSetup, _ provider: String, _ user: String, at site: String) throws {
        try #require(try setup.store(for: "org.test.\(provider)")).save([
            .password(.init(serviceIdentifier: .init(identifier: site, type: .domain), user: user))])
    }

    static let secret = "hunter2-do-not-log"

    @Test(arguments: Isolated.modes)
    func aSaveGoesToTheProviderThatDeclaredItAndItsPasswordToNoLog(isolation: ProviderIsolation) async throws {
        let (router, _) = try router(["sneaky", "saver"], isolation)
        let result = try await router.savePassword(PasswordCredential(user: "alice", password: Secret(Self.secret)),
                                                   for: try ServiceQuery("example.com"), providerID: nil)
        #expect(result.providerID == "org.test.saver")
        #expect(log.contains("save received: alice at example.com (\(Self.secret.utf8.count)-byte password)"))
        #expect(log.all.filter { $0.contains("save received") }.count == 1)
        #expect(!log.all.contains { $0.contains(Self.secret) })
    }

    @Test(arguments: Isolated.modes)
    func aProviderThatDidNotDeclareSavingNeverReceivesASaveEvenWhenNamed(isolation: ProviderIsolation) async throws {
        let (router, setup) = try router(["sneaky", "saver"], isolation)
        try holds(setup, "sneaky", "ok", at: "sneaky.test")
        await #expect(throws: AutofillError.self) {
            try await router.savePassword(PasswordCredential(user: "alice", password: Secret(Self.secret)),
                                          for: try ServiceQuery("example.com"), providerID: "org.test.sneaky")
        }
        await #expect(throws: (any Error).self) {
            try await router.reportCredentialUpdate(.unusedPassword(domain: "sneaky.test", user: "ok"), providerID: nil)
        }
        #expect(!log.contains("save received"))
        #expect(!log.contains("report received"))
    }

    @Test(arguments: Isolated.modes)
    func aConnectionRefusesAnUndeclaredSaveBeforeItReachesTheProvider(isolation: ProviderIsolation) async throws {
        let connection = try Isolated.load(
            "\(folder.path)/plugins/sneaky.afprovider",
            services: ProviderServices(store: InMemoryIdentityStore(), settings: ["FixtureName": "sneaky"], logger: log.logger),
            isolation: isolation)
        #expect(connection.entryPoints.contains(.prepareInterfaceForSavePassword), "the table has it")
        let outcome = await connection.send(.savePassword(SavePasswordRequest(
            serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain),
            credential: PasswordCredential(user: "alice", password: Secret(Self.secret)))), deadline: .seconds(3))
        #expect(outcome == .failed(ProviderFailure(.notImplemented, "Sneaky does not declare SupportsSavePasswordCredentials; prepareInterface(for: ASSavePasswordRequest) refused")))
        #expect(!log.contains("save received"))
    }

    @Test(arguments: Isolated.modes)
    func aProviderBuiltAgainstTheEarlierHeaderStillLoadsAndFills(isolation: ProviderIsolation) async throws {
        let (router, setup) = try router(["old"], isolation)
        try holds(setup, "old", "ok", at: "old.test")
        let query = try ServiceQuery("old.test")
        let candidates = try SuggestionEngine(catalog: setup.catalog, directory: setup.stores).suggestions(for: query, kinds: [.password])
        let result = try await router.fill(candidates, for: query, pick: .user("ok"), fallback: false)
        #expect(result.credential == .password(PasswordCredential(user: "ok", password: Secret("pw-old"))))
        await #expect(throws: (any Error).self) {
            try await router.savePassword(PasswordCredential(user: "ok", password: Secret("x")), for: query, providerID: nil)
        }
    }

    @Test(arguments: Isolated.modes)
    func aProviderThatDeclaresTheNewKeysWithAnEarlierTableIsRefused(isolation: ProviderIsolation) async throws {
        let (router, _) = try router(["oldclaims"], isolation)
        do {
            _ = try await router.savePassword(PasswordCredential(user: "ok", password: Secret("x")),
                                              for: try ServiceQuery("example.com"), providerID: nil)
            Issue.record("a provider whose table lacks a declared entry point was run")
        } catch {
            #expect("\(error)".contains("prepare_interface_for_save_password"))
        }
    }

    @Test(arguments: Isolated.modes)
    func aGeneratedPasswordThatBreaksTheRulesIsRefusedWithoutQuotingIt(isolation: ProviderIsolation) async throws {
        let hostile = "zz-Hostile-9"
        let (router, _) = try router(["saver"], isolation, settings: ["saver": ["FixtureGenerated": hostile]])
        do {
            _ = try await router.generatePassword(for: try ServiceQuery("example.com"), rules: "minlength: 20; required: digit",
                                                  providerID: nil)
            Issue.record("a password that breaks the rules was accepted")
        } catch {
            #expect("\(error)".contains("breaks the site's rules"))
            #expect("\(error)".contains("minlength is 20"))
            #expect(!"\(error)".contains(hostile))
        }
        #expect(!log.all.contains { $0.contains(hostile) })
        let ok = try await router.generatePassword(for: try ServiceQuery("example.com"), rules: "maxlength: 12; required: upper; allowed: ascii-printable",
                                                   providerID: nil)
        #expect(ok.credential == .generatedPassword(Secret(hostile)))
    }

    @Test(arguments: Isolated.modes)
    func aReportGoesOnlyToTheProvidersThatHoldTheLogin(isolation: ProviderIsolation) async throws {
        let (router, setup) = try router(["saver"], isolation)
        try holds(setup, "saver", "alice", at: "example.com")
        let handled = try await router.reportCredentialUpdate(.unusedPassword(domain: "example.com", user: "alice"), providerID: nil)
        #expect(handled == ["Saver"])
        #expect(log.contains("report received: kind 1 for example.com"))
        await #expect(throws: FillFailure.self) {
            try await router.reportCredentialUpdate(.unusedPassword(domain: "example.com", user: "bob"), providerID: nil)
        }
    }
}
