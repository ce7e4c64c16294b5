public import Crypto
internal import FoundationEssentials

/// ES256 (ECDSA with P-256 and SHA-256) assertion signatures: over `authenticatorData ‖ clientDataHash`,
/// DER-encoded, as WebAuthn's `AuthenticatorAssertionResponse.signature` carries them.
public enum ES256 {
    /// A fresh P-256 key pair for a new credential (from the system's random number generator).
    public static func generateKey() -> P256.Signing.PrivateKey {
        P256.Signing.PrivateKey()
    }

    /// Signs `authenticatorData ‖ clientDataHash` with `key`; the DER signature.
    public static func sign(
        authenticatorData: [UInt8], clientDataHash: [UInt8], with key: P256.Signing.PrivateKey
    ) throws(WebAuthnError) -> [UInt8] {
        do {
            return Array(try key.signature(for: authenticatorData + clientDataHash).derRepresentation)
        } catch {
            throw WebAuthnError(.signature, "cannot sign with the credential's P-256 key")
        }
    }

    /// Whether `signature` (DER) is `publicKey`'s valid signature over `authenticatorData ‖ clientDataHash`;
    /// false for a wrong signature or one that is not DER.
    public static func verify(
        signature: [UInt8], authenticatorData: [UInt8], clientDataHash: [UInt8], publicKey: P256.Signing.PublicKey
    ) -> Bool {
        guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
        return publicKey.isValidSignature(parsed, for: authenticatorData + clientDataHash)
    }

    /// The same check with the public key given as an ES256 COSE key; throws if the key is not one.
    public static func verify(
        signature: [UInt8], authenticatorData: [UInt8], clientDataHash: [UInt8], coseKey: CBOR
    ) throws(WebAuthnError) -> Bool {
        verify(signature: signature, authenticatorData: authenticatorData, clientDataHash: clientDataHash,
               publicKey: try COSEKey.publicKey(from: coseKey))
    }
}
