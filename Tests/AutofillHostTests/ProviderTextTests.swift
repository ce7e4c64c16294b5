import AutofillCore
import AutofillHost
import Foundation
import Testing

/// What a hostile provider's text and lengths can do to the host: nothing. Reasons, log lines and
/// UI texts arrive escaped and cut (DisplayText) by either transport; lengths and counts of 2^63 or
/// more are refused, never read as empty; an empty password fills nothing; a forged frame with an
/// oversized field ends the helper. Each test runs the real C fixture (hostile_text_provider.c) in
/// this process and in a helper process.
struct ProviderTextTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    func load(_ isolation: ProviderIsolation, ui: any ProviderUserInterface = UnavailableUserInterface(),
              onFault: (@Sendable (PluginManifest, ProviderFault) -> Void)? = nil) throws -> any ProviderConnection {
        let bundle = try HostileProvider.bundle(
            in: folder.path, bundleName: "Hostile-\(UUID().uuidString)", plist: HostileProvider.plist(id: "org.test.hostile", name: "Hostile"))
        return try Isolated.load(
            bundle, services: ProviderServices(store: InMemoryIdentityStore(), userInterface: ui, logger: log.logger), isolation: isolation,
            onFault: onFault)
    }

    func passwordRequest(_ user: String) -> ProviderRequest {
        .credentialWithoutUserInteraction(.password(.init(serviceIdentifier: .init(identifier: "hostile.test", type: .domain), user: user)))
    }

    static func isSafe(_ text: String) -> Bool {
        !text.unicodeScalars.contains { DisplayText.isEscaped($0) }
    }

    @Test(arguments: Isolated.modes)
    func aCancelReasonArrivesOnOneLineWithItsEscapeSequencesShownNotObeyed(isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation).send(passwordRequest("escape"), deadline: .seconds(3))
        guard case .canceled(let error) = outcome, let reason = error.failureReason else { Issue.record("got \(outcome)"); return }
        #expect(reason == #"\u{1b}[1;31mlocked\u{1b}[0m \u{202e}evil\u{7}\nautofill: error: forged line"#)
        #expect(Self.isSafe(reason))
    }

    @Test(arguments: Isolated.modes)
    func aLongReasonIsCutWithANote(isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation).send(passwordRequest("longreason"), deadline: .seconds(3))
        guard case .canceled(let error) = outcome, let reason = error.failureReason else { Issue.record("got \(outcome)"); return }
        #expect(reason == String(repeating: "r", count: 1000) + "… (59000 more bytes)")
    }

    @Test(arguments: Isolated.modes, ["sizemax", "sizemaxuser"])
    func aLengthOfSizeMaxIsRefusedAndFailsTheRequest(isolation: ProviderIsolation, user: String) async throws {
        let connection = try load(isolation)  // kept: released, a helper would be stopped before it logs
        let outcome = await connection.send(passwordRequest(user), deadline: .seconds(3))
        guard case .failed(let failure) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(failure.reason == .malformedCompletion)
        #expect(failure.message.hasPrefix("Hostile sent a malformed answer to provideCredentialWithoutUserInteraction(for:)"))
        #expect(failure.message.contains("18446744073709551615 bytes, over the limit of 65536"))
        try await eventually { log.contains("\(user) status -2") }
        #expect(log.contains("\(user) status -2"))
        withExtendedLifetime(connection) {}
    }

    @Test(arguments: Isolated.modes)
    func anEmptyPasswordFailsTheRequestNamingTheProvider(isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation).send(passwordRequest("empty"), deadline: .seconds(3))
        #expect(outcome == .failed(ProviderFailure(
            .malformedCompletion, "Hostile answered provideCredentialWithoutUserInteraction(for:) with an empty password; nothing was filled")))
        try await eventually { log.contains("empty status -2") }
        #expect(log.contains("empty status -2"))
    }

    @Test(arguments: Isolated.modes)
    func everyHostServiceRefusesLengthsCountsAndCapacitiesOf2To63OrMore(isolation: ProviderIsolation) async throws {
        let connection = try load(isolation)
        _ = await connection.send(passwordRequest("limits"), deadline: .seconds(3))
        let services = ["get_setting", "get_setting_key", "store_save", "store_remove", "store_replace", "store_save_user",
                        "ui_choose", "ui_prompt", "complete_text"]
        try await eventually { log.contains("limits complete_text") }
        for service in services {
            #expect(log.contains("limits \(service) -2"), "\(service): \(log.all.filter { $0.contains("limits") })")
        }
        #expect(log.contains("malformed call to log: message: 18446744073709551615 bytes, over the limit of 65536"))
    }

    @Test(arguments: Isolated.modes)
    func aFloodOfLogLinesIsCutAtTwentyPerRequestAndCounted(isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation).send(passwordRequest("flood"), deadline: .seconds(10))
        #expect(outcome == .completed(.password(PasswordCredential(user: "ok", password: Secret("pw-hostile")))))
        try await eventually { log.contains("more lines from Hostile suppressed") }
        let flood = log.all.filter { $0.contains("flood line") }
        #expect(flood.count == 20)
        #expect(flood.allSatisfy { Self.isSafe($0) && $0.hasSuffix(#"\u{1b}[31m"#) })
        #expect(log.contains("… 4980 more lines from Hostile suppressed (a provider's first 20 are shown)"))
    }

    @Test(arguments: Isolated.modes)
    func promptTitlesAndMessagesReachTheUserInterfaceEscapedOnOneLine(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([.success(.text(Secret("master!")))])
        let request = ProviderRequest.interfaceToProvideCredential(
            .password(.init(serviceIdentifier: .init(identifier: "hostile.test", type: .domain), user: "ok")))
        let outcome = try await load(isolation, ui: ui).send(request, deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "ui", password: Secret("master!")))))
        #expect(ui.asked == [.prompt(title: #"Unlock \u{1b}[2J"#, message: #"\u{1b}[1A\n[autofill] Master password"#, secret: true, maxLength: 64)])
    }

    @Test(arguments: Isolated.modes)
    func listItemsReachTheUserInterfaceEscapedOnOneLine(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([.success(.choice(1))])
        let outcome = try await load(isolation, ui: ui).send(.credentialList([]), deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "listed", password: Secret("list-pw")))))
        #expect(ui.asked == [.choose(title: #"Choose\r"#, items: [#"first\u{1b}[31m"#, #"second\nautofill: third"#])])
    }

    @Test func aForgedFrameWithAnOversizedReasonEndsTheHelper() async throws {
        let faults = LogCapture()
        let connection = try load(.helperProcess, onFault: { _, fault in
            faults.logger.warning("\(fault.kind)")
        })
        let outcome = await connection.send(passwordRequest("forgeframe"), deadline: .seconds(3))
        guard case .failed(let failure) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(failure.reason == .transport)
        #expect(failure.message.contains("Hostile"))
        #expect(!failure.message.contains("rrrrrrrrrr"))
        try await eventually { !faults.all.isEmpty }
        #expect(faults.all.count == 1)
        #expect(faults.all.first?.contains("protocolViolation") == true)
        #expect(!log.all.contains { $0.contains("rrrrrrrrrr") })
    }
}
