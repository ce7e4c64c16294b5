import AutofillCore
import AutofillStore
import Foundation
import Testing

/// Apple's identity-store semantics on the real SQLite store.
struct SQLiteIdentityStoreTests {
    let folder: StoreFolder

    init() throws {
        folder = try StoreFolder()
    }

    @Test func aNewStoreIsDisabledAndRefusesWrites() throws {
        let store = try SQLiteIdentityStore.open(providerID: "org.test.new", in: folder.directory)
        #expect(try store.state() == IdentityStoreState(isEnabled: false, supportsIncrementalUpdates: false))
        let error = #expect(throws: IdentityStoreError.self) { try store.save([Sample.password("alice")]) }
        #expect(error?.code == .storeDisabled)
        #expect(error?.message.contains("autofill providers enable org.test.new") == true)
        #expect(try store.count() == 0)
    }

    @Test func savedIdentitiesPersistAcrossOpens() throws {
        try folder.enabledStore().save([Sample.password("alice"), Sample.passkey("bob", id: 7), Sample.code("carol")])
        let reopened = try #require(try SQLiteIdentityStore.openIfExists(providerID: "org.test.provider", in: folder.directory))
        #expect(try reopened.allIdentities() == [Sample.password("alice"), Sample.passkey("bob", id: 7), Sample.code("carol")])
        #expect(try reopened.allIdentities(kinds: [.passkey]) == [Sample.passkey("bob", id: 7)])
    }

    @Test func savingAnExistingIdentityReplacesIt() throws {
        let store = try folder.enabledStore()
        try store.save([Sample.password("alice", rank: 1)])
        try store.save([Sample.password("alice", rank: 9)])
        #expect(try store.allIdentities() == [Sample.password("alice", rank: 9)])
        try store.save([.passkey(.init(relyingPartyIdentifier: "example.com", userName: "renamed", credentialID: [7, 1, 2, 3], userHandle: [7]))])
        try store.save([Sample.passkey("bob", id: 7)])
        #expect(try store.allIdentities(kinds: [.passkey]) == [Sample.passkey("bob", id: 7)])
    }

    @Test func removeDeletesOnlyTheNamedIdentities() throws {
        let store = try folder.enabledStore()
        try store.save([Sample.password("alice"), Sample.password("bob")])
        try store.remove([Sample.password("alice", rank: 5), Sample.password("nobody")])
        #expect(try store.allIdentities() == [Sample.password("bob")])
    }

    @Test func replaceDeletesAllThenSavesAndTurnsIncrementalUpdatesOn() throws {
        let store = try folder.enabledStore()
        #expect(try store.state().supportsIncrementalUpdates == false)
        try store.save([Sample.password("old")])
        try store.replace(with: [Sample.password("new1"), Sample.password("new2")])
        #expect(try store.allIdentities() == [Sample.password("new1"), Sample.password("new2")])
        #expect(try store.state() == IdentityStoreState(isEnabled: true, supportsIncrementalUpdates: true))
        try store.removeAll()
        #expect(try store.count() == 0)
    }

    @Test func disablingWipesTheStoreAndAFullListIsNeededAfterward() throws {
        let store = try folder.enabledStore()
        try store.replace(with: [Sample.password("alice")])
        try store.setEnabled(false)
        #expect(try store.count() == 0)
        #expect(try store.state() == IdentityStoreState(isEnabled: false, supportsIncrementalUpdates: false))
        try store.setEnabled(true)
        #expect(try store.state() == IdentityStoreState(isEnabled: true, supportsIncrementalUpdates: false))
    }

    @Test func aWipeKeepsTheStoreEnabled() throws {
        let store = try folder.enabledStore()
        try store.replace(with: [Sample.password("alice")])
        try store.wipe()
        #expect(try store.state() == IdentityStoreState(isEnabled: true, supportsIncrementalUpdates: false))
        #expect(try store.count() == 0)
    }

    @Test func aBatchWithOneInvalidIdentityWritesNothing() throws {
        let store = try folder.enabledStore()
        try store.save([Sample.password("kept")])
        let invalid = CredentialIdentity.passkey(.init(relyingPartyIdentifier: "example.com", userName: "x", credentialID: [], userHandle: [1]))
        let error = #expect(throws: IdentityStoreError.self) { try store.replace(with: [Sample.password("a"), invalid]) }
        #expect(error?.message == "identity 2 of 2 (passkey) is invalid: the credential id is empty; nothing was written")
        #expect(try store.allIdentities() == [Sample.password("kept")])
    }

    @Test func storesAreIndexedByLookupKey() throws {
        let store = try folder.enabledStore()
        try store.save([Sample.password("a", "www.example.com"), Sample.password("b", "other.test"), Sample.code("c", "https://login.example.com/x")])
        #expect(try store.identities(lookupKey: "example.com", kinds: [.password, .oneTimeCode]).map(\.displayUser) == ["a", "c"])
        #expect(try store.identities(lookupKey: "example.com", kinds: [.password]).map(\.displayUser) == ["a"])
    }

    @Test func filesAndFoldersAreOnlyTheUsers() throws {
        let store = try folder.enabledStore()
        try store.save([Sample.password("alice")])
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: folder.directory.path)
        #expect((folderAttributes[.posixPermissions] as? Int) == 0o700)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: store.path + suffix) {
            #expect((try FileManager.default.attributesOfItem(atPath: store.path + suffix)[.posixPermissions] as? Int) == 0o600)
        }
    }

    @Test func eachProviderHasItsOwnFile() throws {
        let a = try folder.enabledStore("org.test.a"), b = try folder.enabledStore("org.test.b")
        try a.save([Sample.password("alice")])
        #expect(try b.count() == 0)
        #expect(a.path != b.path)
    }

    @Test func aWriterWaitingTooLongGetsStoreBusy() throws {
        let store = try folder.enabledStore()
        let locker = Process()
        locker.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        locker.arguments = [store.path]
        let input = Pipe(), output = Pipe()
        locker.standardInput = input
        locker.standardOutput = output
        locker.standardError = FileHandle.nullDevice
        try locker.run()
        // Take the write lock, then say so; wait for the word rather than guess how long it takes.
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nSELECT 'locked';\n".utf8))
        var said = ""
        while !said.contains("locked") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        #expect(said.contains("locked"))
        let started = Date()
        let error = #expect(throws: IdentityStoreError.self) { try store.save([Sample.password("alice")]) }
        #expect(error?.code == .storeBusy)
        #expect(Date().timeIntervalSince(started) >= 2.5, "a writer waits before giving up")
        input.fileHandleForWriting.write(Data("ROLLBACK;\n.quit\n".utf8))
        locker.waitUntilExit()
        try store.save([Sample.password("alice")])
        #expect(try store.count() == 1)
    }
}
