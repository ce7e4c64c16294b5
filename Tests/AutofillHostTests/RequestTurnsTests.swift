import AutofillCore
@testable import AutofillHost
import Foundation
import Synchronization
import Testing

/// Turns at a provider (``RequestTurns``): while a request of a UI entry point asks the user, no-UI
/// requests wait for their turn, at most their deadline, and are then told the provider is busy; they
/// never reach it mid-prompt, so nothing kills it and nothing counts as a fault. And once the user has
/// answered, a UI entry point that keeps working without completing is given up after the idle time,
/// so a fallback can move on. In process and in a helper process alike.
struct RequestTurnsTests {
    let folder: TemporaryFolder
    let log = LogCapture()
    let faults = Faults()

    init() throws {
        folder = try TemporaryFolder()
    }

    static let identity = PasswordCredentialIdentity(serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: "ok")
    static let asking = ProviderRequest.interfaceToProvideCredential(.password(identity))
    static let quiet = ProviderRequest.credentialWithoutUserInteraction(.password(identity))

    /// The fixture with `FixtureFault` = `fault` ("ui-locked": no-UI requests answer
    /// userInteractionRequired, the UI entry point prompts and completes with the answer), idle time 0.5 s.
    func connection(_ fault: String, isolation: ProviderIsolation, ui: any ProviderUserInterface) throws -> any ProviderConnection {
        let bundle = try TestPlugins.fixture(
            in: folder.path, name: "\(fault)-\(isolation)", plist: TestPlugins.plist(id: "org.test.alpha", name: "Alpha", entry: "fixture_faults_entry"))
        let services = ProviderServices(
            store: InMemoryIdentityStore(), settings: ["FixtureName": "alpha", "FixtureFault": fault], userInterface: ui,
            logger: log.logger, userInterfaceIdleTimeout: .milliseconds(500))
        return try Isolated.load(bundle, services: services, isolation: isolation, onFault: faults.record)
    }

    @Test(arguments: Isolated.modes)
    func aNoUIRequestIsToldTheProviderIsBusyWhileAnotherAsksTheUserAndNothingIsKilled(isolation: ProviderIsolation) async throws {
        let ui = HeldUserInterface(answer: .text(Secret("typed")))
        let connection = try connection("ui-locked", isolation: isolation, ui: ui)
        async let asked = connection.send(Self.asking, deadline: nil)
        try await eventually { ui.isAsking }  // the prompt is showing, until the test answers it
        for _ in 0..<3 {
            let busy = await connection.send(Self.quiet, deadline: .milliseconds(300))
            #expect(busy == .failed(ProviderFailure(.busy, """
                Alpha is busy with another request that may be asking the user something (its prompt may be open in another \
                terminal); after waiting 0.3 s this request was not sent to it. Answer or cancel that prompt, then try again
                """)))
        }
        ui.answer()
        #expect(await asked == .completed(.password(PasswordCredential(user: "ui", password: Secret("typed")))), "the prompt survived")
        #expect(faults.all.isEmpty)
        #expect((connection as? HelperConnection)?.helperStarts ?? 1 == 1, "the helper was never stopped")
        // Its turn now.
        #expect(await connection.send(Self.quiet, deadline: .seconds(10)) == .canceled(ExtensionError(.userInteractionRequired)))
    }

    @Test(arguments: Isolated.modes)
    func aNoUIRequestThatMayWaitLongEnoughGetsItsTurnAfterThePrompt(isolation: ProviderIsolation) async throws {
        let ui = SlowUserInterface(answer: .text(Secret("typed")), after: .seconds(1))
        let connection = try connection("ui-locked", isolation: isolation, ui: ui)
        async let asked = connection.send(Self.asking, deadline: nil)
        try await eventually { ui.asked == 1 }
        let waited = await connection.send(Self.quiet, deadline: .seconds(30))
        #expect(waited == .canceled(ExtensionError(.userInteractionRequired)))
        #expect(await asked == .completed(.password(PasswordCredential(user: "ui", password: Secret("typed")))))
        #expect(faults.all.isEmpty)
    }

    @Test(arguments: Isolated.modes)
    func aUIEntryPointStillWorkingAfterTheAnswerIsGivenUpAfterTheIdleTime(isolation: ProviderIsolation) async throws {
        let ui = SlowUserInterface(answer: .text(Secret("typed")), after: .milliseconds(100))
        let connection = try connection("ui-prompt-works", isolation: isolation, ui: ui)
        // Given up while the entry point still works (it returns without completing after 5 s: that
        // would say "returned from … without completing").
        #expect(await connection.send(Self.asking, deadline: nil) == .failed(ProviderFailure(.timedOut, """
            Alpha did not complete prepareInterfaceToProvideCredential(for:) within 0.5 s after its prompt was answered, and \
            showed nothing since; gave up (UIIdleTimeoutSeconds in the configuration sets the wait)
            """)))
        #expect(faults.all.isEmpty)
    }
}

/// A user who answers the prompt when the test says so.
final class HeldUserInterface: ProviderUserInterface {
    let reply: UserInterfaceAnswer
    private let asking = Mutex(false)
    private let answered = DispatchSemaphore(value: 0)

    init(answer: UserInterfaceAnswer) {
        reply = answer
    }

    /// Whether a prompt is showing.
    var isAsking: Bool { asking.withLock { $0 } }

    /// The user answers the prompt showing (or the next one).
    func answer() { answered.signal() }

    func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer {
        asking.withLock { $0 = true }
        answered.wait()
        asking.withLock { $0 = false }
        return reply
    }
}
