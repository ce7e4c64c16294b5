internal import AutofillMatching

/// One query the benchmark asks: what a browser would pass for a page.
struct BenchmarkQuery {
    enum Kind: String, CaseIterable, Codable {
        /// A URL on a site that has accounts (a known host or a new subdomain of it).
        case hitURL
        /// A bare host of a site that has accounts.
        case hitDomain
        /// A URL on one of the hot sites (hundreds of candidates).
        case hot
        /// A URL on an IDN site, in its Unicode form.
        case idn
        /// A URL on an IP address or a localhost host.
        case exactOnly
        /// A site nobody has an account on.
        case miss
    }

    let text: String
    let kind: Kind
}

/// Random queries over a ``DomainUniverse``: mostly sites with accounts, a third misses.
struct QueryGenerator {
    /// The share of each kind (hitURL, hitDomain, hot, idn, exactOnly, miss).
    static let mix: [(BenchmarkQuery.Kind, Double)] = [
        (.hitURL, 0.40), (.hitDomain, 0.12), (.hot, 0.08), (.idn, 0.03), (.exactOnly, 0.02), (.miss, 0.35),
    ]
    static let subdomains = ["www", "login", "m", "beta", "eu", "checkout", "help", "status", "cdn-edge"]
    static let paths = ["/", "/login", "/signin", "/account/login/step2", "/cart", "/wp-admin/", "/users/sign_in", "/app/dashboard"]
    static let queries = ["", "", "", "?next=%2Faccount", "?utm_source=mail&id=42", "?lang=en"]
    static let fragments = ["", "", "", "", "#top", "#/login"]

    let universe: DomainUniverse

    /// `count` queries that all parse as a ``ServiceQuery``.
    func generate(count: Int, generator: inout SeededGenerator) -> [BenchmarkQuery] {
        let weights = Self.mix.map(\.1)
        var queries: [BenchmarkQuery] = []
        queries.reserveCapacity(count)
        while queries.count < count {
            let kind = Self.mix[generator.weighted(weights)].0
            guard let text = text(for: kind, generator: &generator), (try? ServiceQuery(text)) != nil else { continue }
            queries.append(BenchmarkQuery(text: text, kind: kind))
        }
        return queries
    }

    private func text(for kind: BenchmarkQuery.Kind, generator: inout SeededGenerator) -> String? {
        switch kind {
        case .hitURL:
            let site = universe.sites[generator.pick(generator.chance(0.3) ? universe.popular : universe.normal)]
            return url(host: host(on: site, generator: &generator), generator: &generator)
        case .hitDomain:
            let site = universe.sites[generator.pick(generator.chance(0.3) ? universe.popular : universe.normal)]
            return host(on: site, generator: &generator)
        case .hot:
            let site = universe.sites[generator.pick(universe.hot)]
            return url(host: host(on: site, generator: &generator), generator: &generator)
        case .idn:
            guard !universe.idn.isEmpty else { return nil }
            let site = universe.sites[generator.pick(universe.idn)]
            return url(host: host(on: site, generator: &generator), generator: &generator)
        case .exactOnly:
            guard !universe.exactOnly.isEmpty else { return nil }
            let site = universe.sites[generator.pick(universe.exactOnly)]
            let scheme = generator.chance(0.5) ? "https" : "http"
            return "\(scheme)://\(site.authority(site.hosts[0]))\(site.port.map { ":\($0)" } ?? "")\(generator.pick(Self.paths))"
        case .miss:
            let domain = universe.missingDomain(&generator)
            return generator.chance(0.7) ? url(host: generator.chance(0.5) ? "www." + domain : domain, generator: &generator) : domain
        }
    }

    /// A known host of the site (80 %) or a subdomain the data never mentions.
    private func host(on site: Site, generator: inout SeededGenerator) -> String {
        generator.chance(0.8) ? generator.pick(site.hosts) : "\(generator.pick(Self.subdomains)).\(site.domain)"
    }

    private func url(host: String, generator: inout SeededGenerator) -> String {
        let scheme = generator.chance(0.93) ? "https" : "http"
        let port = generator.chance(0.03) ? ":8443" : ""
        return "\(scheme)://\(host)\(port)\(generator.pick(Self.paths))\(generator.pick(Self.queries))\(generator.pick(Self.fragments))"
    }
}
