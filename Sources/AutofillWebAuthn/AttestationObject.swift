/// WebAuthn attestation objects (Level 3 §6.5.4): `{"fmt": …, "attStmt": {…}, "authData": bytes}` in CBOR.
public enum AttestationObject {
    /// A `fmt: "none"` attestation object (no attestation statement) for `authenticatorData`,
    /// in canonical CBOR: `{"fmt": "none", "attStmt": {}, "authData": h'…'}`.
    public static func none(authenticatorData: AuthenticatorData) -> [UInt8] {
        CBOR.map(["fmt": "none", "attStmt": .map([:]), "authData": .bytes(authenticatorData.bytes)]).encoded()
    }

    /// Reads an attestation object: its format, its authenticator data parsed strictly, and the
    /// authenticator data's bytes exactly as given (what a relying party hashes and stores).
    /// `fmt: "none"` must have an empty `attStmt`; other formats' statements are not checked here.
    public static func parse(_ bytes: [UInt8]) throws(WebAuthnError) -> (
        format: String, authenticatorData: AuthenticatorData, rawAuthenticatorData: [UInt8]
    ) {
        func malformed(_ message: String) -> WebAuthnError { WebAuthnError(.malformedAttestationObject, "attestation object: \(message)") }
        let object: CBOR
        do {
            object = try CBOR.decode(bytes)
        } catch {
            throw malformed("\(error)")
        }
        guard object.mapValue != nil else { throw malformed("it is \(object.kindDescription), not a map") }
        guard let format = object["fmt"]?.textValue else { throw malformed("\"fmt\" is missing or not text") }
        guard let statement = object["attStmt"]?.mapValue else { throw malformed("\"attStmt\" is missing or not a map") }
        guard let raw = object["authData"]?.bytesValue else { throw malformed("\"authData\" is missing or not a byte string") }
        if format == "none" && !statement.isEmpty {
            throw malformed("fmt \"none\" needs an empty \"attStmt\"; this one has \(statement.count == 1 ? "1 entry" : "\(statement.count) entries")")
        }
        let data = try AuthenticatorData(parsing: raw)
        guard data.attestedCredential != nil else {
            throw malformed("its authenticator data has no attested credential data (the AT flag is not set)")
        }
        return (format, data, raw)
    }
}
