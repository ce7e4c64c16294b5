public import AutofillCore
internal import AutofillWebAuthn
public import AutofillMatching

/// `PublicKeyCredential.toJSON()` (WebAuthn Level 3 §5.1.8): what `autofill passkey get/create
/// --json` prints, for a relying party's server to verify. Binary members are base64url.
public enum PublicKeyCredentialJSON {
    /// `AuthenticationResponseJSON` for an assertion. `clientDataJSON` is nil when the caller gave
    /// a ready client data hash (it holds the client data itself); the member is then omitted.
    public static func assertion(_ assertion: PasskeyAssertionCredential, clientDataJSON: [UInt8]?) -> String {
        var response: [(key: String, value: JSONNode)] = []
        if let clientDataJSON { response.append(("clientDataJSON", JSONNode(.text(Base64URL.encode(clientDataJSON))))) }
        response.append(("authenticatorData", JSONNode(.text(Base64URL.encode(assertion.authenticatorData)))))
        response.append(("signature", JSONNode(.text(Base64URL.encode(assertion.signature)))))
        response.append(("userHandle", JSONNode(assertion.userHandle.isEmpty ? .null : .text(Base64URL.encode(assertion.userHandle)))))
        return credential(id: assertion.credentialID, response: response, extensionOutputs: assertion.extensionOutputsJSON)
    }

    /// `RegistrationResponseJSON` for a new passkey, with the convenience members browsers add
    /// (`authenticatorData`, `publicKey` as DER SubjectPublicKeyInfo, `publicKeyAlgorithm`, `transports`).
    public static func registration(_ registration: PasskeyRegistrationCredential, clientDataJSON: [UInt8]?) throws(WebAuthnRequestError) -> String {
        let parsed: (format: String, authenticatorData: AuthenticatorData, rawAuthenticatorData: [UInt8])
        let publicKey: [UInt8]
        let algorithm: Int
        do {
            parsed = try AttestationObject.parse(registration.attestationObject)
            let cose = parsed.authenticatorData.attestedCredential!.publicKey
            algorithm = try COSEKey.algorithm(of: cose)
            publicKey = try COSEKey.subjectPublicKeyInfo(from: cose)
        } catch {
            throw WebAuthnRequestError("The new passkey's attestation object cannot be read: \(error)")
        }
        var response: [(key: String, value: JSONNode)] = []
        if let clientDataJSON { response.append(("clientDataJSON", JSONNode(.text(Base64URL.encode(clientDataJSON))))) }
        response.append(("attestationObject", JSONNode(.text(Base64URL.encode(registration.attestationObject)))))
        response.append(("authenticatorData", JSONNode(.text(Base64URL.encode(parsed.rawAuthenticatorData)))))
        response.append(("transports", JSONNode(.array([JSONNode(.text("internal"))]))))
        response.append(("publicKey", JSONNode(.text(Base64URL.encode(publicKey)))))
        response.append(("publicKeyAlgorithm", JSONNode(.number(String(algorithm)))))
        return credential(id: registration.credentialID, response: response, extensionOutputs: registration.extensionOutputsJSON)
    }

    private static func credential(id: [UInt8], response: [(key: String, value: JSONNode)], extensionOutputs: String?) -> String {
        var extensions = JSONElement.object([])
        if let extensionOutputs, let parsed = try? JSONDocumentReader.parse(Array(extensionOutputs.utf8)), case .object = parsed.value {
            extensions = parsed.value
        }
        let id = Base64URL.encode(id)
        return JSONElement.members([
            "id": .text(id),
            "rawId": .text(id),
            "type": .text("public-key"),
            "authenticatorAttachment": .text("platform"),
            "response": .object(response),
            "clientExtensionResults": extensions,
        ]).serialized
    }
}
