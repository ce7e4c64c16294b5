import AutofillCore
import AutofillHost
import Foundation
import Testing

/// The three sample providers answering through the real C ABI.
struct SamplePluginTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    func load(_ sample: String, store: InMemoryIdentityStore = InMemoryIdentityStore(), settings: [String: String] = [:],
              ui: any ProviderUserInterface = UnavailableUserInterface()) throws -> InProcessConnection {
        let bundle = try TestPlugins.copyOfSample(sample, into: folder.path)
        return try PluginLoader.load(
            bundle: bundle, services: ProviderServices(store: store, settings: settings, userInterface: ui, logger: log.logger))
    }

    static let example = ServiceIdentifier(identifier: "example.com", type: .domain)

    @Test func theVaultPublishesItsIdentitiesAndServesAPasswordWithoutUI() async throws {
        let store = InMemoryIdentityStore()
        let vault = try load("VaultProvider", store: store)
        #expect(store.allIdentities.map(\.displayUser) == ["alice", "bob", "alice@example.org"])
        let identity = PasswordCredentialIdentity(serviceIdentifier: Self.example, user: "alice", recordIdentifier: "vault-1")
        let outcome = await vault.send(.credentialWithoutUserInteraction(.password(identity)), deadline: .seconds(3))
        #expect(outcome == .completed(.password(PasswordCredential(user: "alice", password: Secret("correct horse battery staple")))))
    }

    @Test func theVaultAnswersAnUnknownIdentityWithCredentialIdentityNotFound() async throws {
        let identity = PasswordCredentialIdentity(serviceIdentifier: Self.example, user: "mallory", recordIdentifier: "nope")
        let outcome = try await load("VaultProvider").send(.credentialWithoutUserInteraction(.password(identity)), deadline: .seconds(3))
        #expect(outcome == .canceled(ExtensionError(.credentialIdentityNotFound, failureReason: "no such login in the vault")))
    }

    @Test func theVaultListPutsMatchingLoginsFirstAndTextAndConfigurationWork() async throws {
        let ui = ScriptedUI([.success(.choice(0)), .success(.choice(1)), .success(.acknowledged)])
        let vault = try load("VaultProvider", ui: ui)
        let service = ServiceIdentifier(identifier: "https://accounts.example.org/login", type: .url)
        #expect(await vault.send(.credentialList([service]), deadline: nil)
            == .completed(.password(PasswordCredential(user: "alice@example.org", password: Secret("tr0ub4dor&3")))))
        guard case .choose(_, let items) = ui.asked.first else { Issue.record("no list shown"); return }
        #expect(items.first == "alice@example.org — https://accounts.example.org/login")
        #expect(await vault.send(.textToInsert, deadline: nil)
            == .completed(.text(Secret("Thanks for reaching out; we will get back to you within a day."))))
        #expect(await vault.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
    }

    @Test func theNetrcProviderServesPasswordsFromItsFile() async throws {
        let netrc = "\(folder.path)/netrc"
        try Data("machine example.com login carol password s3cret\nmachine git.example.org login deploy password \"two words\"\ndefault login anon password guest\n".utf8)
            .write(to: URL(fileURLWithPath: netrc))
        let store = InMemoryIdentityStore()
        let provider = try load("NetrcProvider", store: store, settings: ["NetrcFile": netrc])
        #expect(store.allIdentities.map(\.displayUser) == ["carol", "deploy"])
        let deploy = PasswordCredentialIdentity(
            serviceIdentifier: .init(identifier: "git.example.org", type: .domain), user: "deploy")
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(deploy)), deadline: .seconds(3))
            == .completed(.password(PasswordCredential(user: "deploy", password: Secret("two words")))))
        let unknown = PasswordCredentialIdentity(serviceIdentifier: Self.example, user: "nobody")
        guard case .canceled(let error) = await provider.send(.credentialWithoutUserInteraction(.password(unknown)), deadline: .seconds(3))
        else { Issue.record("expected a cancel"); return }
        #expect(error.code == .credentialIdentityNotFound)
        #expect(!(error.failureReason ?? "").contains("s3cret"))
    }

    @Test func theNetrcListShowsMatchingEntriesFirst() async throws {
        let netrc = "\(folder.path)/netrc"
        try Data("machine a.test login first password one\nmachine example.com login carol password two\n".utf8)
            .write(to: URL(fileURLWithPath: netrc))
        let ui = ScriptedUI([.success(.choice(0))])
        let provider = try load("NetrcProvider", settings: ["NetrcFile": netrc], ui: ui)
        let outcome = await provider.send(.credentialList([.init(identifier: "https://www.example.com/x", type: .url)]), deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "carol", password: Secret("two")))))
        guard case .choose(_, let items) = ui.asked.first else { Issue.record("no list shown"); return }
        #expect(items == ["carol @ example.com", "first @ a.test"])
    }

    @Test func theAuthenticatorPublishesOneTimeCodeIdentitiesFromItsFile() throws {
        let file = "\(folder.path)/otpauth.txt"
        try Data("otpauth://totp/Example:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example&af_domain=example.com\n".utf8)
            .write(to: URL(fileURLWithPath: file))
        let store = InMemoryIdentityStore()
        _ = try load("AuthenticatorProvider", store: store, settings: ["OTPAuthFile": file])
        #expect(store.allIdentities == [.oneTimeCode(.init(
            serviceIdentifier: .init(identifier: "example.com", type: .domain), label: "Example:alice@example.com",
            recordIdentifier: "otp-1"))])
    }
}
