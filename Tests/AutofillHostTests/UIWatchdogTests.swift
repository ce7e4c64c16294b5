import AutofillCore
@testable import AutofillHost
@testable import AutofillProviderRuntime
import Foundation
import Synchronization
import Testing

/// The UI watchdog: a UI request whose entry point returned without completing, with no `ui_*` call
/// in progress, fails after the idle time, naming the provider; the user's own time never counts.
/// In process and in a helper process alike.
struct UIWatchdogTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    static let identity = PasswordCredentialIdentity(serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: "ok")
    static let request = ProviderRequest.interfaceToProvideCredential(.password(identity))

    /// The fixture with `FixtureFault` = `fault`, loaded in `isolation`, its UI `ui`, idle time 0.5 s.
    func connection(_ fault: String, isolation: ProviderIsolation, ui: any ProviderUserInterface = UnavailableUserInterface())
        throws -> any ProviderConnection
    {
        let name = "\(fault)-\(isolation)"
        let bundle = try TestPlugins.fixture(
            in: folder.path, name: name, plist: TestPlugins.plist(id: "org.test.alpha", name: "Alpha", entry: "fixture_faults_entry"))
        let services = ProviderServices(
            store: InMemoryIdentityStore(), settings: ["FixtureName": "alpha", "FixtureFault": fault], userInterface: ui,
            logger: log.logger, userInterfaceIdleTimeout: .milliseconds(500))
        return try Isolated.load(bundle, services: services, isolation: isolation)
    }

    /// Sends `request` without a deadline; nil if no outcome came within 120 s (a hang: before the
    /// watchdog). The send runs in a task of its own and the limit is a Dispatch timer, so a test run
    /// whose shared thread pool is busy with other tests can delay the outcome, never lose it.
    func outcome(_ connection: any ProviderConnection) async -> (ProviderOutcome?, Duration) {
        let start = ContinuousClock.now
        let outcome: ProviderOutcome? = await withCheckedContinuation { continuation in
            let resumed = Mutex(false)
            let finish: @Sendable (ProviderOutcome?) -> Void = { outcome in
                guard resumed.withLock({ done in defer { done = true }; return !done }) else { return }
                continuation.resume(returning: outcome)
            }
            Task(priority: .high) { finish(await connection.send(Self.request, deadline: nil)) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 120) { finish(nil) }
        }
        return (outcome, ContinuousClock.now - start)
    }

    static let gaveUp = ProviderOutcome.failed(ProviderFailure(
        .timedOut,
        "Alpha returned from prepareInterfaceToProvideCredential(for:) without completing the request and showed nothing for 0.5 s; gave up (a provider must complete or cancel every request; UIIdleTimeoutSeconds in the configuration sets the wait)"))

    @Test(arguments: Isolated.modes)
    func aUIEntryPointThatReturnsWithoutCompletingFailsAfterTheIdleTime(isolation: ProviderIsolation) async throws {
        let connection = try connection("ui-returns", isolation: isolation)
        let (outcome, took) = await outcome(connection)
        #expect(outcome == Self.gaveUp)
        #expect(took >= .milliseconds(450))
        #expect(log.contains("prepareInterfaceToProvideCredential(for:) returned without completing its request"))
    }

    @Test(arguments: Isolated.modes)
    func theIdleClockStopsWhileTheUserIsAsked(isolation: ProviderIsolation) async throws {
        // The user takes 1.2 s to type the master password: longer than the idle time, which never counts it.
        let ui = SlowUserInterface(answer: .text(Secret("typed")), after: .milliseconds(1200))
        let connection = try connection("ui-locked", isolation: isolation, ui: ui)
        let (outcome, _) = await outcome(connection)
        #expect(outcome == .completed(.password(PasswordCredential(user: "ui", password: Secret("typed")))))
    }

    @Test(arguments: Isolated.modes)
    func theIdleClockStartsAgainWhenTheUserHasAnswered(isolation: ProviderIsolation) async throws {
        let ui = SlowUserInterface(answer: .text(Secret("typed")), after: .milliseconds(1000))
        let connection = try connection("ui-prompt-returns", isolation: isolation, ui: ui)
        let (outcome, took) = await outcome(connection)
        #expect(outcome == Self.gaveUp)
        #expect(took >= .milliseconds(1450), "the idle time counted from the end of the prompt")
        #expect(ui.asked == 1)
    }

    @Test func aNoUIRequestKeepsItsDeadlineAndNoWatchdog() async throws {
        // The watchdog applies to UI entry points only; no-UI ones have their deadline.
        let connection = try connection("", isolation: .helperProcess)
        let never = PasswordCredentialIdentity(serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: "never")
        #expect(await connection.send(.credentialWithoutUserInteraction(.password(never)), deadline: .seconds(1))
            == .failed(ProviderFailure(.timedOut, "Alpha did not answer within 1 s")))
    }

    @Test func aHelperSaysWhenAUIEntryPointReturned() throws {
        // Protocol version 2's one addition: `returned(id)`, helper to host (version 3 added the sandbox).
        let message = HelperMessage.returned(42)
        #expect(try HelperMessage(body: Array(message.frame.dropFirst(4))) == message)
        #expect(HelperProtocol.version >= 2)
    }

    @Test func theIdleTimeIsAConfigurationKeyCheckedLikeTheOthers() throws {
        let path = try folder.file("config.plist", "")
        try TestPlugins.write(["UIIdleTimeoutSeconds": 45], to: path)
        let configuration = try ConfigurationFile.locate(option: path, environment: ["HOME": folder.path]).configuration
        #expect(configuration.uiIdleTimeout == .seconds(45))
        #expect(HostConfiguration().uiIdleTimeout == .seconds(30))
        try TestPlugins.write(["UIIdleTimeoutSeconds": 0], to: path)
        let error = try #require(throws: AutofillError.self) {
            try ConfigurationFile.locate(option: path, environment: ["HOME": folder.path])
        }
        #expect(error.message.contains("UIIdleTimeoutSeconds is 0.0; give a number of seconds above 0 and at most 3600"), "\(error.message)")
    }
}

/// A UI that answers every request with `answer` after `after`, counting the requests.
final class SlowUserInterface: ProviderUserInterface {
    let answer: UserInterfaceAnswer
    let after: Duration
    private let count = Mutex(0)

    init(answer: UserInterfaceAnswer, after: Duration) {
        self.answer = answer
        self.after = after
    }

    var asked: Int { count.withLock { $0 } }

    func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer {
        count.withLock { $0 += 1 }
        usleep(UInt32(after.components.seconds * 1_000_000 + after.components.attoseconds / 1_000_000_000_000))
        return answer
    }
}
