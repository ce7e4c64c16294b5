import AutofillCore
import AutofillHost
import AutofillMatching
import AutofillStore
import Foundation
import Synchronization
import Testing

/// Every branch of the router, through real C plugins (the fixture provider, two copies), with the
/// providers in this process and in helper processes (the configuration's `ProviderIsolation`).
struct FillRouterTests {
    let folder: TemporaryFolder
    /// The same providers, stores and settings, run either way.
    let setups: [ProviderIsolation: ProviderSetup]
    let log = LogCapture()
    let query: ServiceQuery

    /// Two enabled fixture providers, Alpha and Beta, with identities whose user names choose the
    /// fixture's behaviour (see Fixtures/fixture_provider.c).
    init() throws {
        folder = try TemporaryFolder()
        for name in ["alpha", "beta"] {
            try TestPlugins.fixture(
                in: "\(folder.path)/plugins", name: name,
                plist: TestPlugins.plist(id: "org.test.\(name)", name: name.capitalized, capabilities: [
                    "ProvidesPasswords": true, "ProvidesTextToInsert": true, "ShowsConfigurationUI": true,
                ]))
        }
        var setups: [ProviderIsolation: ProviderSetup] = [:]
        for isolation in Isolated.modes {
            let config = "\(folder.path)/config-\(isolation).plist"
            try TestPlugins.write([
                "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.test.alpha", "org.test.beta"],
                "IdentityStoreDirectory": "stores", "NoUIDeadlineSeconds": 0.3,
                "ProviderSettings": ["org.test.alpha": ["FixtureName": "alpha"], "org.test.beta": ["FixtureName": "beta"]],
                "ProviderIsolation": ["Default": isolation.rawValue],
            ], to: config)
            let file = try ConfigurationFile.locate(option: config, environment: ["HOME": folder.path])
            setups[isolation] = try ProviderSetup.approving(file, records: "\(folder.path)/records", logger: log.logger)
        }
        self.setups = setups
        query = try ServiceQuery("https://example.com/login")
    }

    /// The setup stores and suggestions are read through (the same in both).
    var setup: ProviderSetup { setups[.inProcess]! }

    /// Stores these (provider, user, rank) identities at example.com.
    func identities(_ rows: [(String, String, Int)]) throws {
        for (provider, user, rank) in rows {
            try #require(try setup.store(for: "org.test.\(provider)")).save([
                .password(.init(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: user, rank: rank))])
        }
    }

    func candidates() throws -> [Suggestion] {
        try SuggestionEngine(catalog: setup.catalog, directory: setup.stores).suggestions(for: query, kinds: [.password])
    }

    func script(_ lines: String) throws -> ScriptedUserInterface {
        let path = "\(folder.path)/script-\(UUID().uuidString).txt"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: path))
        return try ScriptedUserInterface(path: path)
    }

    func router(_ isolation: ProviderIsolation, ui: any ProviderUserInterface, authenticator: (any UserAuthenticator)? = nil) -> FillRouter {
        FillRouter(setup: setups[isolation]!, ui: ui, authenticator: authenticator ?? ConfirmUserAuthentication(ui: ui),
                   deadline: .milliseconds(300), notify: { _ in })
    }

    static func password(_ user: String, _ password: String) -> Credential {
        .password(PasswordCredential(user: user, password: Secret(password)))
    }

    @Test(arguments: Isolated.modes)
    func aNoUIAnswerIsFilledAfterTheHostConfirms(isolation: ProviderIsolation) async throws {
        try identities([("alpha", "ok", 0)])
        let ui = try script("confirm yes\n")
        let router = router(isolation, ui: ui)
        let result = try await router.fill(try candidates(), for: query, pick: .user("ok"), fallback: false)
        #expect(result.credential == Self.password("ok", "pw-alpha"))
        #expect(result.authentication == UserAuthentication(method: .confirm, userPresent: true, userVerified: false))
        #expect(router.trace.all.map(\.entryPoint) == ["provideCredentialWithoutUserInteraction(for:)", "host user authentication"])
        #expect(router.trace.all.allSatisfy { !$0.outcome.contains("pw-alpha") })
    }

    @Test(arguments: Isolated.modes)
    func userInteractionRequiredRunsTheProvidersUIAndTheHostDoesNotAskAgain(isolation: ProviderIsolation) async throws {
        try identities([("alpha", "cancel:100", 0)])
        let router = router(isolation, ui: try script("secret s3cr3t\n"))  // no `confirm` line: the host must not ask
        let result = try await router.fill(try candidates(), for: query, pick: .position(1), fallback: false)
        #expect(result.credential == Self.password("ui", "s3cr3t"))
        #expect(result.authentication == UserAuthentication(method: .provider, userPresent: false, userVerified: true),
                "a secret typed into the provider's UI is verification; a UI script is not a person")
        #expect(router.trace.all.map(\.entryPoint) == [
            "provideCredentialWithoutUserInteraction(for:)", "prepareInterfaceToProvideCredential(for:)", "host user authentication",
        ])
        #expect(router.trace.all.last?.outcome.hasPrefix("not asked") == true)
    }

    @Test(arguments: Isolated.modes)
    func credentialIdentityNotFoundWipesTheStoreAndOffersTheNext(isolation: ProviderIsolation) async throws {
        try identities([("alpha", "cancel:101", 10), ("beta", "ok", 5)])
        // Another of Alpha's identities, a worse match than Beta's (same site, not the exact host), so
        // Beta's comes next in the order; the wipe removes it too.
        try #require(try setup.store(for: "org.test.alpha")).save([
            .password(.init(serviceIdentifier: .init(identifier: "sub.example.com", type: .domain), user: "other"))])
        let notices = Notices()
        let ui = try script("confirm yes\n")
        let router = FillRouter(setup: setups[isolation]!, ui: ui, authenticator: ConfirmUserAuthentication(ui: ui), deadline: .seconds(3),
                                notify: notices.add)
        let result = try await router.fill(try candidates(), for: query, pick: .position(1), fallback: true)
        #expect(result.credential == Self.password("ok", "pw-beta"))
        let alpha = try #require(try setup.store(for: "org.test.alpha"))
        #expect(try alpha.count() == 0)
        #expect(try alpha.state() == IdentityStoreState(isEnabled: true, supportsIncrementalUpdates: false))
        #expect(notices.all.first?.hasPrefix("Alpha no longer has cancel:101 for example.com; its suggestions were cleared until it writes them again. Trying the next suggestion: ok") == true)
    }

    @Test(arguments: Isolated.modes)
    func aFailureNamesTheProviderAndFallsBackOnlyWhenAsked(isolation: ProviderIsolation) async throws {
        try identities([("alpha", "cancel:0", 10), ("beta", "ok", 5)])
        do {
            _ = try await router(isolation, ui: try script("confirm yes\n")).fill(try candidates(), for: query, pick: .position(1), fallback: false)
            Issue.record("expected a failure")
        } catch let error as FillFailure {
            guard case .providersFailed(let messages) = error else { Issue.record("got \(error)"); return }
            #expect(messages == ["Alpha failed: fixture says 0", "No other suggestion was tried."])
        }
        let result = try await router(isolation, ui: try script("confirm yes\n")).fill(try candidates(), for: query, pick: .position(1), fallback: true)
        #expect(result.credential == Self.password("ok", "pw-beta"))
    }

    @Test(arguments: Isolated.modes)
    func aProviderThatNeverAnswersIsCutOffAtTheDeadline(isolation: ProviderIsolation) async throws {
        try identities([("alpha", "never", 10), ("beta", "ok", 5)])
        let notices = Notices()
        let ui = try script("confirm yes\n")
        let router = FillRouter(setup: setups[isolation]!, ui: ui, authenticator: ConfirmUserAuthentication(ui: ui), deadline: .milliseconds(300),
                                notify: notices.add)
        let result = try await router.fill(try candidates(), for: query, pick: .position(1), fallback: true)
        #expect(result.credential == Self.password("ok", "pw-beta"))
        #expect(notices.all.first?.hasPrefix("Alpha did not answer within 0.3 s. Trying the next suggestion: ok") == true)
    }

    @Test(arguments: Isolated.modes)
    func userCanceledFillsNothing(isolation: ProviderIsolation) async throws {
        try identities([("alpha", "cancel:1", 0), ("beta", "ok", 0)])
        await #expect(throws: FillFailure.self) {
            try await router(isolation, ui: try script("confirm yes\n")).fill(try candidates(), for: query, pick: .user("cancel:1"), fallback: true)
        }
    }

    @Test(arguments: Isolated.modes)
    func interactivelyAFailureShowsTheListAgainWithItMarked(isolation: ProviderIsolation) async throws {
        try identities([("alpha", "cancel:0", 10), ("beta", "ok", 5)])
        let ui = ScriptedUI([.success(.choice(0)), .success(.choice(1)), .success(.confirmed(true))])
        let result = try await router(isolation, ui: ui).fill(try candidates(), for: query, pick: .interactive, fallback: false)
        #expect(result.credential == Self.password("ok", "pw-beta"))
        guard ui.asked.count == 3, case .choose(_, let again) = ui.asked[1] else { Issue.record("asked \(ui.asked)"); return }
        #expect(again[0].hasSuffix("— failed: Alpha failed: fixture says 0"))
        #expect(!again[1].contains("failed"))
    }

    @Test(arguments: Isolated.modes)
    func withoutATerminalTheProvidersUIIsReportedUnavailable(isolation: ProviderIsolation) async throws {
        try identities([("alpha", "cancel:100", 0)])
        let router = router(isolation, ui: UnavailableUserInterface(reason: "there is no terminal"))
        do {
            _ = try await router.fill(try candidates(), for: query, pick: .position(1), fallback: false)
            Issue.record("expected a failure")
        } catch let error as FillFailure {
            guard case .userInterfaceUnavailable(let message) = error else { Issue.record("got \(error)"); return }
            #expect(message == "Alpha needs to ask you something (to unlock it, say), and there is no terminal.")
        }
    }

    @Test(arguments: Isolated.modes)
    func pamPermitVerifiesTheUserAndPamDenyRefuses(isolation: ProviderIsolation) async throws {
        try identities([("alpha", "ok", 0)])
        let pam = "\(folder.path)/pam.d"
        try FileManager.default.createDirectory(atPath: pam, withIntermediateDirectories: true)
        try Data("auth required pam_permit.so\naccount required pam_permit.so\n".utf8).write(to: URL(fileURLWithPath: "\(pam)/autofill-permit"))
        try Data("auth required pam_deny.so\naccount required pam_permit.so\n".utf8).write(to: URL(fileURLWithPath: "\(pam)/autofill-deny"))
        let ui = UnavailableUserInterface()
        let permit = PAMUserAuthentication(service: "autofill-permit", configurationDirectory: pam, ui: ui)
        let result = try await router(isolation, ui: ui, authenticator: permit).fill(try candidates(), for: query, pick: .position(1), fallback: false)
        #expect(result.authentication == UserAuthentication(method: .pam, userPresent: true, userVerified: true))
        let deny = PAMUserAuthentication(service: "autofill-deny", configurationDirectory: pam, ui: ui)
        do {
            _ = try await router(isolation, ui: ui, authenticator: deny).fill(try candidates(), for: query, pick: .position(1), fallback: false)
            Issue.record("pam_deny let it through")
        } catch let error as FillFailure {
            guard case .authenticationFailed(let message) = error else { Issue.record("got \(error)"); return }
            #expect(message.contains("PAM refused"))
        }
    }

    @Test(arguments: Isolated.modes)
    func listsTextAndConfigurationGoToTheChosenProvider(isolation: ProviderIsolation) async throws {
        // Choosing from a list (here from a script: nobody was there) and text that needs no UI at all
        // established nothing, so the host's policy asks each time; configuration returns no secret.
        let router = router(isolation, ui: try script("choose 2\nconfirm yes\nconfirm yes\n"))
        let listed = try await router.fillFromList(providerID: "org.test.beta", kind: .password, services: query.serviceIdentifiers)
        #expect(listed.credential == Self.password("second", "list-pw"))
        #expect(listed.authentication == UserAuthentication(method: .confirm, userPresent: true, userVerified: false))
        #expect(try await router.insertText(providerID: "org.test.alpha").credential == .text(Secret("inserted text")))
        try await router.configure(try setup.catalog.manifest(for: "org.test.alpha"))
    }

    @Test(arguments: Isolated.modes)
    func aKindTheProviderDidNotDeclareIsNeverSuggestedOrAsked(isolation: ProviderIsolation) async throws {
        try #require(try setup.store(for: "org.test.alpha")).save([
            .oneTimeCode(.init(serviceIdentifier: .init(identifier: "example.com", type: .domain), label: "code"))])
        let engine = SuggestionEngine(catalog: setup.catalog, directory: setup.stores)
        #expect(try engine.suggestions(for: query, kinds: [.oneTimeCode]).isEmpty)
        await #expect(throws: FillFailure.self) {
            try await router(isolation, ui: try script("")).fillFromList(providerID: "org.test.alpha", kind: .oneTimeCode, services: [])
        }
    }
}

/// Messages the router gives the user, collected.
final class Notices: Sendable {
    private let messages = Mutex<[String]>([])
    var all: [String] { messages.withLock { $0 } }
    func add(_ message: String) { messages.withLock { $0.append(message) } }
}
