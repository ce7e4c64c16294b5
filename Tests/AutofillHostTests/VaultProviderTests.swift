import AutofillCore
import AutofillHost
import Foundation
import Testing

/// VaultProvider through the real C ABI: a copy of the demo vault, the session cache shared by
/// separate loads (as separate autofill processes share it), and the unlock prompt; in this process
/// and in a helper process.
struct VaultProviderTests {
    let folder: TemporaryFolder
    let vault: VaultCopy
    let log = LogCapture()

    static let master = "correct horse battery staple"
    static let alicePassword = "alice-demo-password"
    static let example = ServiceIdentifier(identifier: "example.com", type: .domain)
    static let alice = PasswordCredentialIdentity(serviceIdentifier: example, user: "alice", recordIdentifier: "vault-1", rank: 2)
    static let code = OneTimeCodeCredentialIdentity(serviceIdentifier: example, label: "alice@example.com", recordIdentifier: "otp-1")
    static let unlock = Result<UserInterfaceAnswer, UserInterfaceError>.success(.text(Secret(master)))
    static let wrong = Result<UserInterfaceAnswer, UserInterfaceError>.success(.text(Secret("wrong horse")))

    init() throws {
        folder = try TemporaryFolder()
        vault = try VaultCopy(in: folder.path)
    }

    /// Loads a fresh copy of the built bundle (a new file, so a new load with fresh globals).
    func load(_ isolation: ProviderIsolation, store: InMemoryIdentityStore = InMemoryIdentityStore(),
              ui: any ProviderUserInterface = UnavailableUserInterface(), settings: [String: String]? = nil) throws -> any ProviderConnection {
        try vault.load(in: folder, store: store, ui: ui, settings: settings, log: log, isolation: isolation)
    }

    /// Unlocks the vault through the UI path of a load of its own.
    func unlockThroughTheUI(_ isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation, ui: ScriptedUI([Self.unlock])).send(.interfaceToProvideCredential(.password(Self.alice)), deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "alice", password: Secret(Self.alicePassword)))))
    }

    @Test(arguments: Isolated.modes)
    func aLockedVaultAnswersUserInteractionRequiredAtOnce(isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation).send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: .seconds(3))
        #expect(outcome == .canceled(ExtensionError(.userInteractionRequired)))
    }

    @Test(arguments: Isolated.modes)
    func anUnlockThroughTheUIServesTheNextLoadWithoutUI(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([Self.unlock])
        let first = try load(isolation, ui: ui)
        #expect(await first.send(.interfaceToProvideCredential(.password(Self.alice)), deadline: nil)
            == .completed(.password(PasswordCredential(user: "alice", password: Secret(Self.alicePassword)))))
        guard case .prompt(let title, let message, let secret, _) = ui.asked.first else { Issue.record("no prompt"); return }
        #expect(title == "Unlock Vault" && secret)
        #expect(message == "Enter the master password of \(vault.path).")

        // Another process, in effect: a fresh load of another copy, no UI at all.
        let second = try load(isolation)
        let bob = PasswordCredentialIdentity(serviceIdentifier: Self.example, user: "bob", recordIdentifier: "vault-2")
        #expect(await second.send(.credentialWithoutUserInteraction(.password(bob)), deadline: .seconds(3))
            == .completed(.password(PasswordCredential(user: "bob", password: Secret("hunter2-but-longer")))))

        let before = try totp()
        let outcome = await second.send(.credentialWithoutUserInteraction(.oneTimeCode(Self.code)), deadline: .seconds(3))
        let after = try totp()
        guard case .completed(.oneTimeCode(let code)) = outcome else { Issue.record("no code: \(outcome)"); return }
        #expect([before, after].contains(code.revealed))

        let unknown = PasswordCredentialIdentity(serviceIdentifier: Self.example, user: "mallory", recordIdentifier: "nope")
        #expect(await second.send(.credentialWithoutUserInteraction(.password(unknown)), deadline: .seconds(3))
            == .canceled(ExtensionError(.credentialIdentityNotFound, failureReason: "no such login in the vault")))

        #expect(!log.all.contains { $0.contains(Self.master) || $0.contains(Self.alicePassword) || $0.contains("hunter2") || $0.contains(code.revealed) })
    }

    @Test(arguments: Isolated.modes)
    func aWrongPasswordIsSaidAndThreeFail(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([Self.wrong, Self.wrong, Self.wrong])
        let outcome = try await load(isolation, ui: ui).send(.interfaceToProvideCredential(.password(Self.alice)), deadline: nil)
        #expect(outcome == .canceled(ExtensionError(.failed, failureReason: "wrong master password (3 attempts)")))
        let messages = ui.asked.compactMap { request -> String? in
            if case .prompt(_, let message, _, _) = request { return message }
            return nil
        }
        #expect(messages.count == 3)
        #expect(messages[1] == "That did not open the vault: wrong master password, or the vault file was changed. 2 attempts left.")
        #expect(messages[2].hasSuffix("1 attempt left."))
        #expect(try await load(isolation).send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: .seconds(3))
            == .canceled(ExtensionError(.userInteractionRequired)), "still locked")
    }

    @Test(arguments: Isolated.modes)
    func aWrongPasswordThenTheRightOneUnlocks(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([Self.wrong, Self.unlock])
        #expect(try await load(isolation, ui: ui).send(.interfaceToProvideCredential(.password(Self.alice)), deadline: nil)
            == .completed(.password(PasswordCredential(user: "alice", password: Secret(Self.alicePassword)))))
        #expect(ui.asked.count == 2)
    }

    @Test(arguments: Isolated.modes)
    func cancellingThePromptIsUserCanceled(isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation, ui: ScriptedUI([.failure(.canceled)]))
            .send(.interfaceToProvideCredential(.password(Self.alice)), deadline: nil)
        #expect(outcome == .canceled(ExtensionError(.userCanceled)))
    }

    @Test(arguments: Isolated.modes)
    func withoutAnyUIThePromptFailsPointingToTheTerminal(isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation).send(.interfaceToProvideCredential(.password(Self.alice)), deadline: nil)
        guard case .canceled(let error) = outcome else { Issue.record("expected a cancel: \(outcome)"); return }
        #expect(error.code == .failed)
        #expect(error.failureReason?.contains("autofill-vault unlock --vault \(vault.path)") == true)
    }

    @Test(arguments: Isolated.modes)
    func theLoginListPutsMatchingLoginsFirst(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([Self.unlock, .success(.choice(0))])
        let service = ServiceIdentifier(identifier: "https://accounts.example.org/login", type: .url)
        #expect(try await load(isolation, ui: ui).send(.credentialList([service]), deadline: nil)
            == .completed(.password(PasswordCredential(user: "alice@example.org", password: Secret("tr0ub4dor&3")))))
        guard case .choose(_, let items) = ui.asked.last else { Issue.record("no list shown"); return }
        #expect(items == ["alice@example.org — https://accounts.example.org/login", "alice — example.com", "bob — example.com"])
    }

    @Test(arguments: Isolated.modes)
    func theCodeListAndTheTextListServeFromTheVault(isolation: ProviderIsolation) async throws {
        try await unlockThroughTheUI(isolation)
        let ui = ScriptedUI([.success(.choice(0)), .success(.choice(1))])
        let provider = try load(isolation, ui: ui)
        let before = try totp()
        let outcome = await provider.send(.oneTimeCodeList([Self.example]), deadline: nil)
        let after = try totp()
        guard case .completed(.oneTimeCode(let code)) = outcome else { Issue.record("no code: \(outcome)"); return }
        #expect([before, after].contains(code.revealed))
        #expect(await provider.send(.textToInsert, deadline: nil)
            == .completed(.text(Secret("Thanks for reaching out; we will get back to you within a day."))))
        #expect(ui.asked == [.choose(title: "Vault: choose a one-time code", items: ["alice@example.com — example.com"]),
                             .choose(title: "Vault: choose text to insert", items: ["Postal address", "Support reply"])])
    }

    @Test(arguments: Isolated.modes)
    func identitiesArePublishedAtLoadWhenUnlockedAndTheStoreWantsThem(isolation: ProviderIsolation) async throws {
        let wiped = InMemoryIdentityStore(isEnabled: false)
        wiped.setEnabled(true)  // enabled after a wipe: waits for the full list
        _ = try load(isolation, store: wiped)
        #expect(wiped.allIdentities.isEmpty, "locked: nothing to publish")

        try await unlockThroughTheUI(isolation)
        _ = try load(isolation, store: wiped)
        #expect(wiped.allIdentities.map(\.displayUser) == ["alice", "bob", "alice@example.org", "alice@example.com"])
        #expect(wiped.allIdentities.map(\.recordIdentifier) == ["vault-1", "vault-2", "vault-3", "otp-1"])

        let current = InMemoryIdentityStore()  // incremental updates on: the companion keeps it current
        _ = try load(isolation, store: current)
        #expect(current.allIdentities.isEmpty)
    }

    @Test(arguments: Isolated.modes)
    func configurationUnlocksAndPublishesTheFullList(isolation: ProviderIsolation) async throws {
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, store: store, ui: ScriptedUI([Self.unlock]))
        #expect(await provider.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
        #expect(store.allIdentities.count == 4)
    }

    @Test(arguments: Isolated.modes)
    func withoutAVaultFileTheProviderLoadsExplainsAndServesNothing(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([.success(.acknowledged)])
        let provider = try load(isolation, ui: ui, settings: [:])
        #expect(log.contains("no VaultFile setting"))
        guard case .canceled(let error) = await provider.send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: .seconds(3))
        else { Issue.record("expected a cancel"); return }
        #expect(error.code == .failed)
        #expect(await provider.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
        guard case .message(_, let message) = ui.asked.first else { Issue.record("no message shown"); return }
        #expect(message.contains("autofill-vault create"))
    }

    /// The current TOTP of the demo secret, from oathtool.
    func totp() throws -> String {
        let (status, output) = try TestPlugins.run("/usr/bin/oathtool", ["--totp", "-b", "JBSWY3DPEHPK3PXP"])
        guard status == 0 else { throw TestFailure("oathtool failed: \(output)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A private copy of the demo vault (master password `correct horse battery staple`); its
/// unlocked session is ended (`autofill-vault lock`) when the test is done.
final class VaultCopy: Sendable {
    let path: String

    init(in folder: String) throws {
        path = "\(folder)/vault.afvault"
        try FileManager.default.copyItem(atPath: "\(Repository.root)/Config/demo/vault/vault.afvault", toPath: path)
    }

    deinit {
        _ = try? TestPlugins.run("\(Repository.root)/.build/debug/autofill-vault", ["lock", "--vault", path])
    }

    /// Loads a fresh copy of the built VaultProvider bundle in `folder` (a new file, so a new load
    /// with fresh globals, as another autofill process would), serving this vault by default.
    func load(
        in folder: TemporaryFolder, store: InMemoryIdentityStore = InMemoryIdentityStore(),
        ui: any ProviderUserInterface = UnavailableUserInterface(), settings: [String: String]? = nil, log: LogCapture,
        isolation: ProviderIsolation = .inProcess
    ) throws -> any ProviderConnection {
        let copies = "\(folder.path)/load-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
        let bundle = try TestPlugins.copyOfSample("VaultProvider", into: copies)
        return try Isolated.load(bundle, services: ProviderServices(
            store: store, settings: settings ?? ["VaultFile": path, "UnlockTimeoutSeconds": "3600"], userInterface: ui,
            logger: log.logger), isolation: isolation)
    }
}
