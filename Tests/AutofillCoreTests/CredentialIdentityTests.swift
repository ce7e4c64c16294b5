import AutofillCore
import Testing

/// What the host reads off any of the three identity kinds without knowing which it is.
struct CredentialIdentityTests {
    static let service = ServiceIdentifier(identifier: "example.com", type: .domain)

    static let table: [(identity: CredentialIdentity, kind: CredentialIdentity.Kind, user: String, record: String?, rank: Int)] = [
        (.password(PasswordCredentialIdentity(serviceIdentifier: service, user: "alice", recordIdentifier: "p1", rank: 3)),
         .password, "alice", "p1", 3),
        (.passkey(PasskeyCredentialIdentity(
            relyingPartyIdentifier: "example.com", userName: "bob", credentialID: [1], userHandle: [2],
            recordIdentifier: "k1", rank: -1)),
         .passkey, "bob", "k1", -1),
        (.oneTimeCode(OneTimeCodeCredentialIdentity(serviceIdentifier: service, label: "carol's phone")),
         .oneTimeCode, "carol's phone", nil, 0),
    ]

    @Test func theTableCoversEveryKind() {
        #expect(Self.table.map(\.kind) == CredentialIdentity.Kind.allCases)
    }

    @Test(arguments: table)
    func eachKindExposesItsKindUserRecordAndRank(
        _ row: (identity: CredentialIdentity, kind: CredentialIdentity.Kind, user: String, record: String?, rank: Int)
    ) {
        #expect(row.identity.kind == row.kind)
        #expect(row.identity.displayUser == row.user)
        #expect(row.identity.recordIdentifier == row.record)
        #expect(row.identity.rank == row.rank)
    }

    @Test func identitiesDefaultToNoRecordAndRankZero() {
        let password = PasswordCredentialIdentity(serviceIdentifier: Self.service, user: "alice")
        #expect(password.recordIdentifier == nil)
        #expect(password.rank == 0)
        let passkey = PasskeyCredentialIdentity(
            relyingPartyIdentifier: "example.com", userName: "alice", credentialID: [], userHandle: [])
        #expect(passkey.recordIdentifier == nil)
        #expect(passkey.rank == 0)
    }
}
