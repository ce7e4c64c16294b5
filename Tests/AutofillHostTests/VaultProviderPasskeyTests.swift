import AutofillCore
import AutofillHost
import AutofillWebAuthn
import Crypto
import AutofillTestSupport
import Foundation
import Synchronization
import Testing

/// VaultProvider's passkeys through the real C ABI: registration, assertions verified with
/// AutofillWebAuthn and swift-crypto, honest UP/UV flags, exclusion, algorithms, and every rule of
/// the automatic passkey upgrade. Every test runs twice: the vault in process and in its helper
/// process. Each test talks to one provider process, as the agent keeps it (the unlocked vault lives
/// in its memory), its UI scripted request by request; a fresh load is a locked provider.
struct VaultProviderPasskeyTests {
    let folder: TemporaryFolder
    let vault: VaultCopy
    let log = LogCapture()
    /// This test's isolation (each test gets its own suite value, so its own mode).
    let mode = IsolationMode()
    /// The provider process's UI and identity store.
    let ui = ScriptedUI([])
    let store = InMemoryIdentityStore()
    /// The provider process, loaded at its first request.
    let loaded = LoadedProvider()

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

    /// A fresh load: another provider process, locked.
    func load(store: InMemoryIdentityStore = InMemoryIdentityStore(), ui: any ProviderUserInterface = UnavailableUserInterface(),
              settings: [String: String] = [:]) throws -> any ProviderConnection {
        try vault.load(in: folder, store: store, ui: ui,
                       settings: ["VaultFile": vault.path, "UnlockTimeoutSeconds": "3600"].merging(settings) { $1 }, log: log,
                       isolation: mode.value)
    }

    /// Sends `request` to this test's provider process (loaded with `settings` at the first request),
    /// its UI answering `answers`; the outcome and what the UI was asked for this request.
    @discardableResult
    func send(
        _ request: ProviderRequest, answering answers: [Result<UserInterfaceAnswer, UserInterfaceError>] = [], deadline: Duration? = nil,
        settings: [String: String] = [:]
    ) async throws -> (outcome: ProviderOutcome, asked: [UserInterfaceRequest]) {
        let provider = try loaded.connection { try load(store: store, ui: ui, settings: settings) }
        ui.script(answers)
        let before = ui.asked.count
        let outcome = await provider.send(request, deadline: deadline ?? (answers.isEmpty ? .seconds(3) : nil))
        return (outcome, Array(ui.asked.dropFirst(before)))
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
    func registerAlice() async throws -> Registered {
        let request = Self.request()
        return try Self.registered(try await send(.passkeyRegistration(request), answering: [Self.unlock, Self.yes]).outcome, request)
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
        let passkey = try await registerAlice()
        #expect(passkey.data.flags == [.userPresent, .userVerified, .backupEligible, .attestedCredentialData], "the master password was typed")
        #expect(store.allIdentities.map(\.kind) == [.passkey])
        guard case .passkey(let published) = store.allIdentities.first else { Issue.record("no passkey identity"); return }
        #expect(published.credentialID == passkey.identity.credentialID)
        #expect(published.userName == "alice" && published.userHandle == Self.handle && published.relyingPartyIdentifier == Self.rp)

        // Each host-verification combination, without UI from the unlocked provider: flags follow the host.
        let combinations: [(present: Bool, verified: Bool, flags: AuthenticatorFlags)] = [
            (false, false, [.backupEligible]), (true, false, [.userPresent, .backupEligible]),
            (true, true, [.userPresent, .userVerified, .backupEligible]), (false, true, [.userVerified, .backupEligible]),
        ]
        for (index, combination) in combinations.enumerated() {
            let parameters = Self.parameters("challenge-\(index)", hostPresent: combination.present, hostVerified: combination.verified)
            let outcome = try await send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, parameters))).outcome
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
        #expect(try await send(.credentialWithoutUserInteraction(request)).outcome == .canceled(ExtensionError(.userInteractionRequired)))

        let (outcome, asked) = try await send(.interfaceToProvideCredential(request), answering: [Self.unlock])
        let data = try Self.verified(outcome, passkey, parameters)
        #expect(data.flags == [.userPresent, .userVerified, .backupEligible])
        #expect(data.signCount == 1)
        guard case .prompt(let title, let message, let secret, _) = asked.first else { Issue.record("no prompt"); return }
        #expect(title == "Vault: verify it's you" && secret)
        #expect(message == "example.com asks to verify it's you. Enter the master password of \(vault.path).")

        // The host verified (PAM): no UI needed, UV set.
        let verifiedByHost = Self.parameters("uv-host", verification: .required, hostPresent: true, hostVerified: true)
        let hostData = try Self.verified(
            try await send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, verifiedByHost))).outcome, passkey, verifiedByHost)
        #expect(hostData.flags == [.userPresent, .userVerified, .backupEligible])
        #expect(hostData.signCount == 2)
    }

    @Test(arguments: Isolated.modes) func theUIConfirmsPresenceWhenUnlockedAndAWrongVerificationFails(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let passkey = try await registerAlice()
        let parameters = Self.parameters("confirm")
        let request = CredentialRequest.passkeyAssertion(passkey.identity, parameters)
        let (outcome, asked) = try await send(.interfaceToProvideCredential(request), answering: [Self.yes])
        let data = try Self.verified(outcome, passkey, parameters)
        #expect(data.flags == [.userPresent, .backupEligible], "a yes is presence, not verification")
        #expect(asked == [.confirm(title: "Vault: sign in with a passkey", message: "Sign in to example.com as alice with your passkey?")])

        #expect(try await send(.interfaceToProvideCredential(request), answering: [Self.no]).outcome == .canceled(ExtensionError(.userCanceled)))
        let wrong = Result<UserInterfaceAnswer, UserInterfaceError>.success(.text(Secret("wrong horse")))
        let required = CredentialRequest.passkeyAssertion(passkey.identity, Self.parameters("uv", verification: .required))
        #expect(try await send(.interfaceToProvideCredential(required), answering: [wrong, wrong, wrong]).outcome
            == .canceled(ExtensionError(.failed, failureReason: "wrong master password (3 attempts)")))
    }

    @Test(arguments: Isolated.modes) func aLockedVaultAnswersUserInteractionRequiredAndTheUnlockVerifies(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let passkey = try await registerAlice()
        // Locked: `autofill lock` ends the provider's process; the next one starts locked.
        let ui = ScriptedUI([Self.unlock])
        let next = try load(ui: ui)
        let parameters = Self.parameters("locked", hostPresent: true, hostVerified: true)
        let request = CredentialRequest.passkeyAssertion(passkey.identity, parameters)
        #expect(await next.send(.credentialWithoutUserInteraction(request), deadline: TestDeadline.answer) == .canceled(ExtensionError(.userInteractionRequired)))
        let data = try Self.verified(await next.send(.interfaceToProvideCredential(request), deadline: nil), passkey, parameters)
        #expect(data.flags == [.userPresent, .userVerified, .backupEligible])
    }

    @Test(arguments: Isolated.modes) func anUnknownCredentialOrAWrongRequestIsRefused(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let passkey = try await registerAlice()
        let provider = try loaded.connection { throw TestFailure("registerAlice loaded it") }
        let unknown = PasskeyCredentialIdentity(relyingPartyIdentifier: Self.rp, userName: "alice", credentialID: [9, 9, 9], userHandle: Self.handle)
        #expect(await provider.send(.credentialWithoutUserInteraction(.passkeyAssertion(unknown, Self.parameters("x"))), deadline: TestDeadline.answer)
            == .canceled(ExtensionError(.credentialIdentityNotFound, failureReason: "no such passkey for example.com in the vault")))
        let notAllowed = Self.parameters("x", allow: [[1, 2, 3]])
        #expect(await provider.send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, notAllowed)), deadline: TestDeadline.answer)
            == .canceled(ExtensionError(.failed, failureReason: "example.com did not allow this passkey (it is not in allowCredentials)")))
        var shortHash = Self.parameters("x")
        shortHash.clientDataHash = [1, 2, 3]
        #expect(await provider.send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, shortHash)), deadline: TestDeadline.answer)
            == .canceled(ExtensionError(.failed, failureReason: "the client data hash has 3 bytes; it must be the 32-byte SHA-256 of clientDataJSON")))
        let allowed = Self.parameters("allowed", hostPresent: true, allow: [[1, 2, 3], passkey.identity.credentialID])
        _ = try Self.verified(
            await provider.send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, allowed)), deadline: TestDeadline.answer),
            passkey, allowed)
    }

    @Test(arguments: Isolated.modes) func thePasskeyListOffersPasskeysThenLogins(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let passkey = try await registerAlice()
        let parameters = Self.parameters("list")
        let (outcome, asked) = try await send(.passkeyCredentialList([ServiceIdentifier(identifier: "example.com", type: .domain)], parameters),
                                              answering: [.success(.choice(0))])
        #expect(try Self.verified(outcome, passkey, parameters).flags == [.userPresent, .backupEligible], "choosing is presence")
        guard case .choose(_, let items) = asked.first else { Issue.record("no list"); return }
        #expect(items == ["alice — passkey for example.com", "alice — password for example.com", "bob — password for example.com",
                          "alice@example.org — password for https://accounts.example.org/login"])

        let password = try await send(.passkeyCredentialList([ServiceIdentifier(identifier: "example.com", type: .domain)], parameters),
                                      answering: [.success(.choice(1))]).outcome
        #expect(password == .completed(.password(PasswordCredential(user: "alice", password: Secret("alice-demo-password")))))
    }

    @Test(arguments: Isolated.modes) func anExcludedCredentialIsMatchedExcludedCredential(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let passkey = try await registerAlice()
        let request = Self.request(excluding: [[7, 7], passkey.identity.credentialID])
        #expect(try await send(.passkeyRegistration(request), answering: [Self.yes]).outcome
            == .canceled(ExtensionError(.matchedExcludedCredential,
                                        failureReason: "Vault already holds a passkey for alice at example.com that the site excludes")))
        #expect(try await send(.conditionalPasskeyRegistration(Self.request(excluding: [passkey.identity.credentialID], style: .conditional))).outcome
            == .canceled(ExtensionError(.matchedExcludedCredential,
                                        failureReason: "Vault already holds a passkey for alice at example.com that the site excludes")))
    }

    @Test(arguments: Isolated.modes) func onlyUnsupportedAlgorithmsFailNamingThem(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        let outcome = try await send(.passkeyRegistration(Self.request(algorithms: [-257, -8])), answering: [Self.unlock, Self.yes]).outcome
        #expect(outcome == .canceled(ExtensionError(.failed, failureReason:
            "example.com accepts only the COSE algorithms -257, -8; Vault creates ES256 (-7) passkeys only")))
    }

    @Test(arguments: Isolated.modes) func registrationWithRequiredVerificationAndTheHostsVerification(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        // Unlocked already, UV required, the host verified: no question at all (the host's prompt
        // named this passkey), UV set.
        try await unlockThroughAFill()
        let request = Self.request(verification: .required, hostPresent: true, hostVerified: true)
        let (outcome, asked) = try await send(.passkeyRegistration(request), deadline: .seconds(10))
        let passkey = try Self.registered(outcome, request)
        #expect(passkey.data.flags == [.userPresent, .userVerified, .backupEligible, .attestedCredentialData])
        #expect(asked.isEmpty)

        // Unlocked, nothing verified by the host, UV preferred: presence only.
        let plain = Self.request(user: "bob", handle: [2])
        let bob = try Self.registered(try await send(.passkeyRegistration(plain), answering: [Self.yes]).outcome, plain)
        #expect(bob.data.flags == [.userPresent, .backupEligible, .attestedCredentialData])

        #expect(try await send(.passkeyRegistration(Self.request(user: "carol", handle: [3])), answering: [Self.no]).outcome
            == .canceled(ExtensionError(.userCanceled)))
    }

    // MARK: Automatic passkey upgrade (conditional registration)

    /// Unlocks the vault and fills alice's password, as a password sign-in does.
    func unlockThroughAFill(settings: [String: String] = [:]) async throws {
        let outcome = try await send(.interfaceToProvideCredential(.password(Self.alice)), answering: [Self.unlock], settings: settings).outcome
        #expect(outcome == .completed(.password(PasswordCredential(user: "alice", password: Secret("alice-demo-password")))))
    }

    func conditional(_ request: PasskeyRegistrationRequest = VaultProviderPasskeyTests.request(style: .conditional)) async throws -> ProviderOutcome {
        let (outcome, asked) = try await send(.conditionalPasskeyRegistration(request))
        #expect(asked.isEmpty, "a conditional registration never shows UI")
        return outcome
    }

    static func refused(_ reason: String) -> ProviderOutcome { .canceled(ExtensionError(.failed, failureReason: reason)) }

    @Test(arguments: Isolated.modes) func anUpgradeRightAfterAPasswordFillIsAcceptedWithoutUPOrUV(isolation: ProviderIsolation) async throws {
        mode.value = isolation
        try await unlockThroughAFill()
        let request = Self.request(style: .conditional)
        let passkey = try Self.registered(try await conditional(request), request)
        #expect(passkey.data.flags == [.backupEligible, .attestedCredentialData], "the user was not asked")
        #expect(store.allIdentities.map(\.kind) == [.passkey])
        // It works for sign-in like any passkey.
        let parameters = Self.parameters("after-upgrade", hostPresent: true)
        _ = try Self.verified(try await send(.credentialWithoutUserInteraction(.passkeyAssertion(passkey.identity, parameters))).outcome, passkey, parameters)
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
        try await unlockThroughAFill(settings: ["ConditionalRegistrationWindowSeconds": "0"])
        #expect(try await conditional()
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
        try await send(.interfaceToProvideCredential(.password(org)), answering: [Self.unlock])
        let request = PasskeyRegistrationRequest(
            identity: PasskeyCredentialIdentity(relyingPartyIdentifier: "example.org", userName: "alice@example.org", credentialID: [],
                                                userHandle: [4]),
            parameters: PasskeyParameters(relyingParty: "example.org", clientDataHash: Self.hash("org"), style: .conditional, algorithms: [-7],
                                          hostRecentPasswordFill: true))
        let outcome = try await conditional(request)
        guard case .completed(.passkeyRegistration) = outcome else { Issue.record("the upgrade was refused: \(outcome)"); return }
    }
}

/// A test's provider process, loaded at its first request and kept for the others.
final class LoadedProvider: Sendable {
    private let state = Mutex<(any ProviderConnection)?>(nil)

    /// The provider, loaded with `load` if it was not yet.
    func connection(_ load: () throws -> any ProviderConnection) throws -> any ProviderConnection {
        try state.withLock { state in
            if let state { return state }
            let loaded = try load()
            state = loaded
            return loaded
        }
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
