import AutofillCore
import Testing

/// The in-memory identity store follows `ASCredentialIdentityStore`: saving an existing
/// identity replaces it, writes are refused while disabled, and disabling wipes the store
/// and stops incremental updates until the provider writes its full list again.
struct InMemoryIdentityStoreTests {
    static let example = ServiceIdentifier(identifier: "example.com", type: .domain)
    static let exampleURL = ServiceIdentifier(identifier: "example.com", type: .url)
    static let other = ServiceIdentifier(identifier: "other.org", type: .domain)

    static func password(
        _ user: String = "alice", service: ServiceIdentifier = example, record: String? = nil, rank: Int = 0
    ) -> CredentialIdentity {
        .password(PasswordCredentialIdentity(serviceIdentifier: service, user: user, recordIdentifier: record, rank: rank))
    }

    static func passkey(
        _ credentialID: [UInt8] = [1, 2, 3], rp: String = "example.com", user: String = "alice",
        handle: [UInt8] = [42], record: String? = nil, rank: Int = 0
    ) -> CredentialIdentity {
        .passkey(PasskeyCredentialIdentity(
            relyingPartyIdentifier: rp, userName: user, credentialID: credentialID, userHandle: handle,
            recordIdentifier: record, rank: rank))
    }

    static func oneTimeCode(
        _ label: String = "alice", service: ServiceIdentifier = example, record: String? = nil, rank: Int = 0
    ) -> CredentialIdentity {
        .oneTimeCode(OneTimeCodeCredentialIdentity(serviceIdentifier: service, label: label, recordIdentifier: record, rank: rank))
    }

    // MARK: Reading and writing

    @Test func aNewStoreIsEnabledEmptyAndSupportsIncrementalUpdates() throws {
        let store = InMemoryIdentityStore()
        #expect(store.allIdentities.isEmpty)
        #expect(try store.state() == IdentityStoreState(isEnabled: true, supportsIncrementalUpdates: true))
    }

    @Test func savedIdentitiesReadBackInTheOrderFirstSaved() throws {
        let store = InMemoryIdentityStore()
        let identities = [Self.password("alice"), Self.passkey(), Self.oneTimeCode("alice"), Self.password("bob")]
        try store.save(Array(identities.prefix(2)))
        try store.save(Array(identities.dropFirst(2)))
        #expect(store.allIdentities == identities)
    }

    @Test func savingNothingChangesNothing() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.password()])
        try store.save([])
        #expect(store.allIdentities == [Self.password()])
    }

    @Test func savingAnExistingIdentityReplacesItInPlace() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.password("alice", rank: 1), Self.password("bob")])
        try store.save([Self.password("alice", rank: 5)])
        #expect(store.allIdentities == [Self.password("alice", rank: 5), Self.password("bob")])
    }

    @Test func savingTheSameIdentityTwiceInOneCallKeepsTheLastOne() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.oneTimeCode(rank: 1), Self.oneTimeCode(rank: 2)])
        #expect(store.allIdentities == [Self.oneTimeCode(rank: 2)])
    }

    @Test func savingAPasskeyAgainReplacesItsUserNameHandleRecordAndRank() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.passkey([7], user: "alice", handle: [1], record: "r1", rank: 0)])
        let renamed = Self.passkey([7], user: "alice@example.com", handle: [2], record: "r2", rank: 3)
        try store.save([renamed])
        #expect(store.allIdentities == [renamed])
    }

    @Test func removingAnIdentityLeavesTheOthersInOrder() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.password("alice"), Self.password("bob"), Self.password("carol")])
        try store.remove([Self.password("bob")])
        #expect(store.allIdentities == [Self.password("alice"), Self.password("carol")])
    }

    @Test func removingMatchesTheIdentityNotItsRank() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.password("alice", rank: 9), Self.passkey([1], rank: 9)])
        try store.remove([Self.password("alice", rank: 0), Self.passkey([1], user: "someone else", rank: 0)])
        #expect(store.allIdentities.isEmpty)
    }

    @Test func removingAnIdentityThatIsNotThereIsHarmless() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.password("alice")])
        try store.remove([Self.password("bob"), Self.passkey(), Self.oneTimeCode()])
        try store.remove([])
        #expect(store.allIdentities == [Self.password("alice")])
    }

    @Test func aRemovedIdentitySavedAgainGoesToTheEnd() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.password("alice"), Self.password("bob")])
        try store.remove([Self.password("alice")])
        try store.save([Self.password("alice")])
        #expect(store.allIdentities == [Self.password("bob"), Self.password("alice")])
    }

    @Test func replaceDeletesEverythingThenSaves() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.password("alice"), Self.passkey([1]), Self.oneTimeCode("alice")])
        try store.replace(with: [Self.password("bob"), Self.passkey([2]), Self.password("bob", rank: 4)])
        #expect(store.allIdentities == [Self.password("bob", rank: 4), Self.passkey([2])])
        try store.replace(with: [])
        #expect(store.allIdentities.isEmpty)
    }

    @Test func removeAllEmptiesTheStoreAndKeepsItsState() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.password(), Self.passkey(), Self.oneTimeCode()])
        try store.removeAll()
        #expect(store.allIdentities.isEmpty)
        #expect(try store.state() == IdentityStoreState(isEnabled: true, supportsIncrementalUpdates: true))
        try store.save([Self.password()])
        #expect(store.allIdentities == [Self.password()])
    }

    // MARK: Enabled and disabled

    enum Write: String, CaseIterable, Sendable {
        case save, remove, replace, removeAll

        func perform(on store: InMemoryIdentityStore) throws(IdentityStoreError) {
            let identities = [InMemoryIdentityStoreTests.password(), InMemoryIdentityStoreTests.passkey()]
            switch self {
            case .save: try store.save(identities)
            case .remove: try store.remove(identities)
            case .replace: try store.replace(with: identities)
            case .removeAll: try store.removeAll()
            }
        }
    }

    @Test(arguments: Write.allCases)
    func writesOnAStoreCreatedDisabledThrowStoreDisabledAndChangeNothing(_ write: Write) throws {
        let store = InMemoryIdentityStore(isEnabled: false)
        let before = try store.state()
        #expect(before == IdentityStoreState(isEnabled: false, supportsIncrementalUpdates: false))
        let error = #expect(throws: IdentityStoreError.self) { try write.perform(on: store) }
        #expect(error?.code == .storeDisabled)
        #expect(error?.message.isEmpty == false)
        #expect(store.allIdentities.isEmpty)
        #expect(try store.state() == before)
        #expect(before.isEnabled == false)
    }

    @Test(arguments: Write.allCases)
    func writesOnADisabledStoreThrowStoreDisabledAndChangeNothing(_ write: Write) throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.oneTimeCode()])
        store.setEnabled(false)
        let error = #expect(throws: IdentityStoreError.self) { try write.perform(on: store) }
        #expect(error?.code == .storeDisabled)
        #expect(store.allIdentities.isEmpty)
        // In particular a refused replace does not turn incremental updates back on.
        #expect(try store.state() == IdentityStoreState(isEnabled: false, supportsIncrementalUpdates: false))
    }

    @Test func disablingWipesTheStoreAndStopsIncrementalUpdates() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.password(), Self.passkey(), Self.oneTimeCode()])
        store.setEnabled(false)
        #expect(store.allIdentities.isEmpty)
        #expect(try store.state() == IdentityStoreState(isEnabled: false, supportsIncrementalUpdates: false))
    }

    @Test func reenablingKeepsIncrementalUpdatesOffUntilAReplace() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.password()])
        store.setEnabled(false)
        store.setEnabled(true)
        #expect(store.allIdentities.isEmpty)
        #expect(try store.state() == IdentityStoreState(isEnabled: true, supportsIncrementalUpdates: false))

        try store.save([Self.password("alice")])
        try store.remove([Self.password("alice")])
        try store.removeAll()
        #expect(try store.state().supportsIncrementalUpdates == false, "only replace restores incremental updates")

        try store.replace(with: [Self.password("bob")])
        #expect(store.allIdentities == [Self.password("bob")])
        #expect(try store.state() == IdentityStoreState(isEnabled: true, supportsIncrementalUpdates: true))
    }

    @Test func enablingAnEnabledStoreKeepsItsIdentities() throws {
        let store = InMemoryIdentityStore()
        try store.save([Self.password(), Self.passkey()])
        store.setEnabled(true)
        #expect(store.allIdentities == [Self.password(), Self.passkey()])
        #expect(try store.state() == IdentityStoreState(isEnabled: true, supportsIncrementalUpdates: true))
    }

    @Test func aStoreCreatedDisabledAcceptsWritesOnceEnabled() throws {
        let store = InMemoryIdentityStore(isEnabled: false)
        #expect(try store.state().isEnabled == false)
        store.setEnabled(true)
        try store.save([Self.password()])
        #expect(store.allIdentities == [Self.password()])
        #expect(try store.state().isEnabled)
    }

    // MARK: Identity keys

    @Test func passkeysAreKeyedByRelyingPartyAndCredentialID() throws {
        let store = InMemoryIdentityStore()
        try store.save([
            Self.passkey([1], rp: "example.com"),
            Self.passkey([2], rp: "example.com"),
            Self.passkey([1], rp: "other.org"),
            Self.passkey([1], rp: "example.com", user: "renamed", handle: [9], record: "r", rank: 2),
        ])
        #expect(store.allIdentities == [
            Self.passkey([1], rp: "example.com", user: "renamed", handle: [9], record: "r", rank: 2),
            Self.passkey([2], rp: "example.com"),
            Self.passkey([1], rp: "other.org"),
        ])
    }

    @Test func allThreeKindsCoexistEvenWithTheSameServiceAndName() throws {
        let store = InMemoryIdentityStore()
        let identities = [Self.password("alice"), Self.passkey(user: "alice"), Self.oneTimeCode("alice")]
        try store.save(identities)
        #expect(store.allIdentities == identities)
        #expect(store.allIdentities.map(\.kind) == [.password, .passkey, .oneTimeCode])
        try store.remove([Self.passkey(user: "alice")])
        #expect(store.allIdentities == [Self.password("alice"), Self.oneTimeCode("alice")])
    }

    static let sameIdentity: [(CredentialIdentity, CredentialIdentity)] = [
        (password(rank: 0), password(rank: 7)),
        (oneTimeCode(rank: 0), oneTimeCode(rank: 7)),
        (passkey([1], rank: 0), passkey([1], rank: 7)),
        (passkey([1], user: "a", handle: [1], record: "x"), passkey([1], user: "b", handle: [2], record: "y")),
    ]

    @Test(arguments: sameIdentity)
    func identitiesDifferingOnlyOutsideTheKeyAreTheSameIdentity(_ a: CredentialIdentity, _ b: CredentialIdentity) throws {
        #expect(IdentityKey(a) == IdentityKey(b))
        let store = InMemoryIdentityStore()
        try store.save([a, b])
        #expect(store.allIdentities == [b])
    }

    static let differentIdentities: [(CredentialIdentity, CredentialIdentity)] = [
        (password("alice"), password("bob")),
        (password(service: example), password(service: other)),
        (password(service: example), password(service: exampleURL)),
        (password(record: nil), password(record: "r1")),
        (password(record: "r1"), password(record: "r2")),
        (oneTimeCode("alice"), oneTimeCode("bob")),
        (oneTimeCode(service: example), oneTimeCode(service: exampleURL)),
        (oneTimeCode(record: "r1"), oneTimeCode(record: "r2")),
        (passkey([1]), passkey([2])),
        (passkey([1], rp: "example.com"), passkey([1], rp: "other.org")),
        (passkey([1, 2]), passkey([1, 2, 0])),
        (password("alice"), oneTimeCode("alice")),
        (password("alice", record: "r"), passkey(user: "alice", record: "r")),
    ]

    @Test(arguments: differentIdentities)
    func identitiesDifferingInTheKeyAreTwoIdentities(_ a: CredentialIdentity, _ b: CredentialIdentity) throws {
        #expect(IdentityKey(a) != IdentityKey(b))
        let store = InMemoryIdentityStore()
        try store.save([a, b])
        #expect(store.allIdentities == [a, b])
    }

    // MARK: Concurrency

    @Test func concurrentSavesAllLand() async throws {
        let store = InMemoryIdentityStore()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { try store.save([Self.password("user\(index)")]) }
            }
            try await group.waitForAll()
        }
        #expect(store.allIdentities.count == 200)
        #expect(Set(store.allIdentities.map(\.displayUser)) == Set((0..<200).map { "user\($0)" }))
    }
}
