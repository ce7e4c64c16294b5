import AutofillCore
import AutofillHost
import Foundation
import Testing

/// Requests through the C ABI to a real C plugin: completion exactly once, deadlines,
/// malformed and misplaced answers, UI only where allowed, each provider bound to its own state.
struct ProviderConnectionTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    /// A fixture provider loaded with its own store, settings and UI.
    func load(
        name: String = "alpha", store: InMemoryIdentityStore = InMemoryIdentityStore(),
        ui: any ProviderUserInterface = UnavailableUserInterface()
    ) throws -> InProcessConnection {
        let bundle = try TestPlugins.fixture(
            in: folder.path, name: name, plist: TestPlugins.plist(id: "org.test.\(name)", name: name.capitalized))
        return try PluginLoader.load(
            bundle: bundle,
            services: ProviderServices(store: store, settings: ["FixtureName": name], userInterface: ui, logger: log.logger))
    }

    func passwordRequest(_ user: String) -> ProviderRequest {
        .credentialWithoutUserInteraction(.password(.init(serviceIdentifier: .init(identifier: "alpha.test", type: .domain), user: user)))
    }

    @Test func aPasswordCompletesTheRequest() async throws {
        let outcome = try await load().send(passwordRequest("ok"), deadline: .seconds(3))
        #expect(outcome == .completed(.password(PasswordCredential(user: "ok", password: Secret("pw-alpha")))))
    }

    @Test func aSecondCompletionIsHarmlessAndCounted() async throws {
        let connection = try load()
        let outcome = await connection.send(passwordRequest("twice"), deadline: .seconds(3))
        #expect(outcome == .completed(.password(PasswordCredential(user: "ok", password: Secret("pw-alpha")))))
        #expect(connection.strayCompletions == 1)
        #expect(log.contains("first completion status 0"))
        #expect(log.contains("second completion status -1"))
    }

    @Test func aCompletionAfterTheDeadlineIsHarmless() async throws {
        let connection = try load()
        let outcome = await connection.send(passwordRequest("late"), deadline: .milliseconds(50))
        guard case .failed(let failure) = outcome else { Issue.record("expected a timeout, got \(outcome)"); return }
        #expect(failure.reason == .timedOut)
        #expect(failure.message == "Alpha did not answer within 0.05 s")
        // The fixture completes 300 ms after the request; wait for it (generously, for a loaded machine).
        let deadline = ContinuousClock.now + .seconds(10)
        while connection.strayCompletions == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(connection.strayCompletions == 1)
        #expect(log.contains("late completion status -1"))
    }

    @Test func aProviderThatNeverAnswersTimesOut() async throws {
        let connection = try load()
        let outcome = await connection.send(passwordRequest("never"), deadline: .milliseconds(100))
        #expect(outcome == .failed(ProviderFailure(.timedOut, "Alpha did not answer within 0.1 s")))
        #expect(connection.session.pendingCount == 0)
    }

    @Test func aCompletionOfTheWrongKindFailsTheRequestNamingTheProvider() async throws {
        let outcome = try await load().send(passwordRequest("wrong"), deadline: .seconds(3))
        guard case .failed(let failure) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(failure.reason == .wrongCompletion)
        #expect(failure.message.hasPrefix("Alpha answered provideCredentialWithoutUserInteraction(for:) with a text completion"))
        #expect(log.contains("wrong completion status -3"))
    }

    @Test func aCompletionThatIsNotUTF8IsRefusedAndNeverLeaksTheBytes() async throws {
        let outcome = try await load().send(passwordRequest("badutf8"), deadline: .seconds(3))
        guard case .failed(let failure) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(failure.reason == .malformedCompletion)
        #expect(failure.message.contains("password: not valid UTF-8"))
        #expect(log.contains("bad utf8 completion status -2"))
    }

    @Test func aNoUIRequestCannotShowUI() async throws {
        let ui = ScriptedUI([.success(.text(Secret("should not be asked")))])
        let outcome = try await load(ui: ui).send(passwordRequest("ui"), deadline: .seconds(3))
        #expect(outcome == .canceled(ExtensionError(.failed, failureReason: "ui_prompt said -4")))
        #expect(ui.asked.isEmpty)
    }

    @Test(arguments: ExtensionError.Code.allCases)
    func eachExtensionErrorCodeReachesTheHost(code: ExtensionError.Code) async throws {
        let outcome = try await load().send(passwordRequest("cancel:\(code.rawValue)"), deadline: .seconds(3))
        #expect(outcome == .canceled(ExtensionError(code, failureReason: "fixture says \(code.rawValue)")))
    }

    @Test func anUnknownErrorCodeIsAMalformedAnswer() async throws {
        let outcome = try await load().send(passwordRequest("cancel:55"), deadline: .seconds(3))
        guard case .failed(let failure) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(failure.reason == .malformedCompletion)
        #expect(failure.message.contains("error code 55 is not an AF_ERROR_* value"))
    }

    @Test func theUIEntryPointShowsASecretPromptThroughTheHost() async throws {
        let ui = ScriptedUI([.success(.text(Secret("master!")))])
        let request = ProviderRequest.interfaceToProvideCredential(
            .password(.init(serviceIdentifier: .init(identifier: "alpha.test", type: .domain), user: "ok")))
        let outcome = try await load(ui: ui).send(request, deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "ui", password: Secret("master!")))))
        #expect(ui.asked == [.prompt(title: "Unlock", message: "Master password", secret: true, maxLength: 64)])
    }

    @Test func cancellingThePromptCancelsTheRequest() async throws {
        let request = ProviderRequest.interfaceToProvideCredential(
            .password(.init(serviceIdentifier: .init(identifier: "alpha.test", type: .domain), user: "ok")))
        let outcome = try await load(ui: ScriptedUI([.failure(.canceled)])).send(request, deadline: nil)
        #expect(outcome == .canceled(ExtensionError(.userCanceled)))
    }

    @Test func theCredentialListLetsTheUserChoose() async throws {
        let ui = ScriptedUI([.success(.choice(1))])
        let outcome = try await load(ui: ui).send(.credentialList([.init(identifier: "alpha.test", type: .domain)]), deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "second", password: Secret("list-pw")))))
        #expect(ui.asked == [.choose(title: "Choose", items: ["first", "second"])])
    }

    @Test func textAndConfigurationRequestsComplete() async throws {
        let connection = try load()
        #expect(await connection.send(.textToInsert, deadline: nil) == .completed(.text(Secret("inserted text"))))
        #expect(await connection.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
    }

    @Test func aMissingEntryPointFailsWithoutReachingTheProvider() async throws {
        let outcome = try await load().send(.oneTimeCodeList([]), deadline: .seconds(3))
        #expect(outcome == .failed(ProviderFailure(.notImplemented, "Alpha does not implement prepareOneTimeCodeCredentialList(for:)")))
    }

    @Test func eachProviderReachesOnlyItsOwnStoreAndSettings() async throws {
        let alphaStore = InMemoryIdentityStore(), betaStore = InMemoryIdentityStore()
        let alpha = try load(name: "alpha", store: alphaStore)
        let beta = try load(name: "beta", store: betaStore)
        #expect(alphaStore.allIdentities.map(\.displayUser) == ["ok"])
        #expect(alphaStore.allIdentities == [.password(.init(serviceIdentifier: .init(identifier: "alpha.test", type: .domain), user: "ok"))])
        #expect(betaStore.allIdentities == [.password(.init(serviceIdentifier: .init(identifier: "beta.test", type: .domain), user: "ok"))])
        #expect(await alpha.send(passwordRequest("ok"), deadline: .seconds(3)) == .completed(.password(.init(user: "ok", password: Secret("pw-alpha")))))
        #expect(await beta.send(passwordRequest("ok"), deadline: .seconds(3)) == .completed(.password(.init(user: "ok", password: Secret("pw-beta")))))
    }

    @Test func aDisabledStoreRefusesTheProvidersWrites() throws {
        let store = InMemoryIdentityStore(isEnabled: false)
        _ = try load(store: store)
        #expect(store.allIdentities.isEmpty)
        #expect(log.contains("store_save status -101"))
    }

    @Test func manyConcurrentRequestsEachGetTheirOwnAnswer() async throws {
        let connection = try load()
        let outcomes = await withTaskGroup(of: ProviderOutcome.self) { group in
            for index in 0..<200 {
                group.addTask { await connection.send(self.passwordRequest(index % 2 == 0 ? "ok" : "cancel:1"), deadline: .seconds(5)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { if case .completed = $0 { true } else { false } }.count == 100)
        #expect(outcomes.filter { $0 == .canceled(ExtensionError(.userCanceled, failureReason: "fixture says 1")) }.count == 100)
        #expect(connection.strayCompletions == 0)
    }
}
