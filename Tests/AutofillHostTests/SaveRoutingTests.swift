import AutofillCore
import AutofillHost
import AutofillMatching
import Foundation
import Testing

/// Where saves, generated passwords and reports go, through real C plugins: the provider holding
/// the login, else the first writable one in the user's order; nothing is dropped without a word.
struct SaveRoutingTests {
    let folder: TemporaryFolder
    let log = LogCapture()
    let notes = Notes()
    static let writable = ["ProvidesPasswords": true, "SupportsSavePasswordCredentials": true,
                           "SupportsGeneratePasswordCredentials": true, "SupportsCredentialUpdate": true]

    /// Two writable fixtures (first, second) and a read-only one (reader), all the same C fixture.
    init() throws {
        folder = try TemporaryFolder()
        for (name, capabilities) in [("first", Self.writable), ("second", Self.writable), ("reader", ["ProvidesPasswords": true])] {
            try TestPlugins.fixture(in: "\(folder.path)/plugins", name: name,
                                    plist: TestPlugins.plist(id: "org.test.\(name)", name: name.capitalized, capabilities: capabilities),
                                    defines: ["FIXTURE_IOS26"])
        }
    }

    func router(_ enabled: [String]) throws -> (router: FillRouter, setup: ProviderSetup) {
        let config = "\(folder.path)/config-\(UUID().uuidString).plist"
        try TestPlugins.write([
            "PluginSearchPaths": ["plugins"], "EnabledProviders": enabled.map { "org.test.\($0)" },
            "IdentityStoreDirectory": "stores-\(UUID().uuidString)",
            "ProviderSettings": Dictionary(uniqueKeysWithValues: enabled.map { ("org.test.\($0)", ["FixtureName": $0]) }),
            "ProviderIsolation": ["Default": ProviderIsolation.inProcess.rawValue],
        ], to: config)
        let file = try ConfigurationFile.locate(option: config, environment: ["HOME": folder.path])
        let setup = try ProviderSetup.approving(file, records: "\(folder.path)/records", logger: log.logger)
        let router = FillRouter(setup: setup, ui: UnavailableUserInterface(reason: "no UI in this test"),
                                authenticator: NoUserAuthentication(), deadline: .seconds(30),
                                notify: { [notes] note in notes.append(note) })
        return (router, setup)
    }

    func holds(_ setup: ProviderSetup, _ provider: String, _ user: String, at site: String) throws {
        try #require(try setup.store(for: "org.test.\(provider)")).save([
            .password(.init(serviceIdentifier: .init(identifier: site, type: .domain), user: user))])
    }

    func save(_ router: FillRouter, _ user: String, at site: String) async throws -> FillResult {
        try await router.savePassword(PasswordCredential(user: user, password: Secret("s3cret-not-logged")),
                                      for: try ServiceQuery(site), providerID: nil)
    }

    @Test func aSaveReachesTheProviderThatHoldsTheLoginEvenWhenAnotherWritableOneComesFirst() async throws {
        let (router, setup) = try router(["first", "second"])
        try holds(setup, "second", "alice", at: "example.com")
        #expect(try await save(router, "alice", at: "https://example.com/login").providerID == "org.test.second")
        // Another user at the same site is a new login: the first writable provider in the user's order.
        #expect(try await save(router, "bob", at: "example.com").providerID == "org.test.first")
        #expect(notes.all.isEmpty)
    }

    @Test func aLoginHeldOnlyByAReadOnlyProviderGoesToTheFirstWritableOneAndTheUserIsTold() async throws {
        let (router, setup) = try router(["reader", "second", "first"])
        try holds(setup, "reader", "alice", at: "example.com")
        #expect(try await save(router, "alice", at: "example.com").providerID == "org.test.second", "the user's order, not the bundles'")
        let told = notes.all
        #expect(told == ["Reader holds alice's login at example.com but cannot write it (no SupportsSavePasswordCredentials); Second gets it."])
        #expect(!told.joined().contains("s3cret"))
    }

    @Test func withNoWritableProviderTheTargetIsRefusedBeforeAnythingIsSent() async throws {
        let (router, setup) = try router(["reader"])
        try holds(setup, "reader", "alice", at: "example.com")
        do {
            _ = try router.saveTarget(for: try ServiceQuery("example.com"), user: "alice", providerID: nil)
            Issue.record("a target was found among read-only providers")
        } catch let failure as FillFailure {
            #expect("\(failure)".contains("No enabled provider declares SupportsSavePasswordCredentials; nothing was saved."))
        }
        await #expect(throws: FillFailure.self) { try await save(router, "alice", at: "example.com") }
        #expect(!log.contains("save received"))
    }

    @Test func aNamedProviderMustBeWritableAndTheErrorSuggestsTheNearestId() async throws {
        let (router, _) = try router(["reader", "first"])
        do {
            _ = try router.saveTarget(for: try ServiceQuery("example.com"), user: "alice", providerID: "org.test.firts")
            Issue.record("an unknown provider was accepted")
        } catch let error as AutofillError {
            #expect(error.code == .usage)
            #expect("\(error)".contains("org.test.first"), "\(error)")
        }
        #expect(throws: AutofillError.self) { try router.saveTarget(for: try ServiceQuery("example.com"), user: "alice", providerID: "org.test.reader") }
    }

    @Test func aGeneratedPasswordComesFromTheProviderHoldingTheUsersLoginElseTheFirstThatGenerates() async throws {
        let (router, setup) = try router(["reader", "first", "second"])
        try holds(setup, "second", "alice", at: "example.com")
        let held = try await router.generatePassword(for: try ServiceQuery("example.com"), rules: nil, user: "alice", providerID: nil)
        #expect(held.providerID == "org.test.second")
        let anyone = try await router.generatePassword(for: try ServiceQuery("example.com"), rules: nil, providerID: nil)
        #expect(anyone.providerID == "org.test.first", "no list to choose from: the first in the user's order")
    }

    @Test func aReportReachesEveryWritableHolderAndNoOtherProvider() async throws {
        let (router, setup) = try router(["first", "reader", "second"])
        try holds(setup, "reader", "alice", at: "example.com")
        try holds(setup, "second", "alice", at: "example.com")
        let handled = try await router.reportCredentialUpdate(.unusedPassword(domain: "example.com", user: "alice"), providerID: nil)
        #expect(handled == ["Second"])
        #expect(log.all.filter { $0.contains("report received") }.count == 1)
    }
}

