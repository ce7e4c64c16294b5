import AutofillCompanion
import AutofillCore
import AutofillStore
import Testing
@testable import VaultCore

/// Keeping a provider's identity store in step with its vault.
struct IdentityChangesTests {
    static func login(_ user: String, rank: Int = 0, record: String? = nil) -> CredentialIdentity {
        .password(PasswordCredentialIdentity(serviceIdentifier: Fixture.example, user: user, recordIdentifier: record ?? user, rank: rank))
    }

    @Test func theChangesSaveNewAndChangedAndRemoveWhatIsGone() {
        let changes = IdentityChanges(
            from: [Self.login("alice"), Self.login("bob"), Self.login("carol", rank: 1)],
            to: [Self.login("alice"), Self.login("carol", rank: 5), Self.login("dave")])
        #expect(changes.save == [Self.login("carol", rank: 5), Self.login("dave")])
        #expect(changes.remove == [Self.login("bob")])
        #expect(IdentityChanges(from: [Self.login("a")], to: [Self.login("a")]).isEmpty)
    }

    @Test func aChangedUserRemovesTheOldIdentity() {
        let changes = IdentityChanges(from: [Self.login("alice", record: "r1")], to: [Self.login("alicia", record: "r1")])
        #expect(changes.save == [Self.login("alicia", record: "r1")])
        #expect(changes.remove == [Self.login("alice", record: "r1")])
    }

    @Test func theVaultsIdentitiesHoldNoSecrets() {
        #expect(Fixture.contents.identities == [
            .password(PasswordCredentialIdentity(serviceIdentifier: Fixture.example, user: "alice", recordIdentifier: "vault-1", rank: 2)),
            .password(PasswordCredentialIdentity(serviceIdentifier: Fixture.example, user: "bob", recordIdentifier: "vault-2", rank: 1)),
            .oneTimeCode(OneTimeCodeCredentialIdentity(serviceIdentifier: Fixture.example, label: "alice", recordIdentifier: "otp-1")),
        ])
    }

    @Test func publishingWritesIncrementallyToARealStore() throws {
        let folder = try TemporaryFolder()
        let environment = ["HOME": folder.path, "XDG_DATA_HOME": "\(folder.path)/data"]
        let host = try SQLiteIdentityStore.open(providerID: "org.test.vault", in: IdentityStoreDirectory(environment: environment))
        try host.setEnabled(true)
        let store = try CompanionIdentityStore.open(providerID: "org.test.vault", environment: environment)

        // After enabling, the store wants the full list once.
        var contents = Fixture.contents
        #expect(try IdentityPublisher.publish(IdentityChanges(from: [], to: contents.identities), all: contents.identities, to: store)
            == .replaced(count: 3))

        // Something else in the store survives incremental updates (a replace would drop it).
        let foreign = Self.login("zed", record: "elsewhere")
        try store.save([foreign])

        let before = contents.identities
        contents.remove(id: "vault-2")
        try contents.add(.password(PasswordEntry(id: "vault-9", service: Fixture.example, user: "erin", password: Secret("x"))))
        let outcome = try IdentityPublisher.publish(IdentityChanges(from: before, to: contents.identities), all: contents.identities, to: store)
        #expect(outcome == .incremental(saved: 1, removed: 1))
        #expect(Set(try host.allIdentities()) == Set(contents.identities + [foreign]))

        #expect(try IdentityPublisher.publish(IdentityChanges(from: contents.identities, to: contents.identities), all: [], to: store)
            == .unchanged)

        // After a wipe (disable, enable) the full list is written again.
        try host.setEnabled(false)
        try host.setEnabled(true)
        #expect(try IdentityPublisher.publish(IdentityChanges(from: [], to: []), all: contents.identities, to: store)
            == .replaced(count: 3))
        #expect(Set(try host.allIdentities()) == Set(contents.identities))
    }

    @Test func aDisabledStoreRefusesTheWrite() throws {
        let folder = try TemporaryFolder()
        let store = try CompanionIdentityStore.open(providerID: "org.test.off", environment: ["HOME": folder.path])
        #expect(throws: IdentityStoreError.self) {
            try IdentityPublisher.publish(IdentityChanges(from: [], to: Fixture.contents.identities), all: Fixture.contents.identities, to: store)
        }
    }
}
