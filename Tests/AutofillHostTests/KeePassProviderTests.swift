import AutofillCore
@testable import AutofillHost
import AutofillStore
import AutofillTestSupport
import AutofillWebAuthn
import Crypto
import Foundation
import Logging
import Testing

/// The KeePassXC provider (Plugins/KeePassProvider) through the real C ABI, in this process and in a
/// helper process sandboxed as users run it: databases made by the real keepassxc-cli, the master
/// password answered by a scripted UI, one-time codes checked against `oathtool`.
@Suite(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
struct KeePassProviderTests {
    let folder: TemporaryFolder
    let log = LogCapture()
    let database: String

    static let masterPassword = "correct horse battery"
    static let totpSecret = "JBSWY3DPEHPK3PXP"
    static let legacySeed = "GEZDGNBVGY3TQOJQ"

    init() throws {
        folder = try TemporaryFolder("keepass")
        database = "\(folder.path)/db/passwords.kdbx"
        try FileManager.default.createDirectory(atPath: "\(folder.path)/db", withIntermediateDirectories: true)
        let xml = KeePassXML(entries: [
            .init(title: "Example", user: "alice", password: "ex-P4ss", url: "https://example.com/login",
                  fields: ["KP2A_URL": "https://accounts.example.net", "otp": "otpauth://totp/Example:alice?secret=\(Self.totpSecret)&issuer=Example"]),
            .init(title: "Legacy", user: "bob", password: "legacy-P4ss", url: "legacy.example.org",
                  fields: ["TOTP Seed": Self.legacySeed, "TOTP Settings": "30;8"]),
            .init(title: "Expired", user: "carol", password: "old-P4ss", url: "https://old.example.com", expiry: Date(timeIntervalSince1970: 1_577_836_800)),
        ], recycled: [.init(title: "Deleted", user: "dave", password: "deleted-P4ss", url: "https://deleted.example.com")])
        try KeePassXC.importXML(try folder.file("import.xml", xml.text), to: database, key: KeePassXC.Key(password: Self.masterPassword))
    }

    /// The database, unlocked for a day: a test's task may wait minutes for a thread of a busy run's
    /// shared pool between two requests, and the default 300 s must not run out in between.
    var settings: [String: String] { ["DatabaseFile": database, "UnlockTimeoutSeconds": "86400"] }

    /// A fresh copy of the built provider in `isolation`; in a helper, sandboxed by its Info.plist.
    func load(_ isolation: ProviderIsolation, store: InMemoryIdentityStore = InMemoryIdentityStore(),
              ui: any ProviderUserInterface = UnavailableUserInterface(), settings: [String: String]? = nil) throws -> any ProviderConnection {
        let copies = "\(folder.path)/plugins-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
        let bundle = try TestPlugins.copyOfSample("KeePassProvider", into: copies)
        let settings = settings ?? self.settings
        var options = HelperOptions()
        if isolation == .helperProcess {
            options.sandbox = try policy(bundleFolder: copies, settings: settings, home: "\(folder.path)/home")
        }
        return try Isolated.load(bundle, services: ProviderServices(store: store, settings: settings, userInterface: ui, logger: log.logger),
                                 isolation: isolation, options: options)
    }

    /// The provider's real sandbox policy (``TestPlugins/sandboxPolicy(for:bundleFolder:settings:home:folder:)``).
    func policy(bundleFolder: String, settings: [String: String], home: String) throws -> SandboxPolicy {
        try TestPlugins.sandboxPolicy(for: "org.autofill.keepassxc", bundleFolder: bundleFolder, settings: settings, home: home, folder: folder.path)
    }

    static let typedPassword: Result<UserInterfaceAnswer, UserInterfaceError> = .success(.text(Secret(masterPassword)))

    static func canceled(_ outcome: ProviderOutcome) -> ExtensionError? {
        if case .canceled(let error) = outcome { return error }
        return nil
    }

    /// The password identity the provider published for `user`.
    static func identity(_ store: InMemoryIdentityStore, user: String) throws -> PasswordCredentialIdentity {
        let found = store.allIdentities.compactMap { identity -> PasswordCredentialIdentity? in
            if case .password(let password) = identity, password.user == user { return password }
            return nil
        }
        return try #require(found.first)
    }

    /// No captured log line holds `secrets`.
    func expectLogsClean(sourceLocation: SourceLocation = #_sourceLocation) {
        for line in log.all {
            for secret in [Self.masterPassword, Self.totpSecret, Self.legacySeed, "ex-P4ss", "legacy-P4ss", "old-P4ss", "deleted-P4ss"] {
                #expect(!line.contains(secret), "\(line)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: Isolated.modes)
    func nothingIsPublishedUntilTheFirstUnlockThenEveryURLOfEveryOfferedEntry(isolation: ProviderIsolation) async throws {
        let store = InMemoryIdentityStore()
        let ui = ScriptedUI([Self.typedPassword])
        let provider = try load(isolation, store: store, ui: ui)
        #expect(store.allIdentities.isEmpty)
        #expect(await provider.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
        let services = Set(store.allIdentities.compactMap { identity -> String? in
            if case .password(let password) = identity { return password.serviceIdentifier.identifier }
            return nil
        })
        #expect(services == ["https://example.com/login", "https://accounts.example.net", "legacy.example.org", "https://old.example.com"])
        #expect(store.allIdentities.filter { $0.kind == .oneTimeCode }.count == 3)  // two URLs of Example, one of Legacy
        #expect(!store.allIdentities.contains { $0.displayUser == "dave" })  // in the recycle bin
        #expect(try Self.identity(store, user: "carol").rank < Self.identity(store, user: "alice").rank)  // expired: last
        expectLogsClean()
    }

    @Test(arguments: Isolated.modes)
    func aPasswordNeedsAnUnlockThenFillsWithoutUIWhileUnlocked(isolation: ProviderIsolation) async throws {
        let store = InMemoryIdentityStore()
        let ui = ScriptedUI([.success(.text(Secret("wrong"))), Self.typedPassword])
        let provider = try load(isolation, store: store, ui: ui)
        #expect(await provider.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
        #expect(ui.asked.count == 2)  // a wrong password, then the right one
        let request = CredentialRequest.password(try Self.identity(store, user: "alice"))
        #expect(await provider.send(.credentialWithoutUserInteraction(request), deadline: TestDeadline.answer)
            == .completed(.password(PasswordCredential(user: "alice", password: Secret("ex-P4ss")))))
        #expect(ui.asked.count == 2)
        expectLogsClean()
    }

    @Test(arguments: Isolated.modes)
    func lockedWithoutUIAsksForInteractionAndTheUnlockPromptFills(isolation: ProviderIsolation) async throws {
        let store = InMemoryIdentityStore()
        let first = try load(isolation, store: store, ui: ScriptedUI([Self.typedPassword]))
        #expect(await first.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
        let request = CredentialRequest.password(try Self.identity(store, user: "bob"))
        // A new process: locked again, identities still published.
        let ui = ScriptedUI([Self.typedPassword])
        let provider = try load(isolation, store: store, ui: ui)
        let locked = try #require(Self.canceled(await provider.send(.credentialWithoutUserInteraction(request), deadline: TestDeadline.answer)))
        #expect(locked.code == .userInteractionRequired)
        #expect(await provider.send(.interfaceToProvideCredential(request), deadline: nil)
            == .completed(.password(PasswordCredential(user: "bob", password: Secret("legacy-P4ss")))))
        guard case .prompt(let title, let message, let secret, _) = try #require(ui.asked.first) else { Issue.record("no prompt"); return }
        #expect(title == "Unlock KeePassXC" && secret && message.contains(database))
    }

    @Test(arguments: Isolated.modes)
    func oneTimeCodesFromOtpAndTheLegacySeedMatchOathtool(isolation: ProviderIsolation) async throws {
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, store: store, ui: ScriptedUI([Self.typedPassword]))
        #expect(await provider.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
        for (label, arguments, key) in [("alice", ["--totp", "-b", "-"], Self.totpSecret), ("bob", ["--totp", "-b", "-d", "8", "-"], Self.legacySeed)] {
            let identity = try #require(store.allIdentities.compactMap { identity -> OneTimeCodeCredentialIdentity? in
                if case .oneTimeCode(let code) = identity, code.label == label { return code }
                return nil
            }.first)
            let before = try Oathtool.run(arguments, key: key)
            let outcome = await provider.send(.credentialWithoutUserInteraction(.oneTimeCode(identity)), deadline: TestDeadline.answer)
            let after = try Oathtool.run(arguments, key: key)
            guard case .completed(.oneTimeCode(let code)) = outcome else { Issue.record("no code: \(outcome)"); continue }
            #expect(code.revealed == before || code.revealed == after, "\(label)")
        }
        expectLogsClean()
    }

    @Test(arguments: Isolated.modes)
    func theListMarksExpiredEntriesAndLeavesTheRecycleBinOut(isolation: ProviderIsolation) async throws {
        let ui = ScriptedUI([Self.typedPassword, .success(.choice(2))])
        let provider = try load(isolation, ui: ui)
        let outcome = await provider.send(.credentialList([ServiceIdentifier(identifier: "old.example.com", type: .domain)]), deadline: nil)
        guard case .choose(_, let items) = try #require(ui.asked.last) else { Issue.record("no list"); return }
        #expect(items.count == 3)
        #expect(items[0].hasPrefix("carol") && items[0].hasSuffix("[expired]"), "\(items)")  // the matching entry first
        #expect(!items.contains { $0.contains("dave") })
        #expect(outcome == .completed(.password(PasswordCredential(user: "bob", password: Secret("legacy-P4ss")))))
    }

    @Test(arguments: Isolated.modes)
    func aWrongPasswordThreeTimesFailsWithoutNamingAnyContents(isolation: ProviderIsolation) async throws {
        let wrong: Result<UserInterfaceAnswer, UserInterfaceError> = .success(.text(Secret("nope")))
        let provider = try load(isolation, ui: ScriptedUI([wrong, wrong, wrong]))
        let outcome = await provider.send(.extensionConfiguration, deadline: nil)
        let error = try #require(Self.canceled(outcome))
        #expect(error.failureReason == "wrong master password or key file (3 attempts)")
        expectLogsClean()
    }

    @Test(arguments: Isolated.modes)
    func aDamagedDatabaseIsNamedAsSuch(isolation: ProviderIsolation) async throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: database)))
        bytes[bytes.count - 100] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: database))
        let provider = try load(isolation, ui: ScriptedUI([Self.typedPassword]))
        let error = try #require(Self.canceled(await provider.send(.extensionConfiguration, deadline: nil)))
        #expect(error.failureReason?.contains("fails its HMAC") == true)
        expectLogsClean()
    }

    @Test(arguments: Isolated.modes)
    func aStoredPasskeyIsPublishedAndSignsOnlyWithTheUserVerificationItAsks(isolation: ProviderIsolation) async throws {
        let key = P256.Signing.PrivateKey()
        let credentialID: [UInt8] = Array(0..<32)
        let xml = KeePassXML(entries: [.init(title: "Passkey", user: "", password: "", url: "", fields: [
            "KPEX_PASSKEY_CREDENTIAL_ID": Base64URL.encode(credentialID), "KPEX_PASSKEY_PRIVATE_KEY_PEM": key.pemRepresentation,
            "KPEX_PASSKEY_RELYING_PARTY": "example.com", "KPEX_PASSKEY_USERNAME": "erin", "KPEX_PASSKEY_USER_HANDLE": Base64URL.encode([7, 7]),
        ])])
        try FileManager.default.removeItem(atPath: database)
        try KeePassXC.importXML(try folder.file("passkey.xml", xml.text), to: database, key: KeePassXC.Key(password: Self.masterPassword))
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, store: store, ui: ScriptedUI([Self.typedPassword]))
        #expect(await provider.send(.extensionConfiguration, deadline: nil) == .completed(.configurationCompleted))
        guard case .passkey(let identity) = try #require(store.allIdentities.first) else { Issue.record("no passkey identity"); return }
        #expect(identity.userName == "erin" && identity.credentialID == credentialID && identity.userHandle == [7, 7])

        let hash = Array(SHA256.hash(data: Array("client data".utf8)))
        var parameters = PasskeyParameters(relyingParty: "example.com", clientDataHash: hash, userVerification: .required)
        let unverified = await provider.send(.credentialWithoutUserInteraction(.passkeyAssertion(identity, parameters)), deadline: TestDeadline.answer)
        #expect(Self.canceled(unverified)?.code == .userInteractionRequired)

        parameters.hostUserPresent = true
        parameters.hostUserVerified = true
        let outcome = await provider.send(.credentialWithoutUserInteraction(.passkeyAssertion(identity, parameters)), deadline: TestDeadline.answer)
        guard case .completed(.passkeyAssertion(let assertion)) = outcome else { Issue.record("no assertion: \(outcome)"); return }
        #expect(ES256.verify(signature: assertion.signature, authenticatorData: assertion.authenticatorData, clientDataHash: hash, publicKey: key.publicKey))
        #expect(assertion.userHandle == [7, 7])
        for line in log.all { #expect(!line.contains("PRIVATE KEY")) }
    }
}
