/// A service the user signs into: a web domain or a URL (Apple's `ASCredentialServiceIdentifier`).
///
/// Hosts pass arrays of these ordered from the most specific to the least
/// (`[m.example.com, example.com]`); an array may be empty.
public struct ServiceIdentifier: Hashable, Sendable, Codable, CustomStringConvertible {
    /// What kind of identifier `identifier` holds.
    public enum IdentifierType: String, Hashable, Sendable, Codable, CaseIterable {
        /// A domain name such as `example.com`.
        case domain
        /// A URL such as `https://example.com/login`.
        case url = "URL"
    }

    /// The domain or URL text.
    public var identifier: String
    /// Whether ``identifier`` is a domain or a URL.
    public var type: IdentifierType

    /// Creates a service identifier.
    public init(identifier: String, type: IdentifierType) {
        self.identifier = identifier
        self.type = type
    }

    public var description: String { "\(type.rawValue):\(identifier)" }
}
