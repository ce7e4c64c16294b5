import AutofillCore
import AutofillHost
import AutofillTestSupport
import Foundation
import Testing

/// VaultProvider through the real C ABI: a copy of the demo vault, the unlock prompt, and the
/// unlocked vault held in the provider's memory (one load is one provider process, as the agent
/// keeps it: a fresh load starts locked); in this process and in a helper process.
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

    /// Unlocks the vault through the UI path of `provider`, whose UI has the master password next.
    func unlockThroughTheUI(_ provider: any ProviderConnection) async {
        let outcome = await provider.send(.interfaceToProvideCredential(.password(Self.alice)), deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "alice", password: Secret(Self.alicePassword)))))
    }

    @Test(arguments: Isolated.modes)
    func aLockedVaultAnswersUserInteractionRequiredAtOnce(isolation: ProviderIsolation) async throws {
        let outcome = try await load(isolation).send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: TestDeadline.answer)
        #expect(outcome == .canceled(ExtensionError(.userInteractionRequired)))
    }

    @Test(arguments: Isolated.modes)
    func anUnlockThroughTheUIServesTheNextRequestsWithoutUI(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([Self.unlock])
        let provider = try load(isolation, ui: ui)
        #expect(await provider.send(.interfaceToProvideCredential(.password(Self.alice)), deadline: nil)
            == .completed(.password(PasswordCredential(user: "alice", password: Secret(Self.alicePassword)))))
        guard case .prompt(let title, let message, let secret, _) = ui.asked.first else { Issue.record("no prompt"); return }
        #expect(title == "Unlock Vault" && secret)
        #expect(message == "Enter the master password of \(vault.path).")

        // The same provider process, no UI: from its memory.
        let bob = PasswordCredentialIdentity(serviceIdentifier: Self.example, user: "bob", recordIdentifier: "vault-2")
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(bob)), deadline: TestDeadline.answer)
            == .completed(.password(PasswordCredential(user: "bob", password: Secret("hunter2-but-longer")))))
        let byAccount = PasswordCredentialIdentity(serviceIdentifier: Self.example, user: "bob")  // no record identifier
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(byAccount)), deadline: TestDeadline.answer)
            == .completed(.password(PasswordCredential(user: "bob", password: Secret("hunter2-but-longer")))))

        let before = try totp()
        let outcome = await provider.send(.credentialWithoutUserInteraction(.oneTimeCode(Self.code)), deadline: TestDeadline.answer)
        let after = try totp()
        guard case .completed(.oneTimeCode(let code)) = outcome else { Issue.record("no code: \(outcome)"); return }
        #expect([before, after].contains(code.revealed))

        let unknown = PasswordCredentialIdentity(serviceIdentifier: Self.example, user: "mallory", recordIdentifier: "nope")
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(unknown)), deadline: TestDeadline.answer)
            == .canceled(ExtensionError(.credentialIdentityNotFound, failureReason: "no such login in the vault")))
        #expect(ui.asked.count == 1, "one prompt in all")

        // Another provider process knows nothing of it: the unlock lives in that process's memory only.
        #expect(try await load(isolation).send(.credentialWithoutUserInteraction(.password(bob)), deadline: TestDeadline.answer)
            == .canceled(ExtensionError(.userInteractionRequired)))

        #expect(!log.all.contains { $0.contains(Self.master) || $0.contains(Self.alicePassword) || $0.contains("hunter2") || $0.contains(code.revealed) })
    }

    @Test(arguments: Isolated.modes)
    func anUnlockThroughTheConfigurationEntryPointLetsANoUIFillAnswer(isolation: ProviderIsolation) async throws {
        // What `autofill unlock org.autofill.vault` does through the agent.
        let ui = ScriptedUI([Self.unlock])
        let provider = try load(isolation, ui: ui)
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: TestDeadline.answer)
            == .canceled(ExtensionError(.userInteractionRequired)), "locked at first")
        #expect(await provider.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: TestDeadline.answer)
            == .completed(.password(PasswordCredential(user: "alice", password: Secret(Self.alicePassword)))))
        #expect(ui.asked.count == 1, "the fill asked nothing")
        #expect(log.contains("vault unlocked for 3600 s"))
    }

    @Test(arguments: Isolated.modes)
    func afterTheUnlockTimeoutANoUIFillAnswersUserInteractionRequired(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([Self.unlock])
        let provider = try load(isolation, ui: ui, settings: ["VaultFile": vault.path, "UnlockTimeoutSeconds": "1"])
        let locked = "vault locked: key zeroed, entries dropped (UnlockTimeoutSeconds passed)"
        #expect(await provider.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
        let first = await provider.send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: TestDeadline.answer)
        if first != .completed(.password(PasswordCredential(user: "alice", password: Secret(Self.alicePassword)))) {
            // Only when this machine took over a second to get here (many tests at once).
            #expect(first == .canceled(ExtensionError(.userInteractionRequired)) && log.contains(locked), "\(first)")
        }
        // No request comes: the timer locks all the same.
        try await eventually(within: 60) { log.contains(locked) }
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: TestDeadline.answer)
            == .canceled(ExtensionError(.userInteractionRequired)))
    }

    @Test(arguments: Isolated.modes)
    func aTimeoutOfZeroUnlocksForTheOneRequest(isolation: ProviderIsolation) async throws {
        let provider = try load(isolation, ui: ScriptedUI([Self.unlock]), settings: ["VaultFile": vault.path, "UnlockTimeoutSeconds": "0"])
        await unlockThroughTheUI(provider)
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: TestDeadline.answer)
            == .canceled(ExtensionError(.userInteractionRequired)))
        #expect(log.contains("vault unlocked for this request (UnlockTimeoutSeconds is 0)"))
    }

    @Test(arguments: Isolated.modes)
    func noFileForTheKeyAppearsInTheRuntimeFolder(isolation: ProviderIsolation) async throws {
        let environment = ProcessInfo.processInfo.environment
        let runtime = try #require(environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil },
                                   "run the tests with XDG_RUNTIME_DIR set (an empty temporary folder)")
        let vaultFolder = "\(runtime)/autofill/providers/org.autofill.vault"
        let before = Self.files(under: vaultFolder)
        let provider = try load(isolation, ui: ScriptedUI([Self.unlock]))
        await unlockThroughTheUI(provider)
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: TestDeadline.answer)
            == .completed(.password(PasswordCredential(user: "alice", password: Secret(Self.alicePassword)))))
        #expect(Self.files(under: vaultFolder) == before)
        #expect(before.isEmpty, "nothing of the Vault's is kept there: \(before)")
        #expect(!Self.files(under: "\(runtime)/autofill").contains { $0.hasSuffix(".session") })
    }

    @Test(arguments: Isolated.modes)
    func aVaultFileChangedOnDiskIsSeenByTheNextFillWithoutANewUnlock(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([Self.unlock])
        let provider = try load(isolation, ui: ui)
        await unlockThroughTheUI(provider)

        // autofill-vault adds a login while the provider holds the vault unlocked.
        let added = try companion(["add-password", "--service", "example.com", "--user", "carol", "--id", "vault-9"],
                                  input: "\(Self.master)\ncarol-pw-9\n")
        #expect(added.status == 0, "\(added.stderr)")

        let carol = PasswordCredentialIdentity(serviceIdentifier: Self.example, user: "carol", recordIdentifier: "vault-9")
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(carol)), deadline: TestDeadline.answer)
            == .completed(.password(PasswordCredential(user: "carol", password: Secret("carol-pw-9")))))
        #expect(ui.asked.count == 1, "no new unlock")
        #expect(log.contains("the vault file changed: read it again with the key in memory"))

        // A vault created anew at the path (a new salt): the key in memory does not fit; locked.
        try FileManager.default.removeItem(atPath: vault.path)
        let created = try companion(["create", "--scrypt-log2n", "10"], input: "\(Self.master)\n")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: TestDeadline.answer)
            == .canceled(ExtensionError(.userInteractionRequired)))
        #expect(log.contains("vault locked: key zeroed, entries dropped (the vault file has a new salt or key derivation"))
    }

    /// Runs autofill-vault on this test's vault, the master password first on standard input.
    func companion(_ arguments: [String], input: String) throws -> ChildProcess.Result {
        try ChildProcess.run(
            "\(Repository.root)/.build/debug/autofill-vault", arguments + ["--vault", vault.path, "--password-stdin"],
            environment: ["HOME": folder.path, "XDG_DATA_HOME": "\(folder.path)/data", "PATH": "/usr/bin:/bin"], input: input)
    }

    /// The regular files under `folder`, relative to it (none when it does not exist).
    static func files(under folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: "\(folder)/\(path)", isDirectory: &isFolder) && !isFolder.boolValue
        }.sorted()
    }

    /// Waits until `condition` holds, at most `seconds`.
    func eventually(within seconds: Double, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else {
                Issue.record("still not so after \(seconds) s")
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test(arguments: Isolated.modes)
    func aWrongPasswordIsSaidAndThreeFail(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([Self.wrong, Self.wrong, Self.wrong])
        let provider = try load(isolation, ui: ui)
        let outcome = await provider.send(.interfaceToProvideCredential(.password(Self.alice)), deadline: nil)
        #expect(outcome == .canceled(ExtensionError(.failed, failureReason: "wrong master password (3 attempts)")))
        let messages = ui.asked.compactMap { request -> String? in
            if case .prompt(_, let message, _, _) = request { return message }
            return nil
        }
        #expect(messages.count == 3)
        #expect(messages[1] == "That did not open the vault: wrong master password, or the vault file was changed. 2 attempts left.")
        #expect(messages[2].hasSuffix("1 attempt left."))
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: TestDeadline.answer)
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
        #expect(error.failureReason?.contains("`autofill unlock org.autofill.vault`") == true, "\(error)")
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
        let ui = ScriptedUI([Self.unlock])
        let provider = try load(isolation, ui: ui)
        await unlockThroughTheUI(provider)
        ui.script([.success(.choice(0)), .success(.choice(1))])
        let before = try totp()
        let outcome = await provider.send(.oneTimeCodeList([Self.example]), deadline: nil)
        let after = try totp()
        guard case .completed(.oneTimeCode(let code)) = outcome else { Issue.record("no code: \(outcome)"); return }
        #expect([before, after].contains(code.revealed))
        #expect(await provider.send(.textToInsert, deadline: nil)
            == .completed(.text(Secret("Thanks for reaching out; we will get back to you within a day."))))
        #expect(ui.asked.dropFirst() == [.choose(title: "Vault: choose a one-time code", items: ["alice@example.com — example.com"]),
                                         .choose(title: "Vault: choose text to insert", items: ["Postal address", "Support reply"])])
    }

    @Test(arguments: Isolated.modes)
    func identitiesArePublishedAtAnUnlockWhenTheStoreWantsThem(isolation: ProviderIsolation) async throws {
        let wiped = InMemoryIdentityStore(isEnabled: false)
        wiped.setEnabled(true)  // enabled after a wipe: waits for the full list
        let provider = try load(isolation, store: wiped, ui: ScriptedUI([Self.unlock]))
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(Self.alice)), deadline: TestDeadline.answer)
            == .canceled(ExtensionError(.userInteractionRequired)))
        #expect(wiped.allIdentities.isEmpty, "locked: nothing to publish")

        await unlockThroughTheUI(provider)
        #expect(wiped.allIdentities.map(\.displayUser) == ["alice", "bob", "alice@example.org", "alice@example.com"])
        #expect(wiped.allIdentities.map(\.recordIdentifier) == ["vault-1", "vault-2", "vault-3", "otp-1"])

        let current = InMemoryIdentityStore()  // incremental updates on: the companion keeps it current
        await unlockThroughTheUI(try load(isolation, store: current, ui: ScriptedUI([Self.unlock])))
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
    func aVaultFileThatDoesNotExistFailsItsConfigurationSayingHowToCreateIt(isolation: ProviderIsolation) async throws {
        let missing = "\(folder.path)/missing/vault.afvault"
        let ui = ScriptedUI([])
        let provider = try load(isolation, ui: ui, settings: ["VaultFile": missing])
        // No master password is asked for a file that is not there: the configuration fails, saying so once.
        guard case .canceled(let error) = await provider.send(.extensionConfiguration, deadline: nil) else {
            Issue.record("expected the configuration to fail")
            return
        }
        #expect(error.code == .failed)
        #expect(error.failureReason?.contains("the vault file \(missing) does not exist") == true, "\(error)")
        #expect(error.failureReason?.contains("autofill-vault create") == true, "\(error)")
        #expect(ui.asked.isEmpty, "nothing shown or asked: \(ui.asked)")
        guard case .canceled(let fill) = await provider.send(.interfaceToProvideCredential(.password(Self.alice)), deadline: nil) else {
            Issue.record("expected the fill to fail")
            return
        }
        #expect(fill.failureReason?.contains("does not exist") == true, "\(fill)")
        #expect(ui.asked.isEmpty, "no master password asked for a missing vault")
    }

    /// The current TOTP of the demo secret, from oathtool.
    func totp() throws -> String {
        let (status, output) = try TestPlugins.run("/usr/bin/oathtool", ["--totp", "-b", "JBSWY3DPEHPK3PXP"])
        guard status == 0 else { throw TestFailure("oathtool failed: \(output)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A private copy of the demo vault (master password `correct horse battery staple`).
final class VaultCopy: Sendable {
    let path: String

    init(in folder: String) throws {
        path = "\(folder)/vault.afvault"
        try FileManager.default.copyItem(atPath: "\(Repository.root)/Config/demo/vault/vault.afvault", toPath: path)
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
