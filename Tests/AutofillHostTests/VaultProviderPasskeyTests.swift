import AutofillCore
import AutofillHost
import AutofillWebAuthn
import Crypto
import Foundation
import Synchronization
import Testing

/// VaultProvider's passkeys through the real C ABI: registration, assertions verified with
/// AutofillWebAuthn and swift-crypto, honest UP/UV flags, exclusion, algorithms, and every rule of
/// the automatic passkey upgrade. Every test runs twice: the vault in process and in its helper process.
struct VaultProviderPasskeyTests {
    let folder: TemporaryFolder
    let vault: VaultCopy
    let log = LogCapture()
    /// This test's isolation (each test gets its own suite value, so its own mode).
    let mode = IsolationMode()

    static let master = "correct horse battery staple"
    static let unlock = Result<UserInterfaceAnswer, UserInterfaceError>.success(.text(Secret(master)))
    static let yes = Result<UserInterfaceAnswer, UserInterfaceError>.success(.confirmed(true))
    static let no = Result<UserInterfaceAnswer, UserInterfaceError>.success(.confirmed(false))
    static let rp = "example.com"
    static let handle = Array("alice-handle".utf8)
    static let alice = PasswordCredentialIdentity(
        serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: "alice", recordIdentifier: "vault-1", rank: 2)

    init() throws {
        folder = try TemporaryFolder()
        vault = try VaultCopy(in: folder.path)
    }

    func load(store: InMemoryIdentityStore = InMemoryIdentityStore(), ui: any ProviderUserInterface = UnavailableUserInterface(),
              settings: [String: String] = [:]) throws -> any ProviderConnection {
        try vault.load(in: folder, store: store, ui: ui,
                       settings: ["VaultFile": vault.path, "UnlockTimeoutSeconds": "3600"].merging(settings) { $1 }, log: log,
                       isolation: mode.value)
    }

    static func hash(_ text: String) -> [UInt8] { Array(SHA256.hash(data: Array(text.utf8))) }

    static func request(
        user: String = "alice", handle: [UInt8] = handle, excluding: [[UInt8]] = [], algorithms: [Int] = [-7, -257],
        verification: UserVerificationPreference = .preferred, hostPresent: Bool = false, hostVerified: Bool = false,
        style: PasskeyRegistrationStyle = .standard, clientDataHash: [UInt8] = hash("registration"), recentFill: Bool? = nil
    ) -> PasskeyRegistrationRequest {
        PasskeyRegistrationRequest(
            identity: PasskeyCredentialIdentity(relyingPartyIdentifier: rp, userName: user, credentialID: [], userHandle: handle),
            parameters: PasskeyParameters(
                relyingParty: rp, clientDataHash: clientDataHash, userVerification: verification, style: style, credentialIDs: excluding,
                algorithms: algorithms, hostUserPresent: hostPresent, hostUserVerified: hostVerified,
                hostRecentPasswordFill: recentFill ?? (style == .conditional)))
    }

    static func parameters(
        _ challenge: String, verification: UserVerificationPreference = .preferred, hostPresent: Bool = false, hostVerified: Bool = false,
        allow: [[UInt8]] = []
    ) -> PasskeyParameters {
        PasskeyParameters(relyingParty: rp, clientDataHash: hash(challenge), userVerification: verification, credentialIDs: allow,
                          hostUserPresent: hostPresent, hostUserVerified: hostVerified)
    }

    /// A new passkey, what the relying party stores of it.
    struct Registered {
        let identity: PasskeyCredentialIdentity
        let publicKey: P256.Signing.PublicKey
        let data: AuthenticatorData
    }

    /// Checks a registration the way a relying party does and returns what it would store.
    static func registered(_ outcome: ProviderOutcome, _ request: PasskeyRegistrationRequest) throws -> Registered {
        guard case .completed(.passkeyRegistration(let credential)) = outcome else { throw TestFailure("no registration: \(outcome)") }
        let parsed = try AttestationObject.parse(credential.attestationObject)
        #expect(parsed.format == "none")
        let data = parsed.authenticatorData
        #expect(data.rpIDHash == hash(rp))
        #expect(data.signCount == 0)
        let attested = try #require(data.attestedCredential)
        #expect(attested.aaguid == AttestedCredentialData.zeroAAGUID)
        #expect(attested.credentialID == credential.credentialID)
        #expect(credential.credentialID.count == 32)
        #expect(credential.clientDataHash == request.parameters.clientDataHash)
        #expect(credential.relyingParty == rp)
        return Registered(
            identity: PasskeyCredentialIdentity(relyingPartyIdentifier: rp, userName: request.identity.userName,
                                                credentialID: credential.credentialID, userHandle: request.identity.userHandle),
            publicKey: try COSEKey.publicKey(from: attested.publicKey), data: data)
    }

    /// Registers alice's passkey through the UI (unlocking the vault: UP and UV).
    func registerAlice(store: InMemoryIdentityStore = InMemoryIdentityStore()) async throws -> Registered {
        let request = Self.request()
        let outcome = try await load(store: store, ui: ScriptedUI([Self.unlock, Self.yes])).send(.passkeyRegistration(request), deadline: nil)
        return try Self.registered(outcome, request)
    }

    /// Checks an assertion the way a relying party does: signature over authenticatorData ‖ clientDataHash.
    static func verified(_ outcome: ProviderOutcome, _ passkey: Registered, _ parameters: PasskeyParameters) throws -> AuthenticatorData {
        guard case .completed(.passkeyAssertion(let assertion)) = outcome else { throw TestFailure("no assertion: \(outcome)") }
        #expect(assertion.credentialID == passkey.identity.credentialID)
        #expect(assertion.userHandle == handle)
        #expect(assertion.relyingParty == rp)
        #expect(assertion.clientDataHash == parameters.clientDataHash)
        #expect(ES256.verify(signature: assertion.signature, authenticatorData: assertion.authenticatorData,
                             clientDataHash: parameters.clientDataHash, publicKey: passkey.publicKey))
        let signature = try P256.Signing.ECDSASignature(derRepresentation: assertion.signature)
        #expect(passkey.publicKey.isValidSignature(signature, for: assertion.authenticatorData + parameters.clientDataHash))
        let data = try AuthenticatorData(parsing: assertion.authenticatorData)
        #expect(data.rpIDHash == hash(rp))
        #expect(data.attestedCredential == nil)
        return data
    }

    // MARK: Registration and assertion

    @Test(arguments: Isolated.modes) func aRegisteredPasskeySignsAssertionsWithIncreasingCountersAndHonestFlags(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let store = InMemoryIdentityStore()
        let passkey = try await registerAlice(store: store)
        #expect(passkey.data.flags == [.userPresent, .userVerified, .backupEligible, .attestedCredentialData], "the master password was typed")
        #expect(store.allIdentities.map(\.kind) == [.passkey])
        guard case .passkey(let published) = store.allIdentities.first else { Issue.record("no passkey identity"); return }
        #expect(published.credentialID == passkey.identity.credentialID)
        #expect(published.userName == "alice" && published.userHandle == Self.handle && published.relyingPartyIdentifier == Self.rp)

        // Each host-verification combination, each from a fresh load (another process): flags follow the host.
        let combinations: [(present: Bool, verified: Bool, flags: AuthenticatorFlags)] = [
            (false, false, [.backupEligible]), (true, false, [.userPresent, .backupEligible]),
            (true, true, [.userPresent, .userVerified, .backupEligible]), (false, true, [.userVerified, .backupEligible]),
        ]
        for (index, combination) in combinations.enumerated() {
            let parameters = Self.parameters("challenge-\(index)", hostPresent: combination.present, hostVerified: combination.verified)
            let outcome = try await load().send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, parameters)),
                                                deadline: .seconds(3))
            let data = try Self.verified(outcome, passkey, parameters)
            #expect(data.flags == combination.flags, "host UP \(combination.present) UV \(combination.verified)")
            #expect(data.signCount == UInt32(index + 1))
        }
        #expect(!log.all.contains { $0.contains(Self.master) })
    }

    @Test(arguments: Isolated.modes) func requiredVerificationWithoutTheHostsNeedsTheUIWhichAsksForTheMasterPassword(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let passkey = try await registerAlice()
        let parameters = Self.parameters("uv", verification: .required, hostPresent: true)
        let request = CredentialRequest.passkeyAssertion(passkey.identity, parameters)
        #expect(try await load().send(.credentialWithoutUserInteraction(request), deadline: .seconds(3))
            == .canceled(ExtensionError(.userInteractionRequired)))

        let ui = ScriptedUI([Self.unlock])
        let data = try Self.verified(try await load(ui: ui).send(.interfaceToProvideCredential(request), deadline: nil), passkey, parameters)
        #expect(data.flags == [.userPresent, .userVerified, .backupEligible])
        #expect(data.signCount == 1)
        guard case .prompt(let title, let message, let secret, _) = ui.asked.first else { Issue.record("no prompt"); return }
        #expect(title == "Vault: verify it's you" && secret)
        #expect(message == "example.com asks to verify it's you. Enter the master password of \(vault.path).")

        // The host verified (PAM): no UI needed, UV set.
        let verifiedByHost = Self.parameters("uv-host", verification: .required, hostPresent: true, hostVerified: true)
        let hostData = try Self.verified(
            try await load().send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, verifiedByHost)), deadline: .seconds(3)),
            passkey, verifiedByHost)
        #expect(hostData.flags == [.userPresent, .userVerified, .backupEligible])
        #expect(hostData.signCount == 2)
    }

    @Test(arguments: Isolated.modes) func theUIConfirmsPresenceWhenUnlockedAndAWrongVerificationFails(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let passkey = try await registerAlice()
        let parameters = Self.parameters("confirm")
        let request = CredentialRequest.passkeyAssertion(passkey.identity, parameters)
        let ui = ScriptedUI([Self.yes])
        let data = try Self.verified(try await load(ui: ui).send(.interfaceToProvideCredential(request), deadline: nil), passkey, parameters)
        #expect(data.flags == [.userPresent, .backupEligible], "a yes is presence, not verification")
        #expect(ui.asked == [.confirm(title: "Vault: sign in with a passkey", message: "Sign in to example.com as alice with your passkey?")])

        #expect(try await load(ui: ScriptedUI([Self.no])).send(.interfaceToProvideCredential(request), deadline: nil)
            == .canceled(ExtensionError(.userCanceled)))
        let wrong = Result<UserInterfaceAnswer, UserInterfaceError>.success(.text(Secret("wrong horse")))
        let required = CredentialRequest.passkeyAssertion(passkey.identity, Self.parameters("uv", verification: .required))
        #expect(try await load(ui: ScriptedUI([wrong, wrong, wrong])).send(.interfaceToProvideCredential(required), deadline: nil)
            == .canceled(ExtensionError(.failed, failureReason: "wrong master password (3 attempts)")))
    }

    @Test(arguments: Isolated.modes) func aLockedVaultAnswersUserInteractionRequiredAndTheUnlockVerifies(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let passkey = try await registerAlice()
        _ = try TestPlugins.run("\(Repository.root)/.build/debug/autofill-vault", ["lock", "--vault", vault.path])
        let parameters = Self.parameters("locked", hostPresent: true, hostVerified: true)
        let request = CredentialRequest.passkeyAssertion(passkey.identity, parameters)
        #expect(try await load().send(.credentialWithoutUserInteraction(request), deadline: .seconds(3))
            == .canceled(ExtensionError(.userInteractionRequired)))
        let data = try Self.verified(try await load(ui: ScriptedUI([Self.unlock])).send(.interfaceToProvideCredential(request), deadline: nil),
                                     passkey, parameters)
        #expect(data.flags == [.userPresent, .userVerified, .backupEligible])
    }

    @Test(arguments: Isolated.modes) func anUnknownCredentialOrAWrongRequestIsRefused(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let passkey = try await registerAlice()
        let provider = try load()
        let unknown = PasskeyCredentialIdentity(relyingPartyIdentifier: Self.rp, userName: "alice", credentialID: [9, 9, 9], userHandle: Self.handle)
        #expect(await provider.send(.credentialWithoutUserInteraction(.passkeyAssertion(unknown, Self.parameters("x"))), deadline: .seconds(3))
            == .canceled(ExtensionError(.credentialIdentityNotFound, failureReason: "no such passkey for example.com in the vault")))
        let notAllowed = Self.parameters("x", allow: [[1, 2, 3]])
        #expect(await provider.send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, notAllowed)), deadline: .seconds(3))
            == .canceled(ExtensionError(.failed, failureReason: "example.com did not allow this passkey (it is not in allowCredentials)")))
        var shortHash = Self.parameters("x")
        shortHash.clientDataHash = [1, 2, 3]
        #expect(await provider.send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, shortHash)), deadline: .seconds(3))
            == .canceled(ExtensionError(.failed, failureReason: "the client data hash has 3 bytes; it must be the 32-byte SHA-256 of clientDataJSON")))
        let allowed = Self.parameters("allowed", hostPresent: true, allow: [[1, 2, 3], passkey.identity.credentialID])
        _ = try Self.verified(
            await provider.send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, allowed)), deadline: .seconds(3)),
            passkey, allowed)
    }

    @Test(arguments: Isolated.modes) func thePasskeyListOffersPasskeysThenLogins(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let passkey = try await registerAlice()
        let parameters = Self.parameters("list")
        let ui = ScriptedUI([.success(.choice(0))])
        let outcome = try await load(ui: ui).send(.passkeyCredentialList([ServiceIdentifier(identifier: "example.com", type: .domain)], parameters),
                                                  deadline: nil)
        #expect(try Self.verified(outcome, passkey, parameters).flags == [.userPresent, .backupEligible], "choosing is presence")
        guard case .choose(_, let items) = ui.asked.first else { Issue.record("no list"); return }
        #expect(items == ["alice — passkey for example.com", "alice — password for example.com", "bob — password for example.com",
                          "alice@example.org — password for https://accounts.example.org/login"])

        let password = try await load(ui: ScriptedUI([.success(.choice(1))]))
            .send(.passkeyCredentialList([ServiceIdentifier(identifier: "example.com", type: .domain)], parameters), deadline: nil)
        #expect(password == .completed(.password(PasswordCredential(user: "alice", password: Secret("alice-demo-password")))))
    }

    @Test(arguments: Isolated.modes) func anExcludedCredentialIsMatchedExcludedCredential(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let passkey = try await registerAlice()
        let request = Self.request(excluding: [[7, 7], passkey.identity.credentialID])
        #expect(try await load(ui: ScriptedUI([Self.yes])).send(.passkeyRegistration(request), deadline: nil)
            == .canceled(ExtensionError(.matchedExcludedCredential,
                                        failureReason: "Vault already holds a passkey for alice at example.com that the site excludes")))
        #expect(try await load().send(.conditionalPasskeyRegistration(Self.request(excluding: [passkey.identity.credentialID], style: .conditional)),
                                      deadline: .seconds(3))
            == .canceled(ExtensionError(.matchedExcludedCredential,
                                        failureReason: "Vault already holds a passkey for alice at example.com that the site excludes")))
    }

    @Test(arguments: Isolated.modes) func onlyUnsupportedAlgorithmsFailNamingThem(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let outcome = try await load(ui: ScriptedUI([Self.unlock, Self.yes])).send(.passkeyRegistration(Self.request(algorithms: [-257, -8])), deadline: nil)
        #expect(outcome == .canceled(ExtensionError(.failed, failureReason:
            "example.com accepts only the COSE algorithms -257, -8; Vault creates ES256 (-7) passkeys only")))
    }

    @Test(arguments: Isolated.modes) func registrationWithRequiredVerificationAndTheHostsVerification(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        // Unlocked already, UV required, the host verified: no question at all (the host's prompt
        // named this passkey), UV set.
        try await unlockThroughAFill()
        let request = Self.request(verification: .required, hostPresent: true, hostVerified: true)
        let ui = ScriptedUI([])
        let passkey = try Self.registered(try await load(ui: ui).send(.passkeyRegistration(request), deadline: nil), request)
        #expect(passkey.data.flags == [.userPresent, .userVerified, .backupEligible, .attestedCredentialData])
        #expect(ui.asked.isEmpty)

        // Unlocked, nothing verified by the host, UV preferred: presence only.
        let plain = Self.request(user: "bob", handle: [2])
        let bob = try Self.registered(try await load(ui: ScriptedUI([Self.yes])).send(.passkeyRegistration(plain), deadline: nil), plain)
        #expect(bob.data.flags == [.userPresent, .backupEligible, .attestedCredentialData])

        #expect(try await load(ui: ScriptedUI([Self.no])).send(.passkeyRegistration(Self.request(user: "carol", handle: [3])), deadline: nil)
            == .canceled(ExtensionError(.userCanceled)))
    }

    // MARK: Automatic passkey upgrade (conditional registration)

    /// Unlocks the vault and fills alice's password without UI, as a password sign-in does.
    func unlockThroughAFill() async throws {
        _ = try await load(ui: ScriptedUI([Self.unlock])).send(.interfaceToProvideCredential(.password(Self.alice)), deadline: nil)
    }

    func conditional(_ request: PasskeyRegistrationRequest = VaultProviderPasskeyTests.request(style: .conditional), settings: [String: String] = [:],
                     store: InMemoryIdentityStore = InMemoryIdentityStore()) async throws -> ProviderOutcome {
        let ui = ScriptedUI([])
        let outcome = try await load(store: store, ui: ui, settings: settings).send(.conditionalPasskeyRegistration(request), deadline: .seconds(3))
        #expect(ui.asked.isEmpty, "a conditional registration never shows UI")
        return outcome
    }

    static func refused(_ reason: String) -> ProviderOutcome { .canceled(ExtensionError(.failed, failureReason: reason)) }

    @Test(arguments: Isolated.modes) func anUpgradeRightAfterAPasswordFillIsAcceptedWithoutUPOrUV(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        try await unlockThroughAFill()
        let store = InMemoryIdentityStore()
        let request = Self.request(style: .conditional)
        let passkey = try Self.registered(try await conditional(request, store: store), request)
        #expect(passkey.data.flags == [.backupEligible, .attestedCredentialData], "the user was not asked")
        #expect(store.allIdentities.map(\.kind) == [.passkey])
        // It works for sign-in like any passkey.
        let parameters = Self.parameters("after-upgrade", hostPresent: true)
        _ = try Self.verified(
            try await load().send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, parameters)), deadline: .seconds(3)),
            passkey, parameters)
        // A second upgrade for the same account is refused.
        #expect(try await conditional(Self.request(handle: [5], style: .conditional)) == Self.refused("alice already has a passkey for example.com"))
    }

    @Test(arguments: Isolated.modes) func anUpgradeOfALockedVaultIsRefused(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        #expect(try await conditional() == Self.refused("the vault is locked (an automatic upgrade never asks for the master password)"))
    }

    @Test(arguments: Isolated.modes) func anUpgradeWithoutASavedPasswordForThatUserIsRefused(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        try await unlockThroughAFill()
        #expect(try await conditional(Self.request(user: "mallory", style: .conditional))
            == Self.refused("the vault has no saved password for mallory at example.com or its subdomains"))
    }

    @Test(arguments: Isolated.modes) func anUpgradeTheHostDidNotVouchForIsRefused(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        try await unlockThroughAFill()  // the vault handed alice's password out, but only the host knows it was delivered
        #expect(try await conditional(Self.request(style: .conditional, recentFill: false))
            == Self.refused("autofill did not deliver a password of this vault for alice at example.com recently"))
    }

    @Test(arguments: Isolated.modes) func upgradesCanBeTurnedOff(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        try await unlockThroughAFill()
        #expect(try await conditional(settings: ["ConditionalRegistrationWindowSeconds": "0"])
            == Self.refused("automatic passkey upgrades are off (ConditionalRegistrationWindowSeconds is 0)"))
    }

    @Test(arguments: Isolated.modes) func anUpgradeWithOnlyUnsupportedAlgorithmsIsRefused(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        try await unlockThroughAFill()
        #expect(try await conditional(Self.request(algorithms: [-257], style: .conditional))
            == Self.refused("example.com accepts only the COSE algorithms -257; Vault creates ES256 (-7) passkeys only"))
    }

    @Test(arguments: Isolated.modes) func aPasswordForASubdomainCountsForTheRelyingParty(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        // vault-3 is alice@example.org at https://accounts.example.org/login; rp example.org.
        let org = PasswordCredentialIdentity(
            serviceIdentifier: ServiceIdentifier(identifier: "https://accounts.example.org/login", type: .url), user: "alice@example.org",
            recordIdentifier: "vault-3")
        _ = try await load(ui: ScriptedUI([Self.unlock])).send(.interfaceToProvideCredential(.password(org)), deadline: nil)
        let request = PasskeyRegistrationRequest(
            identity: PasskeyCredentialIdentity(relyingPartyIdentifier: "example.org", userName: "alice@example.org", credentialID: [],
                                                userHandle: [4]),
            parameters: PasskeyParameters(relyingParty: "example.org", clientDataHash: Self.hash("org"), style: .conditional, algorithms: [-7],
                                          hostRecentPasswordFill: true))
        let outcome = try await conditional(request)
        guard case .completed(.passkeyRegistration) = outcome else { Issue.record("the upgrade was refused: \(outcome)"); return }
    }
}

/// The isolation mode a test runs its providers in, set first thing by the test.
final class IsolationMode: Sendable {
    private let state = Mutex(ProviderIsolation.inProcess)
    var value: ProviderIsolation {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
