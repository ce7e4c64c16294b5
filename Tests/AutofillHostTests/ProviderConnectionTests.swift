import AutofillCore
import AutofillHost
import Foundation
import Testing

/// Requests through the C ABI to a real C plugin: completion exactly once, deadlines,
/// malformed and misplaced answers, UI only where allowed, each provider bound to its own state.
/// Every test runs twice: with the plugin in this process and in a helper process.
struct ProviderConnectionTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    /// A fixture provider loaded with its own store, settings and UI.
    func load(
        _ isolation: ProviderIsolation, name: String = "alpha", store: InMemoryIdentityStore = InMemoryIdentityStore(),
        ui: any ProviderUserInterface = UnavailableUserInterface()
    ) throws -> any ProviderConnection {
        let bundle = try TestPlugins.fixture(
            in: folder.path, name: name, plist: TestPlugins.plist(id: "org.test.\(name)", name: name.capitalized))
        return try Isolated.load(
            bundle, services: ProviderServices(store: store, settings: ["FixtureName": name], userInterface: ui, logger: log.logger),
            isolation: isolation)
    }

    func passwordRequest(_ user: String) -> ProviderRequest {
        .credentialWithoutUserInteraction(.password(.init(serviceIdentifier: .init(identifier: "alpha.test", type: .domain), user: user)))
    }

    @Test(arguments: Isolated.modes)
    func aPasswordCompletesTheRequest(isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation).send(passwordRequest("ok"), deadline: .seconds(3))
        #expect(outcome == .completed(.password(PasswordCredential(user: "ok", password: Secret("pw-alpha")))))
    }

    @Test(arguments: Isolated.modes)
    func aSecondCompletionIsHarmlessAndCounted(isolation: ProviderIsolation) async throws {
        let connection = try load(isolation)
        let outcome = await connection.send(passwordRequest("twice"), deadline: .seconds(3))
        #expect(outcome == .completed(.password(PasswordCredential(user: "ok", password: Secret("pw-alpha")))))
        // The second completion may still be on its way (through a helper, it crosses a socket).
        try await eventually { connection.strayCompletions == 1 && log.contains("second completion status -1") }
        #expect(connection.strayCompletions == 1)
        #expect(log.contains("first completion status 0"))
        #expect(log.contains("second completion status -1"))
    }

    @Test(arguments: Isolated.modes)
    func aCompletionAfterTheDeadlineIsHarmless(isolation: ProviderIsolation) async throws {
        let connection = try load(isolation)
        let outcome = await connection.send(passwordRequest("late"), deadline: .milliseconds(50))
        guard case .failed(let failure) = outcome else { Issue.record("expected a timeout, got \(outcome)"); return }
        #expect(failure.reason == .timedOut)
        #expect(failure.message == "Alpha did not answer within 0.05 s")
        switch isolation {
        case .inProcess:
            // The fixture completes 300 ms after the request; wait for it (generously, for a loaded machine).
            try await eventually { connection.strayCompletions == 1 && log.contains("late completion status -1") }
            #expect(connection.strayCompletions == 1)
            #expect(log.contains("late completion status -1"))
        case .helperProcess, .unsandboxed:
            // The deadline killed the helper: the late completion never happens, and the next request
            // gets a fresh helper.
            try await Task.sleep(for: .milliseconds(500))
            #expect(connection.strayCompletions == 0)
            #expect(!log.contains("late completion"))
            #expect(await connection.send(passwordRequest("ok"), deadline: .seconds(3))
                == .completed(.password(PasswordCredential(user: "ok", password: Secret("pw-alpha")))))
            #expect((connection as? HelperConnection)?.helperStarts == 2)
        }
    }

    @Test(arguments: Isolated.modes)
    func aProviderThatNeverAnswersTimesOut(isolation: ProviderIsolation) async throws {
        let connection = try load(isolation)
        let outcome = await connection.send(passwordRequest("never"), deadline: .milliseconds(100))
        #expect(outcome == .failed(ProviderFailure(.timedOut, "Alpha did not answer within 0.1 s")))
        #expect(Isolated.session(of: connection).pendingCount == 0)
    }

    @Test(arguments: Isolated.modes)
    func aCompletionOfTheWrongKindFailsTheRequestNamingTheProvider(isolation: ProviderIsolation) async throws {
        // Kept until the end: a released connection stops its helper, which may then never send the log line.
        let connection = try load(isolation)
        let outcome = await connection.send(passwordRequest("wrong"), deadline: .seconds(3))
        guard case .failed(let failure) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(failure.reason == .wrongCompletion)
        #expect(failure.message.hasPrefix("Alpha answered provideCredentialWithoutUserInteraction(for:) with a text completion"))
        // In a helper, the plugin's log line after its completion may arrive after the outcome.
        try await eventually { log.contains("wrong completion status -3") }
        #expect(log.contains("wrong completion status -3"))
        withExtendedLifetime(connection) {}
    }

    @Test(arguments: Isolated.modes)
    func aCompletionThatIsNotUTF8IsRefusedAndNeverLeaksTheBytes(isolation: ProviderIsolation) async throws {
        // Kept: released, a helper would be stopped before it sends its log line.
        let connection = try load(isolation)
        let outcome = await connection.send(passwordRequest("badutf8"), deadline: .seconds(3))
        guard case .failed(let failure) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(failure.reason == .malformedCompletion)
        #expect(failure.message.contains("password: not valid UTF-8"))
        // In a helper, the plugin's log line after its completion may arrive after the outcome.
        try await eventually { log.contains("bad utf8 completion status -2") }
        #expect(log.contains("bad utf8 completion status -2"))
        withExtendedLifetime(connection) {}
    }

    @Test(arguments: Isolated.modes)
    func aNoUIRequestCannotShowUI(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([.success(.text(Secret("should not be asked")))])
        let outcome = try await load(isolation, ui: ui).send(passwordRequest("ui"), deadline: .seconds(3))
        #expect(outcome == .canceled(ExtensionError(.failed, failureReason: "ui_prompt said -4")))
        #expect(ui.asked.isEmpty)
    }

    @Test(arguments: Isolated.modes, ExtensionError.Code.allCases)
    func eachExtensionErrorCodeReachesTheHost(isolation: ProviderIsolation, code: ExtensionError.Code) async throws {
        let outcome = try await load(isolation).send(passwordRequest("cancel:\(code.rawValue)"), deadline: .seconds(3))
        #expect(outcome == .canceled(ExtensionError(code, failureReason: "fixture says \(code.rawValue)")))
    }

    @Test(arguments: Isolated.modes)
    func anUnknownErrorCodeIsAMalformedAnswer(isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation).send(passwordRequest("cancel:55"), deadline: .seconds(3))
        guard case .failed(let failure) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(failure.reason == .malformedCompletion)
        #expect(failure.message.contains("error code 55 is not an AF_ERROR_* value"))
    }

    @Test(arguments: Isolated.modes)
    func theUIEntryPointShowsASecretPromptThroughTheHost(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([.success(.text(Secret("master!")))])
        let request = ProviderRequest.interfaceToProvideCredential(
            .password(.init(serviceIdentifier: .init(identifier: "alpha.test", type: .domain), user: "ok")))
        let outcome = try await load(isolation, ui: ui).send(request, deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "ui", password: Secret("master!")))))
        #expect(ui.asked == [.prompt(title: "Unlock", message: "Master password", secret: true, maxLength: 64)])
    }

    @Test(arguments: Isolated.modes)
    func cancellingThePromptCancelsTheRequest(isolation: ProviderIsolation) async throws {
        let request = ProviderRequest.interfaceToProvideCredential(
            .password(.init(serviceIdentifier: .init(identifier: "alpha.test", type: .domain), user: "ok")))
        let outcome = try await load(isolation, ui: ScriptedUI([.failure(.canceled)])).send(request, deadline: nil)
        #expect(outcome == .canceled(ExtensionError(.userCanceled)))
    }

    @Test(arguments: Isolated.modes)
    func theCredentialListLetsTheUserChoose(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([.success(.choice(1))])
        let outcome = try await load(isolation, ui: ui).send(.credentialList([.init(identifier: "alpha.test", type: .domain)]), deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "second", password: Secret("list-pw")))))
        #expect(ui.asked == [.choose(title: "Choose", items: ["first", "second"])])
    }

    @Test(arguments: Isolated.modes)
    func textAndConfigurationRequestsComplete(isolation: ProviderIsolation) async throws {
        let connection = try load(isolation)
        #expect(await connection.send(.textToInsert, deadline: nil) == .completed(.text(Secret("inserted text"))))
        #expect(await connection.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
    }

    @Test(arguments: Isolated.modes)
    func aMissingEntryPointFailsWithoutReachingTheProvider(isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation).send(.oneTimeCodeList([]), deadline: .seconds(3))
        #expect(outcome == .failed(ProviderFailure(.notImplemented, "Alpha does not implement prepareOneTimeCodeCredentialList(for:)")))
    }

    @Test(arguments: Isolated.modes)
    func eachProviderReachesOnlyItsOwnStoreAndSettings(isolation: ProviderIsolation) async throws {
        let alphaStore = InMemoryIdentityStore(), betaStore = InMemoryIdentityStore()
        let alpha = try load(isolation, name: "alpha", store: alphaStore)
        let beta = try load(isolation, name: "beta", store: betaStore)
        #expect(alphaStore.allIdentities.map(\.displayUser) == ["ok"])
        #expect(alphaStore.allIdentities == [.password(.init(serviceIdentifier: .init(identifier: "alpha.test", type: .domain), user: "ok"))])
        #expect(betaStore.allIdentities == [.password(.init(serviceIdentifier: .init(identifier: "beta.test", type: .domain), user: "ok"))])
        #expect(await alpha.send(passwordRequest("ok"), deadline: .seconds(3)) == .completed(.password(.init(user: "ok", password: Secret("pw-alpha")))))
        #expect(await beta.send(passwordRequest("ok"), deadline: .seconds(3)) == .completed(.password(.init(user: "ok", password: Secret("pw-beta")))))
    }

    @Test(arguments: Isolated.modes)
    func aDisabledStoreRefusesTheProvidersWrites(isolation: ProviderIsolation) throws {
        let store = InMemoryIdentityStore(isEnabled: false)
        _ = try load(isolation, store: store)
        #expect(store.allIdentities.isEmpty)
        #expect(log.contains("store_save status -101"))
    }

    @Test(arguments: Isolated.modes)
    func manyConcurrentRequestsEachGetTheirOwnAnswer(isolation: ProviderIsolation) async throws {
        let connection = try load(isolation)
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
