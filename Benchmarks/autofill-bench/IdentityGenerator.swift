internal import AutofillCore

/// The generated identities of the benchmark's providers.
struct GeneratedData {
    let universe: DomainUniverse
    /// One array per provider, in provider order.
    let identities: [[CredentialIdentity]]

    var total: Int { identities.reduce(0) { $0 + $1.count } }
}

/// Builds each provider's identities over a shared ``DomainUniverse``.
///
/// Shape: mostly passwords (88 %), some passkeys (8 %) and one-time codes (4 %); service
/// identifiers are domains (a host of the site) or URLs (https mostly, some http, some ports,
/// some login paths); a few hot sites hold hundreds of accounts; providers after the first
/// share a quarter of their accounts with the first (a user who moved managers); random ranks.
struct IdentityGenerator {
    static let firstNames = [
        "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj",
        "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter", "zoe", "amir", "chen", "dmitri",
        "fatima", "hiro", "ines", "jamal", "kofi", "lena", "mateo", "noor", "priya", "sven", "yara",
    ]
    static let lastNames = [
        "smith", "jones", "garcia", "muller", "rossi", "dubois", "kowalski", "tanaka", "kim", "silva",
        "novak", "jensen", "oconnor", "haddad", "nguyen", "petrov", "larsen", "moreau", "schmidt", "costa",
    ]
    static let mailDomains = ["mail.com", "example.net", "inbox.org", "posteo.de", "corp.example"]
    static let paths = [
        "/login", "/signin", "/account/login", "/auth/realms/main/protocol", "/wp-admin", "/users/sign_in",
        "/session/new", "/sso/saml", "/admin", "/app/",
    ]

    let universe: DomainUniverse
    /// Cumulative pick weights over `universe.sites` for ordinary accounts (hot sites get their
    /// accounts separately).
    private let cumulative: [Double]

    init(universe: DomainUniverse) {
        self.universe = universe
        var running = 0.0
        cumulative = universe.sites.map { site in
            switch site.tier {
            case .hot: running += 0
            case .popular: running += 10
            case .normal: running += site.isIDN ? 2 : 1
            case .exactOnly: running += 0.5
            }
            return running
        }
    }

    /// `perProvider` identities for each of `providers` providers.
    func generate(providers: Int, perProvider: Int, generator: inout SeededGenerator) -> [[CredentialIdentity]] {
        var result: [[CredentialIdentity]] = []
        for provider in 0..<providers {
            var local = generator.fork(UInt64(provider + 1))
            let shared = provider == 0 ? [] : result[0]
            result.append(identities(count: perProvider, provider: provider, sharedWith: shared, generator: &local))
        }
        return result
    }

    private func identities(count: Int, provider: Int, sharedWith first: [CredentialIdentity],
                            generator: inout SeededGenerator) -> [CredentialIdentity] {
        var identities: [CredentialIdentity] = []
        identities.reserveCapacity(count)
        var keys = Set<IdentityKey>()
        func add(_ identity: CredentialIdentity) {
            if keys.insert(IdentityKey(identity)).inserted { identities.append(identity) }
        }
        // Hot sites: hundreds of accounts each (scaled down with --identities).
        let hotAccounts = max(3, 150 * count / 100_000)
        for site in universe.hot {
            let accounts = Int.random(in: hotAccounts / 2...hotAccounts * 3 / 2, using: &generator)
            for account in 0..<accounts {
                let user = "user\(account + 50 * provider)@\(universe.sites[site].domain)"
                add(identity(site: universe.sites[site], user: user, generator: &generator))
            }
        }
        // A quarter of the rest: the first provider's accounts, re-ranked.
        if !first.isEmpty {
            let sharedCount = (count - identities.count) / 4
            for _ in 0..<sharedCount {
                add(Self.reranked(generator.pick(first), generator: &generator))
            }
        }
        while identities.count < count {
            let site = universe.sites[pickSite(&generator)]
            add(identity(site: site, user: Self.user(&generator), generator: &generator))
        }
        // Stores keep identities in the order saved; shuffle so hot sites are not all first.
        identities.shuffle(using: &generator)
        return identities
    }

    private func pickSite(_ generator: inout SeededGenerator) -> Int {
        let pick = Double.random(in: 0..<cumulative[cumulative.count - 1], using: &generator)
        var low = 0, high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] <= pick { low = middle + 1 } else { high = middle }
        }
        return low
    }

    static func user(_ generator: inout SeededGenerator) -> String {
        let first = generator.pick(firstNames), last = generator.pick(lastNames)
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: return "\(first).\(last)@\(generator.pick(mailDomains))"
        case 1: return "\(first)\(Int.random(in: 1...99, using: &generator))"
        case 2: return "\(first.prefix(1))\(last)"
        default: return "\(first)_\(last)\(Int.random(in: 1...9999, using: &generator))@\(generator.pick(mailDomains))"
        }
    }

    private func identity(site: Site, user: String, generator: inout SeededGenerator) -> CredentialIdentity {
        let rank = generator.chance(0.3) ? 0 : Int.random(in: 1...100, using: &generator)
        let record = generator.uuidText()
        let roll = Double.random(in: 0..<1, using: &generator)
        if roll < 0.08 && site.tier != .exactOnly {
            // WebAuthn: the relying party is the registrable domain or one of its hosts, never a URL.
            let relyingParty = generator.chance(0.7) ? site.domain : generator.pick(site.hosts)
            return .passkey(.init(relyingPartyIdentifier: relyingParty, userName: user,
                                  credentialID: generator.bytes(Int.random(in: 16...64, using: &generator)),
                                  userHandle: generator.bytes(16), recordIdentifier: record, rank: rank))
        }
        let service = serviceIdentifier(site: site, generator: &generator)
        if roll < 0.12 {
            return .oneTimeCode(.init(serviceIdentifier: service, label: user, recordIdentifier: record, rank: rank))
        }
        return .password(.init(serviceIdentifier: service, user: user, recordIdentifier: record, rank: rank))
    }

    /// A domain (a host of the site, sometimes upper-cased) or a URL (scheme, maybe a port, maybe a path).
    private func serviceIdentifier(site: Site, generator: inout SeededGenerator) -> ServiceIdentifier {
        let host = generator.pick(site.hosts)
        if site.tier == .exactOnly {
            let scheme = generator.chance(0.5) ? "https" : "http"
            let port = site.port.map { ":\($0)" } ?? ""
            return ServiceIdentifier(identifier: "\(scheme)://\(site.authority(host))\(port)/", type: .url)
        }
        let roll = Double.random(in: 0..<1, using: &generator)
        if roll < 0.50 {
            return ServiceIdentifier(identifier: generator.chance(0.03) ? host.uppercased() : host, type: .domain)
        }
        if roll < 0.53 {
            return ServiceIdentifier(identifier: host + generator.pick(Self.paths), type: .domain)
        }
        let scheme = generator.chance(0.92) ? "https" : "http"
        let port = generator.chance(0.05) ? ":\(generator.pick([8443, 8080, 4443]))" : ""
        let path = generator.chance(0.4) ? generator.pick(["", "/"]) : generator.pick(Self.paths)
        return ServiceIdentifier(identifier: "\(scheme)://\(host)\(port)\(path)", type: .url)
    }

    /// The same account with a new rank and the provider's own record identifier.
    private static func reranked(_ identity: CredentialIdentity, generator: inout SeededGenerator) -> CredentialIdentity {
        let rank = Int.random(in: 0...100, using: &generator)
        let record = generator.uuidText()
        switch identity {
        case .password(var id): id.rank = rank; id.recordIdentifier = record; return .password(id)
        case .passkey(var id): id.rank = rank; id.recordIdentifier = record; return .passkey(id)
        case .oneTimeCode(var id): id.rank = rank; id.recordIdentifier = record; return .oneTimeCode(id)
        }
    }
}
