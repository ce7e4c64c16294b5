import AutofillCore
import AutofillHost
import Testing

/// A passkey answer may claim (UP, UV) no more than was established: a provider that signs UP when
/// only a UI script answered, or UV when nobody verified the user, is refused.
struct PasskeyClaimCheckTests {
    static func assertion(flags: UInt8) -> Credential {
        .passkeyAssertion(PasskeyAssertionCredential(
            relyingParty: "example.com", credentialID: [1], userHandle: [2],
            authenticatorData: [UInt8](repeating: 0, count: 32) + [flags, 0, 0, 0, 1], signature: [3], clientDataHash: [4]))
    }

    static let nothing = UserAuthentication(method: .none, userPresent: false, userVerified: false)
    static let presence = UserAuthentication(method: .confirm, userPresent: true, userVerified: false)
    static let verification = UserAuthentication(method: .pam, userPresent: true, userVerified: true)
    static let scriptedSecret = UserAuthentication(method: .provider, userPresent: false, userVerified: true)

    @Test(arguments: [
        (UInt8(0x00), nothing, true), (0x01, nothing, false), (0x04, nothing, false), (0x05, nothing, false),
        (0x01, presence, true), (0x05, presence, false),
        (0x05, verification, true),
        (0x04, scriptedSecret, true), (0x05, scriptedSecret, false),
        (0x08, nothing, true),  // BE says nothing about the user
    ])
    func flagsMayClaimOnlyWhatWasEstablished(flags: UInt8, established: UserAuthentication, accepted: Bool) {
        let problem = PasskeyClaimCheck.problem(with: Self.assertion(flags: flags), established: established)
        #expect((problem == nil) == accepted, "flags \(flags) with \(established): \(problem ?? "accepted")")
    }

    @Test func otherCredentialsAreNotItsConcern() {
        #expect(PasskeyClaimCheck.problem(with: .text(Secret("t")), established: Self.nothing) == nil)
    }
}
