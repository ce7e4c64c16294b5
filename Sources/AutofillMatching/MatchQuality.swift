/// How well an identity's service matches the query; `<` means better.
///
/// `exactURL < exactHost < parentDomain(distance: 1) < parentDomain(distance: 2) < … < sameRegistrableDomain`.
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

    /// The order: 0 for exactURL, 1 for exactHost, 1 + distance for parents, Int.max for same site.
    public var order: Int {
        switch self {
        case .exactURL: 0
        case .exactHost: 1
        case .parentDomain(let distance): distance >= Int.max - 1 ? Int.max - 1 : 1 + max(distance, 1)
        case .sameRegistrableDomain: Int.max
        }
    }

    public static func < (lhs: MatchQuality, rhs: MatchQuality) -> Bool { lhs.order < rhs.order }

    /// "exact URL", "exact host", "parent domain, 1 level up", "parent domain, 2 levels up", "same site".
    public var description: String {
        switch self {
        case .exactURL: "exact URL"
        case .exactHost: "exact host"
        case .parentDomain(let distance): "parent domain, \(distance) level\(distance == 1 ? "" : "s") up"
        case .sameRegistrableDomain: "same site"
        }
    }
}
