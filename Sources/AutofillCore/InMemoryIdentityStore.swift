import Synchronization

/// An identity store held in memory, with Apple's semantics: for tests and for
/// hosts that have not opened a persistent store.
public final class InMemoryIdentityStore: CredentialIdentityStore {
    private struct Contents {
        var isEnabled: Bool
        var supportsIncrementalUpdates: Bool
        var order: [IdentityKey] = []
        var identities: [IdentityKey: CredentialIdentity] = [:]
    }

    private let contents: Mutex<Contents>

    /// Creates an empty store, enabled or not. A disabled store needs a full write
    /// (`replace`) after it is enabled, so it starts without incremental updates.
    public init(isEnabled: Bool = true) {
        contents = Mutex(Contents(isEnabled: isEnabled, supportsIncrementalUpdates: isEnabled))
    }

    /// Every identity, in the order first saved.
    public var allIdentities: [CredentialIdentity] {
        contents.withLock { c in c.order.compactMap { c.identities[$0] } }
    }

    /// Enables the store, or disables it and wipes it (as disabling a provider does).
    public func setEnabled(_ enabled: Bool) {
        contents.withLock { c in
            c.isEnabled = enabled
            if !enabled {
                c.order = []
                c.identities = [:]
                c.supportsIncrementalUpdates = false
            }
        }
    }

    public func state() throws(IdentityStoreError) -> IdentityStoreState {
        contents.withLock { IdentityStoreState(isEnabled: $0.isEnabled, supportsIncrementalUpdates: $0.supportsIncrementalUpdates) }
    }

    public func save(_ identities: [CredentialIdentity]) throws(IdentityStoreError) {
        try write { c in Self.insert(identities, into: &c) }
    }

    public func remove(_ identities: [CredentialIdentity]) throws(IdentityStoreError) {
        try write { c in
            let keys = Set(identities.map(IdentityKey.init))
            c.order.removeAll { keys.contains($0) }
            for key in keys { c.identities[key] = nil }
        }
    }

    public func replace(with identities: [CredentialIdentity]) throws(IdentityStoreError) {
        try write { c in
            c.order = []
            c.identities = [:]
            Self.insert(identities, into: &c)
            c.supportsIncrementalUpdates = true
        }
    }

    public func removeAll() throws(IdentityStoreError) {
        try write { c in
            c.order = []
            c.identities = [:]
        }
    }

    private func write(_ body: (inout Contents) -> Void) throws(IdentityStoreError) {
        let enabled = contents.withLock { c -> Bool in
            guard c.isEnabled else { return false }
            body(&c)
            return true
        }
        guard enabled else {
            throw IdentityStoreError(.storeDisabled, "the identity store is disabled: enable the provider first")
        }
    }

    private static func insert(_ identities: [CredentialIdentity], into c: inout Contents) {
        for identity in identities {
            let key = IdentityKey(identity)
            if c.identities.updateValue(identity, forKey: key) == nil { c.order.append(key) }
        }
    }
}
