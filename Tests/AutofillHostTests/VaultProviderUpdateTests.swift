import AutofillCore
import AutofillHost
import Foundation
import Testing

/// VaultProvider's iOS 26 entry points through its real library: a saved password is what the next
/// fill returns, generated passwords honour the rules, an unused password is demoted, and WebAuthn's
/// signals remove or rename passkeys; in this process and in a helper process.
struct VaultProviderUpdateTests {
    let folder: TemporaryFolder
    let vault: VaultCopy
    let log = LogCapture()
    let mode = IsolationMode()
    let ui = ScriptedUI([])
    let store = InMemoryIdentityStore()
    let loaded = LoadedProvider()

    static let unlock = VaultProviderPasskeyTests.unlock
    static let example = ServiceIdentifier(identifier: "example.com", type: .domain)

    init() throws {
        folder = try TemporaryFolder()
        vault = try VaultCopy(in: folder.path)
    }

    /// Sends `request` to this test's provider process, its UI answering `answers`.
    func send(_ request: ProviderRequest, answering answers: [Result<UserInterfaceAnswer, UserInterfaceError>] = []) async throws
        -> ProviderOutcome
    {
        let provider = try loaded.connection {
            try vault.load(in: folder, store: store, ui: ui, settings: ["VaultFile": vault.path, "UnlockTimeoutSeconds": "3600"],
                           log: log, isolation: mode.value)
        }
        ui.script(answers)
        return await provider.send(request, deadline: answers.isEmpty ? .seconds(3) : nil)
    }

    func fill(_ user: String, record: String? = nil) async throws -> ProviderOutcome {
        try await send(.credentialWithoutUserInteraction(.password(
            PasswordCredentialIdentity(serviceIdentifier: Self.example, user: user, recordIdentifier: record))))
    }

    static func save(_ user: String, _ password: String, at site: String = "example.com") -> ProviderRequest {
        .savePassword(SavePasswordRequest(serviceIdentifier: ServiceIdentifier(identifier: site, type: .domain),
                                          credential: PasswordCredential(user: user, password: Secret(password))))
    }

    static func password(_ user: String, _ password: String) -> ProviderOutcome {
        .completed(.password(PasswordCredential(user: user, password: Secret(password))))
    }

    @Test(arguments: Isolated.modes)
    func aSavedPasswordIsWhatTheNextFillReturns(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        #expect(try await send(Self.save("carol", "carol-saved-secret"), answering: [Self.unlock]) == .completed(.passwordSaved))
        #expect(store.allIdentities.contains { $0.kind == .password && $0.displayUser == "carol" }, "the new login is published")
        #expect(try await fill("carol") == Self.password("carol", "carol-saved-secret"))

        // An existing login (alice's, at example.com, asked for at www.example.com) gets the new password.
        #expect(try await send(Self.save("alice", "alice-new-secret", at: "www.example.com")) == .completed(.passwordSaved))
        #expect(try await fill("alice", record: "vault-1") == Self.password("alice", "alice-new-secret"))
        #expect(!store.allIdentities.contains { $0.displayUser == "alice" }, "updated in place: no second login to publish")
        #expect(!log.all.contains { $0.contains("saved-secret") || $0.contains("new-secret") })
    }

    @Test(arguments: Isolated.modes)
    func generatedPasswordsHonourTheRulesAndNeedNoUnlock(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let text = "minlength: 24; maxlength: 24; required: digit; required: [!%]; allowed: lower; max-consecutive: 1"
        let rules = try PasswordRules.parse(text)
        var seen = Set<String>()
        for _ in 0..<40 {
            let outcome = try await send(.generatePassword(GeneratePasswordRequest(serviceIdentifier: Self.example, passwordRules: text)))
            guard case .completed(.generatedPassword(let password)) = outcome else { Issue.record("\(outcome)"); return }
            #expect(rules.violation(of: password.revealed) == nil)
            seen.insert(password.revealed)
        }
        #expect(seen.count == 40)
        #expect(ui.asked.isEmpty)
        let bad = try await send(.generatePassword(GeneratePasswordRequest(serviceIdentifier: Self.example, passwordRules: "minlength: x")))
        guard case .canceled(let error) = bad else { Issue.record("\(bad)"); return }
        #expect(error.failureReason?.contains("minlength: expected a whole number") == true)
    }

    @Test(arguments: Isolated.modes)
    func anUnusedPasswordIsKeptButRankedBelowTheSitesOthers(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let report = ProviderRequest.credentialUpdate(.unusedPassword(domain: "example.com", user: "bob"))
        #expect(try await send(report, answering: [Self.unlock]) == .completed(.updateReported))
        let bob = try #require(store.allIdentities.first { $0.kind == .password && $0.displayUser == "bob" })
        #expect(bob.rank == -1)
        #expect(try await fill("bob") == Self.password("bob", "hunter2-but-longer"), "kept, still fills")
    }

    @Test(arguments: Isolated.modes)
    func webAuthnSignalsRenameAndRemoveOnlyTheAccountsPasskeys(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let first = VaultProviderPasskeyTests.request(clientDataHash: VaultProviderPasskeyTests.hash("one"))
        let second = VaultProviderPasskeyTests.request(clientDataHash: VaultProviderPasskeyTests.hash("two"))
        let other = VaultProviderPasskeyTests.request(user: "bob", handle: Array("bob-handle".utf8))
        let one = try VaultProviderPasskeyTests.registered(
            try await send(.passkeyRegistration(first), answering: [Self.unlock, .success(.confirmed(true))]), first)
        let two = try VaultProviderPasskeyTests.registered(
            try await send(.passkeyRegistration(second), answering: [.success(.confirmed(true))]), second)
        _ = try VaultProviderPasskeyTests.registered(
            try await send(.passkeyRegistration(other), answering: [.success(.confirmed(true))]), other)
        func passkeys() -> [PasskeyCredentialIdentity] {
            store.allIdentities.compactMap { if case .passkey(let passkey) = $0 { passkey } else { nil } }
        }
        #expect(passkeys().count == 3)
        let rp = VaultProviderPasskeyTests.rp, handle = VaultProviderPasskeyTests.handle

        #expect(try await send(.credentialUpdate(.passkeyUserDetails(relyingParty: rp, userHandle: handle, name: "alice@new.example",
                                                                     displayName: "Alice"))) == .completed(.updateReported))
        #expect(passkeys().filter { $0.userHandle == handle }.allSatisfy { $0.userName == "alice@new.example" })
        #expect(passkeys().contains { $0.userName == "bob" })

        #expect(try await send(.credentialUpdate(.acceptedPasskeys(relyingParty: rp, userHandle: handle,
                                                                   credentialIDs: [one.identity.credentialID]))) == .completed(.updateReported))
        #expect(!passkeys().contains { $0.credentialID == two.identity.credentialID })
        #expect(passkeys().count == 2, "bob's passkey is another account's")

        #expect(try await send(.credentialUpdate(.unknownPasskey(relyingParty: rp, credentialID: one.identity.credentialID)))
            == .completed(.updateReported))
        #expect(passkeys().map(\.userName) == ["bob"])
    }
}
