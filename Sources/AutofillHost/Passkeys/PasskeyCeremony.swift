public import AutofillCore
public import AutofillMatching
internal import Crypto

/// One WebAuthn ceremony as the host prepares it, before any provider is asked: the origin checked,
/// the relying party id checked against it, and the client data built and hashed.
///
/// The host plays the WebAuthn *client* (the browser's part): it owns the origin and the client
/// data; providers play the *authenticator* and sign only the client data's hash.
public struct PasskeyCeremony: Sendable {
    /// `webauthn.get` (sign in) or `webauthn.create` (registration).
    public enum Kind: String, Sendable {
        case get = "webauthn.get"
        case create = "webauthn.create"
    }

    public let kind: Kind
    /// The caller's origin.
    public let origin: WebAuthnOrigin
    /// The relying party id, checked and in ASCII form.
    public let relyingParty: String
    /// The client data JSON the host built, or nil when the caller gave a ready hash.
    public let clientDataJSON: [UInt8]?
    /// SHA-256 of the client data: what the provider signs.
    public let clientDataHash: [UInt8]

    /// Checks `requestedRelyingParty` against `origin` and builds the client data for `challenge`;
    /// with `clientDataHash`, uses that hash instead (the caller built the client data). `topOrigin`
    /// is the top-level page's origin when `origin` is a frame not same-origin with its ancestors.
    public init(kind: Kind, origin: WebAuthnOrigin, requestedRelyingParty: String?, challenge: [UInt8],
                clientDataHash: [UInt8]? = nil, topOrigin: WebAuthnOrigin? = nil) throws(WebAuthnRequestError) {
        self.kind = kind
        self.origin = origin
        relyingParty = try origin.relyingParty(requestedRelyingParty)
        if let clientDataHash {
            guard clientDataHash.count == 32 else {
                throw WebAuthnRequestError("The client data hash is \(clientDataHash.count) bytes; a SHA-256 hash is 32 bytes (base64url).")
            }
            self.clientDataJSON = nil
            self.clientDataHash = clientDataHash
        } else {
            let json = Self.clientDataJSON(kind: kind, challenge: challenge, origin: origin, topOrigin: topOrigin)
            self.clientDataJSON = json
            self.clientDataHash = Self.sha256(json)
        }
    }

    /// `{"type":…,"challenge":…,"origin":…,"crossOrigin":false}`: the members in the order
    /// WebAuthn's "limited verification algorithm" expects, serialized as browsers do; for a request
    /// of a cross-origin frame, `"crossOrigin":true,"topOrigin":…` (WebAuthn L3 §5.8.1.1).
    public static func clientDataJSON(kind: Kind, challenge: [UInt8], origin: WebAuthnOrigin, topOrigin: WebAuthnOrigin? = nil) -> [UInt8] {
        var members: [(key: String, value: JSONNode)] = [
            ("type", JSONNode(.text(kind.rawValue))),
            ("challenge", JSONNode(.text(Base64URL.encode(challenge)))),
            ("origin", JSONNode(.text(origin.serialized))),
            ("crossOrigin", JSONNode(.bool(topOrigin != nil))),
        ]
        if let topOrigin { members.append(("topOrigin", JSONNode(.text(topOrigin.serialized)))) }
        let value = JSONElement.object(members)
        return Array(value.serialized.utf8)
    }

    /// SHA-256 of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }

    /// The passkey parameters a provider receives for this ceremony.
    public func parameters(userVerification: UserVerificationPreference, credentialIDs: [[UInt8]], algorithms: [Int] = [],
                           style: PasskeyRegistrationStyle = .standard, extensionsJSON: String?) -> PasskeyParameters {
        PasskeyParameters(relyingParty: relyingParty, clientDataHash: clientDataHash, userVerification: userVerification,
                          style: style, credentialIDs: credentialIDs, algorithms: algorithms, extensionsJSON: extensionsJSON)
    }
}
