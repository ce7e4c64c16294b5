import AutofillCore
@testable import AutofillHost
import AutofillStore
import AutofillTestSupport
import Foundation
import Logging
import Testing

/// The pass provider (Plugins/PassProvider, C against gpgme) through the real C ABI, in this process
/// and in a helper process sandboxed as users run it (the policy its Info.plist declares): a real
/// GnuPG key with a passphrase, its own gpg-agent, a store made with `pass`, the passphrase answered
/// by a scripted UI, one-time codes checked against `oathtool`.
struct PassProviderTests {
    let folder: TemporaryFolder
    let pass: PasswordStore
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
        pass = try PasswordStore()
    }

    static let totpSecret = "KRUGS4ZANFZSA43FMNZGK5BB"
    static let password = "s3cret-Passw0rd"

    var settings: [String: String] { ["PasswordStoreDir": pass.path, "GnuPGHome": pass.gnupgHome] }

    /// A fresh copy of the built provider (a new load), in `isolation`. In a helper it runs in the
    /// sandbox its Info.plist declares, computed as `autofill` computes it for a user whose home is
    /// `home` (its data folder, where it remembers decrypted entries, is beneath it).
    func load(_ isolation: ProviderIsolation, store: InMemoryIdentityStore = InMemoryIdentityStore(),
              ui: any ProviderUserInterface = UnavailableUserInterface(), settings: [String: String]? = nil,
              home: String? = nil) throws -> any ProviderConnection {
        let copies = "\(folder.path)/plugins-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
        let bundle = try TestPlugins.copyOfSample("PassProvider", into: copies)
        let settings = settings ?? self.settings
        var options = HelperOptions()
        if isolation == .helperProcess {
            options.sandbox = try policy(bundleFolder: copies, settings: settings, home: home ?? "\(folder.path)/home")
        }
        return try Isolated.load(bundle, services: ProviderServices(store: store, settings: settings, userInterface: ui, logger: log.logger),
                                 isolation: isolation, options: options)
    }

    /// The provider's real sandbox policy (``TestPlugins/sandboxPolicy(for:bundleFolder:settings:home:folder:)``).
    func policy(bundleFolder: String, settings: [String: String], home: String) throws -> SandboxPolicy {
        try TestPlugins.sandboxPolicy(for: "org.autofill.pass", bundleFolder: bundleFolder, settings: settings, home: home, folder: folder.path)
    }

    static func passwordIdentity(_ service: String, _ user: String, _ record: String) -> PasswordCredentialIdentity {
        PasswordCredentialIdentity(serviceIdentifier: .init(identifier: service, type: .domain), user: user, recordIdentifier: record)
    }

    static let passphrase: Result<UserInterfaceAnswer, UserInterfaceError> = .success(.text(Secret(PasswordStore.passphrase)))

    /// The reason of a cancel, or nil.
    static func canceled(_ outcome: ProviderOutcome) -> ExtensionError? {
        if case .canceled(let error) = outcome { return error }
        return nil
    }

    /// No captured log line holds `secrets`.
    func expectLogsClean(of secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for line in log.all {
            for secret in secrets { #expect(!line.contains(secret), "\(line)", sourceLocation: sourceLocation) }
        }
    }

    // MARK: Identities

    @Test(arguments: Isolated.modes)
    func identitiesComeFromTheStoresFileNamesWithoutDecrypting(isolation: ProviderIsolation) throws {
        try pass.insert("github.com/octocat", "\(Self.password)\n")
        try pass.insert("example.com", "\(Self.password)\nlogin: alice\n")
        try pass.insert("Email/work", "\(Self.password)\n")
        try pass.insert("websites/Shop.Example.org/bob@example.org", "\(Self.password)\n")
        let store = InMemoryIdentityStore()
        _ = try load(isolation, store: store)
        // Every entry by its name; one whose path names no site has its name as its service.
        #expect(Set(store.allIdentities) == [
            .password(Self.passwordIdentity("example.com", "", "example.com")),
            .password(Self.passwordIdentity("github.com", "octocat", "github.com/octocat")),
            .password(Self.passwordIdentity("shop.example.org", "bob@example.org", "websites/Shop.Example.org/bob@example.org")),
            .password(Self.passwordIdentity("Email/work", "", "Email/work")),
        ])
        #expect(log.contains("published 4 identities from 4 entries"))
        expectLogsClean(of: [Self.password])
    }

    // MARK: Filling

    @Test(arguments: Isolated.modes)
    func aPasswordIsFilledAfterThePassphraseIsAskedThenFromGpgAgentsCacheWithoutUI(isolation: ProviderIsolation) async throws {
        try pass.insert("github.com/octocat", "\(Self.password)\nurl: https://github.com/login\n")
        let ui = ScriptedUI([Self.passphrase])
        let provider = try load(isolation, ui: ui)
        let request = CredentialRequest.password(Self.passwordIdentity("github.com", "octocat", "github.com/octocat"))

        // Nothing cached: no UI may be shown, so the provider says it needs some.
        let locked = try #require(Self.canceled(await provider.send(.credentialWithoutUserInteraction(request), deadline: TestDeadline.answer)))
        #expect(locked.code == .userInteractionRequired)
        #expect(ui.asked.isEmpty)

        // Its UI asks the key's passphrase (a secret prompt) and hands it to gpg-agent.
        #expect(await provider.send(.interfaceToProvideCredential(request), deadline: nil)
            == .completed(.password(PasswordCredential(user: "octocat", password: Secret(Self.password)))))
        guard case .prompt(let title, let message, let secret, _) = try #require(ui.asked.first) else { Issue.record("no prompt"); return }
        #expect(title == "Unlock your GnuPG key" && secret)
        #expect(message.contains("Autofill Test <test@example.com>") && message.contains("github.com/octocat"))

        // gpg-agent cached it: the next request needs no UI.
        #expect(await provider.send(.credentialWithoutUserInteraction(request), deadline: TestDeadline.answer)
            == .completed(.password(PasswordCredential(user: "octocat", password: Secret(Self.password)))))
        #expect(ui.asked.count == 1)
        expectLogsClean(of: [Self.password, PasswordStore.passphrase])
    }

    @Test(arguments: Isolated.modes)
    func theUserLineOfAnEntryWinsOverItsFileName(isolation: ProviderIsolation) async throws {
        try pass.insert("example.com", "\(Self.password)\r\nUsername: alice@example.com\nnotes: whatever\n")
        let provider = try load(isolation, ui: ScriptedUI([Self.passphrase]))
        let outcome = await provider.send(.interfaceToProvideCredential(.password(Self.passwordIdentity("example.com", "", "example.com"))),
                                          deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "alice@example.com", password: Secret(Self.password)))))
    }

    @Test(arguments: Isolated.modes)
    func oneTimeCodesAreTheCodesOathtoolComputes(isolation: ProviderIsolation) async throws {
        try pass.insert("github.com/octocat", "\(Self.password)\notpauth://totp/GitHub:octocat?secret=\(Self.totpSecret)&issuer=GitHub\n")
        try pass.insert("bank.example", "\(Self.password)\notpauth://totp/Bank:me?secret=\(Self.totpSecret)&algorithm=SHA256&digits=8&period=60\n")
        let provider = try load(isolation, ui: ScriptedUI([Self.passphrase]))
        let github = OneTimeCodeCredentialIdentity(serviceIdentifier: .init(identifier: "github.com", type: .domain), label: "octocat",
                                                   recordIdentifier: "github.com/octocat")
        let bank = OneTimeCodeCredentialIdentity(serviceIdentifier: .init(identifier: "bank.example", type: .domain), label: "bank.example",
                                                 recordIdentifier: "bank.example")
        for (identity, arguments) in [(github, ["--totp=SHA1", "-d", "6", "-s", "30s"]), (bank, ["--totp=SHA256", "-d", "8", "-s", "60s"])] {
            let start = Date()
            let outcome = await provider.send(.interfaceToProvideCredential(.oneTimeCode(identity)), deadline: nil)
            guard case .completed(.oneTimeCode(let code)) = outcome else { Issue.record("no code: \(outcome)"); continue }
            let seconds = Int64(start.timeIntervalSince1970) - 1...Int64(Date().timeIntervalSince1970) + 1
            let expected = try Set(seconds.map { try Oathtool.run(arguments + ["-b", "--now", "@\($0)", "-"], key: Self.totpSecret) })
            #expect(expected.contains(code.revealed), "\(identity.label)")
        }
        expectLogsClean(of: [Self.totpSecret, Self.password])
    }

    @Test(arguments: Isolated.modes)
    func theListsPutTheSitesEntriesFirstAndAskThePassphraseOnce(isolation: ProviderIsolation) async throws {
        try pass.insert("a.test/first", "one\n")
        try pass.insert("github.com/octocat", "\(Self.password)\notpauth://totp/GitHub:octocat?secret=\(Self.totpSecret)\n")
        let ui = ScriptedUI([.success(.choice(0)), Self.passphrase, .success(.choice(0))])
        let provider = try load(isolation, ui: ui)
        let outcome = await provider.send(.credentialList([.init(identifier: "https://www.github.com/login", type: .url)]), deadline: nil)
        #expect(outcome == .completed(.password(PasswordCredential(user: "octocat", password: Secret(Self.password)))))
        guard case .choose(_, let items) = ui.asked.first else { Issue.record("no list shown"); return }
        #expect(items == ["github.com/octocat", "a.test/first"])

        let code = await provider.send(.oneTimeCodeList([.init(identifier: "github.com", type: .domain)]), deadline: nil)
        guard case .completed(.oneTimeCode) = code else { Issue.record("no code: \(code)"); return }
        #expect(ui.asked.count == 3, "the passphrase was cached by gpg-agent after the first fill")
    }

    @Test func whatADecryptionShowedIsRememberedWithoutSecretsAndPublished() async throws {
        try pass.insert("example.com", "\(Self.password)\nlogin: alice\nurl: https://Login.Example.com:8443/x?token=abc\notpauth://totp/Ex:alice?secret=\(Self.totpSecret)\n")
        let home = "\(folder.path)/home"
        let store = InMemoryIdentityStore()
        let provider = try load(.helperProcess, store: store, ui: ScriptedUI([Self.passphrase]), home: home)
        #expect(store.allIdentities == [.password(Self.passwordIdentity("example.com", "", "example.com"))])
        _ = await provider.send(.interfaceToProvideCredential(.password(Self.passwordIdentity("example.com", "", "example.com"))), deadline: nil)
        // Published with url:'s scheme, host, port and path (git's http is not its https, nor one
        // repository's token another's), never its query.
        let site = ServiceIdentifier(identifier: "https://login.example.com:8443/x", type: .url)
        let expected: Set<CredentialIdentity> = [
            .password(PasswordCredentialIdentity(serviceIdentifier: site, user: "alice", recordIdentifier: "example.com")),
            .oneTimeCode(OneTimeCodeCredentialIdentity(serviceIdentifier: site, label: "alice", recordIdentifier: "example.com")),
        ]
        #expect(Set(store.allIdentities) == expected)

        // The cache holds the name, the user, the URL's host, whether there is a code and the URL without
        // its user info, query and fragment: nothing secret.
        let cache = try String(contentsOfFile: "\(home)/.local/share/autofill/providers/org.autofill.pass/identities.tsv", encoding: .utf8)
        #expect(cache.contains("example.com\t") && cache.contains("\talice\tlogin.example.com\t1\thttps://login.example.com:8443/x\n"), "\(cache)")
        for secret in [Self.password, Self.totpSecret, "token", "abc", "?"] { #expect(!cache.contains(secret)) }

        // A new process publishes it at load, without decrypting; a changed entry is forgotten.
        let again = InMemoryIdentityStore()
        _ = try load(.helperProcess, store: again, home: home)
        #expect(Set(again.allIdentities) == expected)
        try pass.insert("example.com", "\(Self.password)-changed\n")
        let changed = InMemoryIdentityStore()
        _ = try load(.helperProcess, store: changed, home: home)
        #expect(changed.allIdentities == [.password(Self.passwordIdentity("example.com", "", "example.com"))])
    }

    /// The attacker's side: a url: carrying a password in its user info, a token in its fragment, or
    /// a tab and a line break (which would forge lines of the cache) is never written or published
    /// whole; the control (the same entry with a plain URL) is published with its path.
    @Test func aURLsUserInfoFragmentAndControlCharactersNeverReachTheCacheOrTheIdentities() async throws {
        let home = "\(folder.path)/home"
        for (url, published) in [("https://bob:hunter2@Git.Example.org/team/repo.git#tok3n", "https://git.example.org/team/repo.git"),
                                 ("https://git.example.org/a\tforged\t1", nil), ("https://git.example.org/team/repo.git", "https://git.example.org/team/repo.git")] {
            try pass.insert("example.org", "\(Self.password)\nlogin: bob\nurl: \(url)\n")
            let store = InMemoryIdentityStore()
            let provider = try load(.helperProcess, store: store, ui: ScriptedUI([Self.passphrase]), home: home)
            _ = await provider.send(.interfaceToProvideCredential(.password(Self.passwordIdentity("example.org", "", "example.org"))), deadline: nil)
            let site = published.map { ServiceIdentifier(identifier: $0, type: .url) } ?? .init(identifier: "git.example.org", type: .domain)
            #expect(store.allIdentities == [.password(PasswordCredentialIdentity(serviceIdentifier: site, user: "bob", recordIdentifier: "example.org"))])
            let cache = try String(contentsOfFile: "\(home)/.local/share/autofill/providers/org.autofill.pass/identities.tsv", encoding: .utf8)
            for secret in ["hunter2", "tok3n", "forged", Self.password] { #expect(!cache.contains(secret), "\(cache)") }
        }
    }

    // MARK: Errors, each naming the entry and never its contents

    @Test(arguments: Isolated.modes)
    func aWrongPassphraseIsAskedAgainThenRefusedNamingTheEntry(isolation: ProviderIsolation) async throws {
        try pass.insert("github.com/octocat", "\(Self.password)\n")
        let wrong: Result<UserInterfaceAnswer, UserInterfaceError> = .success(.text(Secret("not it")))
        let ui = ScriptedUI([wrong, wrong, wrong])
        let provider = try load(isolation, ui: ui)
        let error = try #require(Self.canceled(await provider.send(
            .interfaceToProvideCredential(.password(Self.passwordIdentity("github.com", "octocat", "github.com/octocat"))), deadline: nil)))
        #expect(error.code == .failed)
        #expect(error.failureReason == "cannot decrypt github.com/octocat: wrong passphrase (3 tries)")
        #expect(ui.asked.count == 3)
        guard case .prompt(_, let message, _, _) = ui.asked.last else { Issue.record("no prompt"); return }
        #expect(message.hasPrefix("Wrong passphrase; try again. Passphrase of the GnuPG key"))
    }

    @Test(arguments: Isolated.modes)
    func anEntryEncryptedToAnotherKeyIsRefusedNamingTheKey(isolation: ProviderIsolation) async throws {
        try pass.encrypt(Data("\(Self.password)\n".utf8), as: "other.example", publicKey: PasswordStore.otherPublicKey())
        let provider = try load(isolation, ui: ScriptedUI([Self.passphrase]))
        let error = try #require(Self.canceled(await provider.send(
            .interfaceToProvideCredential(.password(Self.passwordIdentity("other.example", "", "other.example"))), deadline: nil)))
        let reason = try #require(error.failureReason)
        #expect(reason.hasPrefix("cannot decrypt other.example: it is encrypted to 0x"), "\(reason)")
        #expect(reason.hasSuffix("whose secret key is not in the GnuPG home \(pass.gnupgHome)"), "\(reason)")
    }

    @Test(arguments: Isolated.modes)
    func anEntryThatIsNotUTF8IsRefusedWithoutQuotingIt(isolation: ProviderIsolation) async throws {
        try pass.encrypt(Data([0x73, 0x33, 0xFF, 0xFE, 0x63, 0x0A]), as: "binary.example")
        let provider = try load(isolation, ui: ScriptedUI([Self.passphrase]))
        let error = try #require(Self.canceled(await provider.send(
            .interfaceToProvideCredential(.password(Self.passwordIdentity("binary.example", "", "binary.example"))), deadline: nil)))
        #expect(error.failureReason == "binary.example is not UTF-8 text; autofill fills only text entries")
    }

    @Test(arguments: Isolated.modes)
    func anEmptyOrMissingStoreSaysSo(isolation: ProviderIsolation) async throws {
        let provider = try load(isolation, ui: ScriptedUI([]))
        let empty = try #require(Self.canceled(await provider.send(.credentialList([]), deadline: nil)))
        #expect(empty.failureReason == "the password store \(pass.path) is empty: it has no .gpg entries")
        let missing = "\(folder.path)/no-store"
        let other = try load(isolation, ui: ScriptedUI([]), settings: ["PasswordStoreDir": missing, "GnuPGHome": pass.gnupgHome])
        let none = try #require(Self.canceled(await other.send(.credentialList([]), deadline: nil)))
        #expect(none.failureReason == "there is no password store at \(missing) (run `pass init`, or set PasswordStoreDir)")
    }

    @Test(arguments: Isolated.modes)
    func anEntryWithoutACodeOrAPasswordSaysWhichAndAMissingOneIsNotFound(isolation: ProviderIsolation) async throws {
        try pass.insert("example.com", "\nlogin: alice\n")
        let provider = try load(isolation, ui: ScriptedUI([Self.passphrase]))
        let noPassword = try #require(Self.canceled(await provider.send(
            .interfaceToProvideCredential(.password(Self.passwordIdentity("example.com", "", "example.com"))), deadline: nil)))
        #expect(noPassword.failureReason == "example.com has no password: its first line is empty")
        let noCode = try #require(Self.canceled(await provider.send(.interfaceToProvideCredential(.oneTimeCode(
            OneTimeCodeCredentialIdentity(serviceIdentifier: .init(identifier: "example.com", type: .domain), label: "alice",
                                          recordIdentifier: "example.com"))), deadline: nil)))
        #expect(noCode.failureReason == "no one-time code in example.com: it has no otpauth:// line (add one with pass otp)")
        let gone = try #require(Self.canceled(await provider.send(
            .credentialWithoutUserInteraction(.password(Self.passwordIdentity("gone.example", "", "gone.example"))), deadline: TestDeadline.answer)))
        #expect(gone.code == .credentialIdentityNotFound)
    }

    /// Without an agent, gpg would try to start one (which the sandbox forbids) and wait for it for
    /// seconds, past the no-UI deadline: the provider checks first and says so at once.
    @Test(arguments: Isolated.modes)
    func withoutGpgAgentTheProviderSaysHowToStartIt(isolation: ProviderIsolation) async throws {
        try pass.insert("github.com/octocat", "\(Self.password)\n")
        pass.stopAgent()
        let provider = try load(isolation, ui: ScriptedUI([]))
        let error = try #require(Self.canceled(await provider.send(
            .credentialWithoutUserInteraction(.password(Self.passwordIdentity("github.com", "octocat", "github.com/octocat"))),
            deadline: TestDeadline.answer)))
        #expect(error.failureReason?.contains("gpg-agent is not running for the GnuPG home \(pass.gnupgHome)") == true, "\(error)")
    }
}
