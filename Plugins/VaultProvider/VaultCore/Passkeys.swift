public import AutofillCore
public import AutofillWebAuthn
internal import Crypto

/// Creating passkeys and answering WebAuthn requests with them (ES256, `fmt: "none"`).
///
/// Flags: UP and UV are what the caller says was established (the host's authentication, the
/// provider's own prompt); BE is always set and BS never (see ``PasskeyEntry/backupFlags``).
extension PasskeyEntry {
    /// BE set, BS clear: a vault passkey's private key lives in a file the user may copy or sync to
    /// other machines, so it is backup eligible; whether a copy exists right now the vault cannot
    /// know, so it never claims "backed up". WebAuthn requires BE to stay the same for a
    /// credential's whole life, which a constant guarantees.
    public static let backupFlags: AuthenticatorFlags = .backupEligible
    /// The credential id length of new passkeys: 32 random bytes.
    public static let credentialIDLength = 32
    /// The longest user handle WebAuthn allows.
    public static let maximumUserHandleLength = 64

    /// A new passkey for `userName` at `relyingParty`: a fresh P-256 key and a random credential id,
    /// created now unless `created` says otherwise. Checks the relying party id, user name and user handle first.
    public static func generate(
        id: String = VaultContents.newID(), relyingParty: String, userName: String, userHandle: [UInt8],
        created: Int64? = nil
    ) throws(VaultError) -> PasskeyEntry {
        try checkAccount(relyingParty: relyingParty, userName: userName, userHandle: userHandle)
        var random = SystemRandomNumberGenerator()
        let credentialID = (0..<credentialIDLength).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let key = ES256.generateKey()
        return PasskeyEntry(
            id: id, relyingParty: relyingParty, userName: userName, userHandle: userHandle, credentialID: credentialID,
            privateKey: Secret(Base64URL.encode(Array(key.rawRepresentation))), signCount: 0,
            created: created ?? Int64(WallClock.now()))
    }

    /// Checks what a relying party gave for a new passkey: a relying party id that is a bare domain,
    /// a user name, and a user handle of 1 to 64 bytes.
    public static func checkAccount(relyingParty: String, userName: String, userHandle: [UInt8]) throws(VaultError) {
        guard !relyingParty.isEmpty, !relyingParty.contains(where: { $0.isWhitespace || "/:@?#".contains($0) }) else {
            throw VaultError(.invalidInput, "the relying party id \"\(relyingParty)\" is not a domain like example.com")
        }
        guard !userName.isEmpty else { throw VaultError(.invalidInput, "the passkey's user name is empty: the relying party must name the account") }
        guard (1...maximumUserHandleLength).contains(userHandle.count) else {
            throw VaultError(.invalidInput, "the user handle has \(userHandle.count) bytes; WebAuthn needs 1 to \(maximumUserHandleLength)")
        }
    }

    /// The P-256 signing key; a damaged key names the entry, never the key.
    func signingKey() throws(VaultError) -> P256.Signing.PrivateKey {
        guard let raw = Base64URL.decode(privateKey.revealed), raw.count == 32,
            let key = try? P256.Signing.PrivateKey(rawRepresentation: raw)
        else {
            throw VaultError(.corrupt, "the private key of passkey \(id) is damaged: it is not a P-256 key; remove the passkey and register a new one")
        }
        return key
    }

    /// The COSE public key the relying party stores.
    public func publicKey() throws(VaultError) -> CBOR {
        COSEKey.es256(try signingKey().publicKey)
    }

    /// The flags of a registration or assertion: UP and UV as established, plus ``backupFlags``.
    static func flags(userPresent: Bool, userVerified: Bool) -> AuthenticatorFlags {
        UserCheck(present: userPresent, verified: userVerified).flags(backup: backupFlags)
    }

    /// The registration result: a `fmt: "none"` attestation object whose authenticator data holds
    /// this credential (zero AAGUID, the entry's counter, AT, BE, and UP/UV as given).
    public func registration(clientDataHash: [UInt8], userPresent: Bool, userVerified: Bool) throws(VaultError)
        -> PasskeyRegistrationCredential
    {
        let attested: AttestedCredentialData
        do {
            attested = try AttestedCredentialData(credentialID: credentialID, publicKey: try publicKey())
        } catch let error as VaultError {
            throw error
        } catch {
            throw VaultError(.invalidInput, "passkey \(id): \(error)")
        }
        let data = AuthenticatorData(
            relyingParty: relyingParty, flags: Self.flags(userPresent: userPresent, userVerified: userVerified), signCount: signCount,
            attestedCredential: attested)
        return PasskeyRegistrationCredential(
            relyingParty: relyingParty, credentialID: credentialID,
            attestationObject: AttestationObject.none(authenticatorData: data), clientDataHash: clientDataHash)
    }

    /// An assertion: authenticator data with the entry's counter (increment and save it first) and
    /// UP/UV as given, signed with ES256 over authenticatorData ‖ clientDataHash.
    public func assertion(clientDataHash: [UInt8], userPresent: Bool, userVerified: Bool) throws(VaultError)
        -> PasskeyAssertionCredential
    {
        let key = try signingKey()
        do {
            return try PasskeyAssertion.make(
                relyingParty: relyingParty, credentialID: credentialID, userHandle: userHandle, signCount: signCount,
                flags: Self.flags(userPresent: userPresent, userVerified: userVerified), clientDataHash: clientDataHash, key: key)
        } catch {
            throw VaultError(.io, "passkey \(id): \(error)")
        }
    }
}

extension VaultContents {
    /// The passkey for `relyingParty` with `credentialID`, if the vault holds it.
    public func passkey(relyingParty: String, credentialID: [UInt8]) -> PasskeyEntry? {
        passkeys.first { $0.relyingParty == relyingParty && $0.credentialID == credentialID }
    }

    /// Adds one to the counter of the passkey with id `id` and returns the updated entry.
    public mutating func countAssertion(ofPasskey id: String) throws(VaultError) -> PasskeyEntry {
        guard case .passkey(var entry) = entry(id: id) else {
            throw VaultError(.invalidInput, "no passkey \(id) in the vault (it was removed meanwhile)")
        }
        guard entry.signCount < .max else {
            throw VaultError(.invalidInput, "the signature counter of passkey \(id) is exhausted; register a new passkey")
        }
        entry.signCount += 1
        try update(.passkey(entry))
        return entry
    }
}
