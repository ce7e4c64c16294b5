import AutofillCore
import AutofillHost
import AutofillTestSupport
import Foundation
import Testing

/// The C sample (NetrcProvider) answering through the real C ABI, in this process and in a helper.
/// The Swift samples have their own files: VaultProviderTests and AuthenticatorProviderTests.
struct NetrcProviderTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    func load(_ isolation: ProviderIsolation, _ sample: String, store: InMemoryIdentityStore = InMemoryIdentityStore(),
              settings: [String: String] = [:], ui: any ProviderUserInterface = UnavailableUserInterface()) throws -> any ProviderConnection {
        let bundle = try TestPlugins.copyOfSample(sample, into: folder.path)
        return try Isolated.load(
            bundle, services: ProviderServices(store: store, settings: settings, userInterface: ui, logger: log.logger), isolation: isolation)
    }

    static let example = ServiceIdentifier(identifier: "example.com", type: .domain)

    @Test(arguments: Isolated.modes)
    func theNetrcProviderServesPasswordsFromItsFile(isolation: ProviderIsolation) async throws {
        let netrc = "\(folder.path)/netrc"
        try Data("machine example.com login carol password s3cret\nmachine git.example.org login deploy password \"two words\"\ndefault login anon password guest\n".utf8)
            .write(to: URL(fileURLWithPath: netrc))
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, "NetrcProvider", store: store, settings: ["NetrcFile": netrc])
        #expect(store.allIdentities.map(\.displayUser) == ["carol", "deploy"])
        let deploy = PasswordCredentialIdentity(
            serviceIdentifier: .init(identifier: "git.example.org", type: .domain), user: "deploy")
        #expect(await provider.send(.credentialWithoutUserInteraction(.password(deploy)), deadline: TestDeadline.answer)
            == .completed(.password(PasswordCredential(user: "deploy", password: Secret("two words")))))
        let unknown = PasswordCredentialIdentity(serviceIdentifier: Self.example, user: "nobody")
        guard case .canceled(let error) = await provider.send(.credentialWithoutUserInteraction(.password(unknown)), deadline: TestDeadline.answer)
        else { Issue.record("expected a cancel"); return }
        #expect(error.code == .credentialIdentityNotFound)
        #expect(!(error.failureReason ?? "").contains("s3cret"))
    }

    @Test(arguments: Isolated.modes)
    func theNetrcListShowsMatchingEntriesFirst(isolation: ProviderIsolation) async throws {
        let netrc = "\(folder.path)/netrc"
        try Data("machine a.test login first password one\nmachine example.com login carol password two\n".utf8)
            .write(to: URL(fileURLWithPath: netrc))
        let ui = ScriptedUI([.success(.choice(0))])
        let provider = try load(isolation, "NetrcProvider", settings: ["NetrcFile": netrc], ui: ui)
        let outcome = await provider.send(.credentialList([.init(identifier: "https://www.example.com/x", type: .url)]), deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "carol", password: Secret("two")))))
        guard case .choose(_, let items) = ui.asked.first else { Issue.record("no list shown"); return }
        #expect(items == ["carol @ example.com", "first @ a.test"])
    }

    @Test(arguments: Isolated.modes)
    func configurationWritesTheFullIdentityListAgain(isolation: ProviderIsolation) async throws {
        let netrc = "\(folder.path)/netrc"
        try Data("machine example.com login carol password s3cret\n".utf8).write(to: URL(fileURLWithPath: netrc))
        let store = InMemoryIdentityStore()
        let ui = ScriptedUI([.success(.acknowledged)])
        let provider = try load(isolation, "NetrcProvider", store: store, settings: ["NetrcFile": netrc], ui: ui)
        try Data("machine example.com login carol password s3cret\nmachine b.test login dan password x\n".utf8)
            .write(to: URL(fileURLWithPath: netrc))
        #expect(await provider.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
        #expect(store.allIdentities.map(\.displayUser) == ["carol", "dan"])
        #expect(ui.asked == [.message(title: "Netrc", message: "Netrc serves 2 logins from its .netrc file.")])
    }
}
