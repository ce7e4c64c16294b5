public import AutofillCore
public import AutofillMatching

/// One suggested identity: whose it is, what it is, and why it matched.
public struct Suggestion: Hashable, Sendable {
    /// The provider that owns the identity.
    public var providerID: String
    /// The provider's display name, shown with every suggestion.
    public var providerName: String
    /// The provider's place in the user's order (0 = most preferred).
    public var providerPosition: Int
    /// The identity (never a secret).
    public var identity: CredentialIdentity
    /// How well it matched the service.
    public var match: MatchQuality
    /// Its position among its provider's candidates, for a stable order.
    public var storeOrder: Int

    /// Creates a suggestion.
    public init(providerID: String, providerName: String, providerPosition: Int, identity: CredentialIdentity,
                match: MatchQuality, storeOrder: Int) {
        self.providerID = providerID
        self.providerName = providerName
        self.providerPosition = providerPosition
        self.identity = identity
        self.match = match
        self.storeOrder = storeOrder
    }

    /// The service the identity names (service identifier or relying party).
    public var service: String {
        switch identity {
        case .password(let id): id.serviceIdentifier.identifier
        case .passkey(let id): id.relyingPartyIdentifier
        case .oneTimeCode(let id): id.serviceIdentifier.identifier
        }
    }
}
