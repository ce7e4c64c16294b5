/// The state of a provider's identity store (`ASCredentialIdentityStoreState`).
public struct IdentityStoreState: Hashable, Sendable, Codable {
    /// Whether the provider is enabled; writes are refused while it is not.
    public var isEnabled: Bool
    /// False after a wipe, until the provider writes its full list again.
    public var supportsIncrementalUpdates: Bool

    /// Creates a state.
    public init(isEnabled: Bool, supportsIncrementalUpdates: Bool) {
        self.isEnabled = isEnabled
        self.supportsIncrementalUpdates = supportsIncrementalUpdates
    }
}

/// An identity-store failure (`ASCredentialIdentityStoreError`).
public struct IdentityStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Apple's `ASCredentialIdentityStoreError.Code` values.
    public enum Code: Int, Hashable, Sendable, CaseIterable {
        case internalError = 0
        case storeDisabled = 1
        case storeBusy = 2
    }

    /// The error code.
    public var code: Code
    /// What failed and what to do about it.
    public var message: String

    /// Creates a store error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// One provider's identity store, as that provider (or its companion program) sees it.
///
/// Implementation requirements: every write is all-or-nothing; saving an
/// identity that exists replaces it; writes throw `storeDisabled` while the
/// provider is disabled; a store never holds secrets.
public protocol CredentialIdentityStore: Sendable {
    /// The store's state.
    func state() throws(IdentityStoreError) -> IdentityStoreState
    /// Saves identities; an identity that exists is replaced.
    func save(_ identities: [CredentialIdentity]) throws(IdentityStoreError)
    /// Removes identities.
    func remove(_ identities: [CredentialIdentity]) throws(IdentityStoreError)
    /// Removes every identity, then saves these.
    func replace(with identities: [CredentialIdentity]) throws(IdentityStoreError)
    /// Removes every identity.
    func removeAll() throws(IdentityStoreError)
}
