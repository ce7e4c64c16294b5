internal import Crypto

/// The attested credential data inside authenticator data: AAGUID, credential id and COSE public key.
public struct AttestedCredentialData: Hashable, Sendable {
    /// The longest credential id WebAuthn allows (Level 3 §6.5.1).
    public static let maximumCredentialIDLength = 1023
    /// The all-zero AAGUID: the authenticator does not identify its model (`fmt: "none"`).
    public static let zeroAAGUID = [UInt8](repeating: 0, count: 16)

    /// The authenticator model's AAGUID (16 bytes).
    public let aaguid: [UInt8]
    /// The credential id (1 to 1023 bytes).
    public let credentialID: [UInt8]
    /// The credential's public key as a COSE_Key map (see ``COSEKey``).
    public let publicKey: CBOR

    /// Creates attested credential data, checking the AAGUID's and the credential id's lengths and that the key is a map.
    public init(aaguid: [UInt8] = zeroAAGUID, credentialID: [UInt8], publicKey: CBOR) throws(WebAuthnError) {
        guard aaguid.count == 16 else {
            throw WebAuthnError(.malformedAuthenticatorData, "the AAGUID has \(aaguid.count) bytes; it must have 16")
        }
        guard (1...Self.maximumCredentialIDLength).contains(credentialID.count) else {
            throw WebAuthnError(.malformedAuthenticatorData,
                                "the credential id has \(credentialID.count) bytes; it must have 1 to \(Self.maximumCredentialIDLength)")
        }
        guard publicKey.mapValue != nil else {
            throw WebAuthnError(.malformedAuthenticatorData, "the credential public key is \(publicKey.kindDescription), not a COSE_Key map")
        }
        self.aaguid = aaguid
        self.credentialID = credentialID
        self.publicKey = publicKey
    }
}

/// WebAuthn authenticator data (Level 3 §6.1):
///
/// ```
/// rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian) ‖ [attested credential data] ‖ [extensions map]
/// attested credential data = aaguid (16) ‖ credentialIdLength (2, big-endian) ‖ credentialId ‖ COSE_Key
/// ```
///
/// The AT and ED flags always agree with the presence of ``attestedCredential`` and ``extensions``:
/// the initialiser sets them, the parser refuses data where they disagree.
public struct AuthenticatorData: Hashable, Sendable {
    /// SHA-256 of the relying party id (32 bytes).
    public let rpIDHash: [UInt8]
    /// The flags, AT and ED included.
    public let flags: AuthenticatorFlags
    /// The signature counter (0 when the authenticator keeps none).
    public let signCount: UInt32
    /// The new credential, in a registration's authenticator data.
    public let attestedCredential: AttestedCredentialData?
    /// The authenticator extension outputs (a map), if any.
    public let extensions: CBOR?

    /// Authenticator data for `relyingParty` (its id is hashed with SHA-256). AT and ED in `flags`
    /// are replaced by whether `attestedCredential` and `extensions` are given.
    public init(
        relyingParty: String, flags: AuthenticatorFlags, signCount: UInt32,
        attestedCredential: AttestedCredentialData? = nil, extensions: [CBOR: CBOR]? = nil
    ) {
        var flags = flags
        flags.remove([.attestedCredentialData, .extensionData])
        if attestedCredential != nil { flags.insert(.attestedCredentialData) }
        if extensions != nil { flags.insert(.extensionData) }
        self.rpIDHash = Self.rpIDHash(relyingParty)
        self.flags = flags
        self.signCount = signCount
        self.attestedCredential = attestedCredential
        self.extensions = extensions.map(CBOR.map)
    }

    /// SHA-256 of a relying party id's UTF-8 bytes, as authenticator data starts.
    public static func rpIDHash(_ relyingParty: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(relyingParty.utf8)))
    }

    /// The authenticator data's bytes (the COSE key and extensions in canonical CBOR).
    public var bytes: [UInt8] {
        var out = rpIDHash
        out.append(flags.rawValue)
        out += [UInt8(signCount >> 24), UInt8(signCount >> 16 & 0xFF), UInt8(signCount >> 8 & 0xFF), UInt8(signCount & 0xFF)]
        if let attestedCredential {
            out += attestedCredential.aaguid
            let length = attestedCredential.credentialID.count
            out += [UInt8(length >> 8), UInt8(length & 0xFF)]
            out += attestedCredential.credentialID
            attestedCredential.publicKey.encode(into: &out)
        }
        extensions?.encode(into: &out)
        return out
    }

    /// Reads authenticator data strictly: at least 37 bytes; with AT, a 16-byte AAGUID, a credential
    /// id of 1 to 1023 bytes and a COSE key map; with ED, an extensions map; no AT or ED flag
    /// without its data, no bytes left over, and BS only with BE.
    public init(parsing bytes: [UInt8]) throws(WebAuthnError) {
        func malformed(_ message: String) -> WebAuthnError { WebAuthnError(.malformedAuthenticatorData, "authenticator data: \(message)") }
        guard bytes.count >= 37 else {
            throw malformed("\(bytes.count) bytes; at least 37 are needed (rpIdHash 32, flags 1, signCount 4)")
        }
        let flags = AuthenticatorFlags(rawValue: bytes[32])
        if flags.contains(.backedUp) && !flags.contains(.backupEligible) {
            throw malformed("flags \(flags) set BS (backed up) without BE (backup eligible)")
        }
        var position = 37
        var attested: AttestedCredentialData?
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= position + 18 else {
                throw malformed("the AT flag is set but the \(bytes.count) bytes end before the AAGUID and credential id length")
            }
            let aaguid = Array(bytes[position..<(position + 16)])
            let length = Int(bytes[position + 16]) << 8 | Int(bytes[position + 17])
            position += 18
            guard length <= AttestedCredentialData.maximumCredentialIDLength else {
                throw malformed("credential id length \(length) is more than the \(AttestedCredentialData.maximumCredentialIDLength) allowed")
            }
            guard bytes.count >= position + length else {
                throw malformed("credential id length \(length) is more than the \(bytes.count - position) bytes left")
            }
            let credentialID = Array(bytes[position..<(position + length)])
            position += length
            let key: CBOR
            do {
                (key, position) = try CBOR.decode(bytes, from: position)
            } catch {
                throw malformed("the credential public key: \(error)")
            }
            do {
                attested = try AttestedCredentialData(aaguid: aaguid, credentialID: credentialID, publicKey: key)
                _ = try COSEKey.algorithm(of: key)
            } catch {
                throw malformed(error.message)
            }
        }
        var extensions: CBOR?
        if flags.contains(.extensionData) {
            guard position < bytes.count else { throw malformed("the ED flag is set but no extensions follow") }
            do {
                (extensions, position) = try CBOR.decode(bytes, from: position)
            } catch {
                throw malformed("the extensions: \(error)")
            }
            guard extensions?.mapValue != nil else {
                throw malformed("the extensions are \(extensions?.kindDescription ?? "missing"), not a map")
            }
        }
        guard position == bytes.count else {
            let left = bytes.count - position
            let follow = left == 1 ? "1 byte follows" : "\(left) bytes follow"
            throw malformed(flags.contains(.attestedCredentialData) || flags.contains(.extensionData)
                ? "\(follow) the last item the flags (\(flags)) announce"
                : "\(follow) the signature counter, but neither AT nor ED is set (flags \(flags))")
        }
        rpIDHash = Array(bytes[0..<32])
        self.flags = flags
        signCount = UInt32(bytes[33]) << 24 | UInt32(bytes[34]) << 16 | UInt32(bytes[35]) << 8 | UInt32(bytes[36])
        attestedCredential = attested
        self.extensions = extensions
    }
}
