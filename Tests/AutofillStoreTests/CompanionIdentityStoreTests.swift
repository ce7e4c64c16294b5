import AutofillCompanion
import AutofillStore
import Testing

/// A companion program writes its provider's store where the host reads it.
struct CompanionIdentityStoreTests {
    @Test func aCompanionWritesWhereTheHostReads() throws {
        let folder = try StoreFolder()
        let environment = ["HOME": folder.path, "XDG_DATA_HOME": "\(folder.path)/data"]
        let hostView = IdentityStoreDirectory(environment: environment)
        try SQLiteIdentityStore.open(providerID: "org.test.vault", in: hostView).setEnabled(true)  // the host enabled it

        let companion = try CompanionIdentityStore.open(providerID: "org.test.vault", environment: environment)
        #expect(try companion.state().supportsIncrementalUpdates == false)
        try companion.replace(with: [Sample.password("alice")])
        try companion.save([Sample.password("bob")])

        let host = try #require(try SQLiteIdentityStore.openIfExists(providerID: "org.test.vault", in: hostView))
        #expect(try host.identities(lookupKey: "example.com", kinds: [.password]).map(\.displayUser) == ["alice", "bob"])
    }

    @Test func aCompanionOfADisabledProviderCannotWrite() throws {
        let folder = try StoreFolder()
        let companion = try CompanionIdentityStore.open(providerID: "org.test.off", environment: ["HOME": folder.path])
        #expect(throws: IdentityStoreError(.storeDisabled, "the identity store of org.test.off is disabled: enable the provider first (`autofill providers enable org.test.off`)")) {
            try companion.save([Sample.password("alice")])
        }
    }
}
