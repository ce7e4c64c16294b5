/// How well an identity's service matches the query; `<` means better.
///
/// `exactURL < exactHost < parentDomain(distance: 1) < parentDomain(distance: 2) < … < sameRegistrableDomain`.
///
/// A search by name (``NameQuery``) has its own three: `exactName < namePrefix < nameSubstring`.
/// One list never holds both kinds (a term is either a site or a name), so their orders overlap.
public enum MatchQuality: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Same scheme, host and effective port, and the identity's path is the query's path or a
    /// path-segment prefix of it. Best.
    case exactURL
    /// Same host.
    case exactHost
    /// The identity's host is `distance` labels above the query's host, within the same
    /// registrable domain (the registrable domain itself counts as a parent).
    case parentDomain(distance: Int)
    /// A sibling or child host within the same registrable domain. Worst.
    case sameRegistrableDomain
    /// A search by name: the name, user or site equals the term (``NameQuery``).
    case exactName
    /// A search by name: the name, user or site starts with the term.
    case namePrefix
    /// A search by name: the name, user or site contains the term.
    case nameSubstring

    /// The order: 0 for exactURL, 1 for exactHost, 1 + distance for parents, Int.max for same site;
    /// 0, 1, 2 for the name matches.
    public var order: Int {
        switch self {
        case .exactURL: 0
        case .exactHost: 1
        case .parentDomain(let distance): distance >= Int.max - 1 ? Int.max - 1 : 1 + max(distance, 1)
        case .sameRegistrableDomain: Int.max
        case .exactName: 0
        case .namePrefix: 1
        case .nameSubstring: 2
        }
    }

    public static func < (lhs: MatchQuality, rhs: MatchQuality) -> Bool { lhs.order < rhs.order }

    /// "exact URL", "exact host", "parent domain, 1 level up", "parent domain, 2 levels up", "same site";
    /// "exact name", "name prefix", "name contains".
    public var description: String {
        switch self {
        case .exactURL: "exact URL"
        case .exactHost: "exact host"
        case .parentDomain(let distance): "parent domain, \(distance) level\(distance == 1 ? "" : "s") up"
        case .sameRegistrableDomain: "same site"
        case .exactName: "exact name"
        case .namePrefix: "name prefix"
        case .nameSubstring: "name contains"
        }
    }
}
