public import AutofillCore

/// What the client asked for, ready to match identities against.
public struct ServiceQuery: Sendable {
    /// The parsed query.
    public let name: ServiceName
    /// The host's registrable domain; nil for IP addresses, localhost hosts and public suffixes.
    public let registrableDomain: String?
    /// Apple's service-identifier array, most specific first: the URL (only when the input had a
    /// scheme; normalized, no query or fragment), then the host, then each parent domain up to and
    /// including the registrable domain. IP addresses and localhost hosts: the URL, then the host.
    public let serviceIdentifiers: [ServiceIdentifier]
    /// The key a store looks candidates up by; equal to `IdentityIndex.lookupKey` of every identity
    /// this query can match.
    public let lookupKey: String

    /// The host as text, its label count, the effective port and the path without a trailing "/".
    let hostText: String
    let labelCount: Int
    let effectivePort: Int?
    let trimmedPath: Substring

    /// Parses a URL (`https://example.com/login`) or a domain (`example.com`, `example.com/login`).
    public init(_ text: String) throws(ServiceNameError) {
        self.init(name: try ServiceName.parse(text))
    }

    /// A query for an already parsed name.
    public init(name: ServiceName) {
        self.name = name
        hostText = name.hostText
        labelCount = ASCII.labelCount(hostText)
        effectivePort = name.effectivePort
        trimmedPath = Self.trimmed(name.path)
        registrableDomain = name.isExactOnly ? nil : PublicSuffixList.shared.registrableDomain(hostText)
        lookupKey = registrableDomain ?? hostText

        var identifiers: [ServiceIdentifier] = []
        if name.scheme != nil { identifiers.append(ServiceIdentifier(identifier: name.description, type: .url)) }
        identifiers.append(ServiceIdentifier(identifier: hostText, type: .domain))
        if let registrableDomain {
            var parent = Substring(hostText)
            while parent.utf8.count > registrableDomain.utf8.count, let dot = parent.utf8.firstIndex(of: ASCII.dot) {
                parent = parent[parent.utf8.index(after: dot)...]
                identifiers.append(ServiceIdentifier(identifier: String(parent), type: .domain))
            }
        }
        serviceIdentifiers = identifiers
    }

    /// A path without one trailing "/" ("/" itself becomes "", the root).
    static func trimmed(_ path: String) -> Substring {
        path.utf8.last == ASCII.slash ? path.dropLast() : Substring(path)
    }
}
