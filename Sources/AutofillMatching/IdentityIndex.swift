public import AutofillCore

/// How a store indexes identities so that a ``ServiceQuery`` finds its candidates with one lookup.
public enum IdentityIndex {
    /// The key an identity is indexed under: the registrable domain of its host; or its exact host
    /// for IP addresses, localhost hosts and hosts without a registrable domain (public suffixes).
    /// nil when the identity's service cannot be parsed (it is stored but never suggested).
    public static func lookupKey(for identity: CredentialIdentity) -> String? {
        serviceName(for: identity).map(lookupKey(for:))
    }

    /// The key of an identity whose parsed service (for passkeys: relying party) is `name`.
    public static func lookupKey(for name: ServiceName) -> String {
        let host = name.hostText
        if name.isExactOnly { return host }
        return PublicSuffixList.shared.registrableDomain(host) ?? host
    }

    /// The identity's parsed service: its service identifier for passwords and one-time codes (by
    /// its text, whatever its type), its relying party identifier (a bare host) for passkeys; nil
    /// when it does not parse.
    public static func serviceName(for identity: CredentialIdentity) -> ServiceName? {
        switch identity {
        case .password(let password): try? ServiceName.parse(password.serviceIdentifier.identifier)
        case .oneTimeCode(let code): try? ServiceName.parse(code.serviceIdentifier.identifier)
        case .passkey(let passkey): try? ServiceName.parseRelyingParty(passkey.relyingPartyIdentifier)
        }
    }
}
