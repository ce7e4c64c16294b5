public import AutofillCore

extension ServiceQuery {
    /// How well `identity` matches, or nil. Identities whose service does not parse never match.
    public func match(_ identity: CredentialIdentity) -> MatchQuality? {
        guard let service = IdentityIndex.serviceName(for: identity) else { return nil }
        return match(service, kind: identity.kind)
    }

    /// How well an identity of `kind` whose parsed service (for passkeys: relying party) is
    /// `service` matches, or nil. For stores that keep parsed names.
    public func match(_ service: ServiceName, kind: CredentialIdentity.Kind) -> MatchQuality? {
        kind == .passkey ? matchRelyingParty(service) : matchService(service)
    }

    /// Password and one-time-code identities.
    func matchService(_ service: ServiceName) -> MatchQuality? {
        // A password saved for https:// is never offered to http://, nor across ports.
        if let scheme = service.scheme, let queryScheme = name.scheme, scheme != queryScheme { return nil }
        let servicePort = service.effectivePort
        if let servicePort, let effectivePort, servicePort != effectivePort { return nil }
        if service.host == name.host {
            if service.scheme != nil, name.scheme != nil, servicePort == effectivePort, pathMatches(service.path) {
                return .exactURL
            }
            return .exactHost
        }
        return relatedDomain(service, siblings: true)
    }

    /// Passkeys: WebAuthn's rule, the relying party is the host or a registrable parent of it.
    func matchRelyingParty(_ relyingParty: ServiceName) -> MatchQuality? {
        if relyingParty.host == name.host { return .exactHost }
        return relatedDomain(relyingParty, siblings: false)
    }

    /// A parent, sibling or child of the query's host within its registrable domain.
    func relatedDomain(_ service: ServiceName, siblings: Bool) -> MatchQuality? {
        guard let registrableDomain, case .domain(let host) = service.host, !service.isExactOnly,
              ASCII.hasLabelSuffix(host, registrableDomain)
        else { return nil }
        if ASCII.hasLabelSuffix(hostText, host) {
            // Between the query's host and its registrable domain: the same registrable domain.
            return .parentDomain(distance: labelCount - ASCII.labelCount(host))
        }
        // A sibling or child may lie below a deeper public suffix (mybucket.s3.amazonaws.com is not
        // amazonaws.com's): ask the list.
        guard siblings, PublicSuffixList.shared.registrableDomain(host) == registrableDomain else { return nil }
        return .sameRegistrableDomain
    }

    /// The identity's path (without one trailing "/", and not the root) is the query's path or a
    /// path-segment prefix of it.
    func pathMatches(_ identityPath: String) -> Bool {
        let prefix = Self.trimmed(identityPath).utf8
        guard !prefix.isEmpty else { return false }
        let path = trimmedPath.utf8
        guard path.starts(with: prefix) else { return false }
        let count = prefix.count
        return path.count == count || path[path.index(path.startIndex, offsetBy: count)] == ASCII.slash
    }
}
