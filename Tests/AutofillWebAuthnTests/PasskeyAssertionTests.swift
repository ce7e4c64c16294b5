import AutofillCore
import AutofillWebAuthn
import Crypto
import Testing

/// The checks before a passkey signs, and the assertion it makes.
struct PasskeyAssertionTests {
    static func parameters(hash: [UInt8] = Array(repeating: 7, count: 32), allowed: [[UInt8]] = [], scripted: Bool = false) -> PasskeyParameters {
        var parameters = PasskeyParameters(relyingParty: "example.com", clientDataHash: hash)
        parameters.credentialIDs = allowed
        parameters.hostUserInterfaceScripted = scripted
        parameters.hostUserPresent = false
        return parameters
    }

    @Test func aClientDataHashThatIsNotASHA256IsRefused() {
        #expect(PasskeyAssertion.problem(with: Self.parameters(hash: [1, 2, 3]), identity: nil, credentialID: nil)?.contains("3 bytes") == true)
    }

    @Test func anIdentityOfAnotherRelyingPartyIsRefused() {
        let identity = PasskeyCredentialIdentity(relyingPartyIdentifier: "evil.example", userName: "a", credentialID: [1], userHandle: [2])
        #expect(PasskeyAssertion.problem(with: Self.parameters(), identity: identity, credentialID: nil)?.contains("evil.example") == true)
    }

    @Test func aCredentialLeftOutOfAllowCredentialsIsRefused() {
        #expect(PasskeyAssertion.problem(with: Self.parameters(allowed: [[9]]), identity: nil, credentialID: [1])?.contains("allowCredentials") == true)
        #expect(PasskeyAssertion.problem(with: Self.parameters(allowed: [[1]]), identity: nil, credentialID: [1]) == nil)
    }

    @Test func aScriptedUIIsNoPresenceButATypedPasswordStillVerifies() {
        #expect(UserCheck.masterPassword.honest(for: Self.parameters(scripted: true)) == UserCheck(present: false, verified: true))
        #expect(UserCheck.masterPassword.honest(for: Self.parameters()) == .masterPassword)
    }

    @Test func theAssertionVerifiesWithTheKeysPublicKey() throws {
        let key = ES256.generateKey()
        let assertion = try PasskeyAssertion.make(
            relyingParty: "example.com", credentialID: [1, 2], userHandle: [3], signCount: 0,
            flags: UserCheck.masterPassword.flags(backup: .backupEligible), clientDataHash: Array(repeating: 7, count: 32), key: key)
        #expect(ES256.verify(signature: assertion.signature, authenticatorData: assertion.authenticatorData,
                             clientDataHash: assertion.clientDataHash, publicKey: key.publicKey))
        #expect(assertion.authenticatorData[32] == AuthenticatorFlags([.userPresent, .userVerified, .backupEligible]).rawValue)
    }
}
