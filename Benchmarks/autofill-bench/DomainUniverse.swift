internal import AutofillMatching

/// One site the generated identities belong to: a registrable domain and some of its hosts, or an
/// exact-only host (an IP address or a localhost name) that matches only itself.
struct Site {
    enum Tier {
        /// A few sites with hundreds of accounts each (a work single sign-on, a test tenant).
        case hot
        /// Sites with tens of accounts.
        case popular
        /// The long tail: a handful of accounts each.
        case normal
        /// IP addresses and localhost hosts (no registrable domain).
        case exactOnly
    }

    /// The registrable domain as written (Unicode for IDN sites); for exact-only sites, the host.
    let domain: String
    /// Hosts as written, the registrable domain first (for IPv6: without brackets).
    let hosts: [String]
    let tier: Tier
    let isIDN: Bool
    /// For exact-only sites: the port their services use (nil: the scheme's default).
    let port: Int?

    /// `host` as it goes into a URL's authority (IPv6 addresses in brackets).
    func authority(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}

/// Every site of the generated data, plus a generator of registrable domains that are not in it
/// (for queries that miss).
struct DomainUniverse {
    let sites: [Site]
    /// Indexes into `sites` by tier.
    let hot: [Int]
    let popular: [Int]
    let normal: [Int]
    let exactOnly: [Int]
    let idn: [Int]
    /// Every registrable domain in the universe, in its parsed (punycode, lower-case) form.
    let registrableDomains: Set<String>
    /// Generated names that did not parse or had no registrable domain, and were dropped.
    let rejected: Int

    /// Public suffixes, weighted roughly like a European/US user's accounts. Multi-label ICANN
    /// suffixes (co.uk, com.au, co.jp, com.br) and private-section ones (github.io, herokuapp.com,
    /// blogspot.com) are included on purpose: their registrable domain has three labels.
    static let suffixes: [(String, Double)] = [
        ("com", 44), ("org", 6), ("net", 6), ("io", 4), ("de", 6), ("fr", 3), ("nl", 2), ("co.uk", 5),
        ("org.uk", 1), ("com.au", 2), ("co.jp", 1.5), ("com.br", 1.5), ("ca", 2), ("es", 1.5), ("it", 1.5),
        ("pl", 1), ("ch", 1), ("app", 1), ("dev", 1), ("co.nz", 0.5), ("github.io", 1), ("herokuapp.com", 0.5),
        ("blogspot.com", 0.5),
    ]
    static let subdomains = [
        "login", "accounts", "app", "my", "portal", "secure", "mail", "m", "sso", "id", "auth", "admin",
        "shop", "eu.app", "us-east-1.console", "intranet.corp", "api", "dashboard", "signin", "members",
    ]
    static let syllables = [
        "ka", "lo", "mi", "ra", "to", "ne", "su", "vi", "bo", "da", "fe", "gu", "ha", "jo", "ki", "le",
        "ma", "no", "pa", "ri", "sa", "te", "ul", "ve", "wa", "xo", "ya", "ze", "tri", "str", "pro", "net",
        "web", "cloud", "bank", "shop", "data", "soft", "hub", "lab", "box", "max", "link", "zen", "nova",
    ]
    /// Unicode stems for IDN sites, with suffixes they plausibly live under.
    static let idnStems: [(String, [String])] = [
        ("bücher", ["de", "ch"]), ("müller", ["de"]), ("straße", ["de"]), ("köln", ["de"]), ("zürich", ["ch"]),
        ("café", ["fr", "com"]), ("élan", ["fr"]), ("señor", ["es"]), ("niño", ["es"]), ("øl", ["com"]),
        ("größe", ["de"]), ("магазин", ["рф"]), ("пример", ["рф"]), ("книги", ["рф"]), ("例え", ["jp"]),
        ("日本語", ["jp"]), ("ευδαιμονία", ["com"]),
    ]
    static let hotNames = [
        "workspace-cloud.com", "megabank.co.uk", "devhub.io", "corp-sso.net", "streamflix.com", "shopzone.de",
        "socialnet.com", "mailbox.org",
    ]

    /// About `siteCount` sites: 8 hot, 2 % popular, 2 % IDN, 0.5 % exact-only, the rest normal.
    init(siteCount: Int, generator: inout SeededGenerator) {
        var sites: [Site] = []
        var seen = Set<String>()
        var rejected = 0

        func add(_ domain: String, tier: Site.Tier, isIDN: Bool, generator: inout SeededGenerator) {
            guard let key = Self.registrableKey(domain), seen.insert(key).inserted else {
                rejected += 1
                return
            }
            sites.append(Site(domain: domain, hosts: Self.hosts(for: domain, tier: tier, generator: &generator),
                              tier: tier, isIDN: isIDN, port: nil))
        }

        for name in Self.hotNames { add(name, tier: .hot, isIDN: false, generator: &generator) }
        let idnCount = max(2, siteCount / 50)
        let exactCount = max(2, siteCount / 200)
        let popularCount = max(4, siteCount / 50)
        var attempts = 0
        while sites.count < Self.hotNames.count + idnCount && attempts < idnCount * 20 {
            attempts += 1
            let (stem, suffixes) = generator.pick(Self.idnStems)
            let name = stem + (generator.chance(0.8) ? String(Int.random(in: 1...9999, using: &generator)) : "")
            add("\(name).\(generator.pick(suffixes))", tier: .normal, isIDN: true, generator: &generator)
        }
        let target = max(siteCount - exactCount, sites.count + popularCount + 1)
        let weights = Self.suffixes.map(\.1)
        var made = 0
        while sites.count < target {
            let tier: Site.Tier = made < popularCount ? .popular : .normal
            made += 1
            add("\(Self.name(&generator)).\(Self.suffixes[generator.weighted(weights)].0)", tier: tier, isIDN: false, generator: &generator)
        }
        for index in 0..<exactCount {
            let host: String
            switch index % 4 {
            case 0: host = "192.168.\(index / 250 % 250).\(index % 250 + 1)"
            case 1: host = "10.\(index / 250 % 250).\(index % 250).\(Int.random(in: 1...254, using: &generator))"
            case 2: host = index % 8 == 2 ? "localhost" : "svc\(index).localhost"
            default: host = "fd00::\(String(index, radix: 16))"
            }
            guard seen.insert("exact:" + host).inserted else { continue }
            let port: Int? = host == "localhost" ? 3000 + index % 100 : generator.chance(0.5) ? generator.pick([8080, 8443, 9000, 5000]) : nil
            sites.append(Site(domain: host, hosts: [host], tier: .exactOnly, isIDN: false, port: port))
        }

        self.sites = sites
        self.rejected = rejected
        hot = sites.indices.filter { sites[$0].tier == .hot }
        popular = sites.indices.filter { sites[$0].tier == .popular }
        normal = sites.indices.filter { sites[$0].tier == .normal }
        exactOnly = sites.indices.filter { sites[$0].tier == .exactOnly }
        idn = sites.indices.filter { sites[$0].isIDN }
        registrableDomains = seen
    }

    /// The parsed registrable domain of `domain`, or nil when it does not parse or is a public suffix.
    static func registrableKey(_ domain: String) -> String? {
        guard let name = try? ServiceName.parse(domain), let host = name.domain,
              let registrable = PublicSuffixList.shared.registrableDomain(host)
        else { return nil }
        return registrable
    }

    /// A pronounceable label: two to four syllables, sometimes a hyphenated second word or digits.
    static func name(_ generator: inout SeededGenerator) -> String {
        func word(_ generator: inout SeededGenerator) -> String {
            (0..<Int.random(in: 2...4, using: &generator)).map { _ in generator.pick(syllables) }.joined()
        }
        var name = word(&generator)
        if generator.chance(0.15) { name += "-" + word(&generator) }
        if generator.chance(0.25) { name += String(Int.random(in: 1...999, using: &generator)) }
        return name
    }

    /// The registrable domain, often `www`, and a few other subdomains (many for hot sites).
    static func hosts(for domain: String, tier: Site.Tier, generator: inout SeededGenerator) -> [String] {
        var hosts = [domain]
        if generator.chance(0.6) { hosts.append("www." + domain) }
        let extra: Int
        switch tier {
        case .hot: extra = 8
        case .popular: extra = Int.random(in: 1...4, using: &generator)
        default: extra = [0, 0, 0, 0, 0, 1, 1, 1, 2, 3][Int.random(in: 0..<10, using: &generator)]
        }
        var chosen = Set<String>()
        while chosen.count < extra { chosen.insert(generator.pick(subdomains)) }
        hosts += chosen.sorted().map { "\($0).\(domain)" }
        return hosts
    }

    /// A registrable domain that is not in the universe (for a query that finds nothing).
    func missingDomain(_ generator: inout SeededGenerator) -> String {
        let weights = Self.suffixes.map(\.1)
        while true {
            let domain = "\(Self.name(&generator))\(Int.random(in: 1000...99999, using: &generator)).\(Self.suffixes[generator.weighted(weights)].0)"
            if let key = Self.registrableKey(domain), !registrableDomains.contains(key) { return domain }
        }
    }
}
