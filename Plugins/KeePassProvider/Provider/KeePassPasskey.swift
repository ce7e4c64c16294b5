import AutofillCore
import AutofillWebAuthn
import Crypto
import KDBX

/// A passkey KeePassXC's browser integration stored in an entry: the `KPEX_PASSKEY_*` attributes
/// (credential id and user handle base64url, the private key as PKCS#8 PEM: ES256, EdDSA or RS256).
/// As in KeePassXC, the credential id is `KPEX_PASSKEY_GENERATED_USER_ID` when the entry has one
/// (KeePassXC 2.7.7 and Strongbox), else `KPEX_PASSKEY_CREDENTIAL_ID`; the user name
/// `KPXC_PASSKEY_USERNAME`, else `KPEX_PASSKEY_USERNAME`.
struct KeePassPasskey: Sendable {
    let entry: KDBXEntry
    let relyingParty: String
    let userName: String
    let credentialID: [UInt8]
    let userHandle: [UInt8]

    /// The suffix of a passkey identity's record identifier.
    static let recordSuffix = "#passkey"

    /// The entry's passkey; nil when it has none or its attributes are malformed (never naming the key).
    init?(_ entry: KDBXEntry) {
        guard let relyingParty = entry.fields["KPEX_PASSKEY_RELYING_PARTY"]?.revealed, !relyingParty.isEmpty,
              let id = (entry.fields["KPEX_PASSKEY_GENERATED_USER_ID"] ?? entry.fields["KPEX_PASSKEY_CREDENTIAL_ID"])
                .flatMap({ Base64URL.decode($0.revealed) }), !id.isEmpty,
              entry.fields["KPEX_PASSKEY_PRIVATE_KEY_PEM"] != nil
        else { return nil }
        self.entry = entry
        self.relyingParty = relyingParty
        userName = (entry.fields["KPXC_PASSKEY_USERNAME"] ?? entry.fields["KPEX_PASSKEY_USERNAME"])?.revealed ?? entry.userName
        credentialID = id
        userHandle = entry.fields["KPEX_PASSKEY_USER_HANDLE"].flatMap { Base64URL.decode($0.revealed) } ?? []
    }

    var identity: PasskeyCredentialIdentity {
        PasskeyCredentialIdentity(relyingPartyIdentifier: relyingParty, userName: userName, credentialID: credentialID,
                                  userHandle: userHandle, recordIdentifier: entry.uuid + Self.recordSuffix, rank: entry.isExpired() ? -1 : 0)
    }

    /// The signing key, or a message naming the entry (never the key).
    func signingKey() throws(KeePassPasskeyError) -> KeePassPasskeyKey {
        guard let pem = entry.fields["KPEX_PASSKEY_PRIVATE_KEY_PEM"]?.revealed, let key = KeePassPasskeyKey(pem: pem) else {
            throw KeePassPasskeyError(message: """
                the passkey of the entry "\(entry.title)" has a private key that is not a P-256, Ed25519 or RSA PEM key; \
                register it again in KeePassXC
                """)
        }
        return key
    }

    /// The assertion with the flags of `check`: KeePassXC keeps no signature counter, so it is 0
    /// (WebAuthn's "no counter"); BE is set (the database can be copied), BS never claimed.
    func assertion(_ parameters: PasskeyParameters, check: UserCheck) throws(KeePassPasskeyError) -> PasskeyAssertionCredential {
        let key = try signingKey()
        let data = AuthenticatorData(relyingParty: relyingParty, flags: check.flags(backup: .backupEligible), signCount: 0).bytes
        do {
            return PasskeyAssertionCredential(relyingParty: relyingParty, credentialID: credentialID, userHandle: userHandle, authenticatorData: data,
                                              signature: try key.sign(data + parameters.clientDataHash), clientDataHash: parameters.clientDataHash)
        } catch {
            throw KeePassPasskeyError(message: "the passkey of the entry \"\(entry.title)\" could not sign")
        }
    }
}

/// Why a stored passkey cannot be used.
struct KeePassPasskeyError: Error {
    let message: String
}
