import AutofillCore
import AutofillMatching
import Testing

/// Identities are indexed under the key every query that can match them looks up.
struct IdentityIndexTests {
    static func password(_ service: String, _ type: ServiceIdentifier.IdentifierType = .domain) -> CredentialIdentity {
        .password(PasswordCredentialIdentity(serviceIdentifier: ServiceIdentifier(identifier: service, type: type), user: "alice"))
    }

    static func passkey(_ relyingParty: String) -> CredentialIdentity {
        .passkey(PasskeyCredentialIdentity(relyingPartyIdentifier: relyingParty, userName: "alice", credentialID: [1], userHandle: [2]))
    }

    static func code(_ service: String, _ type: ServiceIdentifier.IdentifierType = .domain) -> CredentialIdentity {
        .oneTimeCode(OneTimeCodeCredentialIdentity(serviceIdentifier: ServiceIdentifier(identifier: service, type: type), label: "alice"))
    }

    @Test(arguments: [
        (password("https://login.example.com/signin", .url), "example.com"),
        (password("a.b.example.co.uk"), "example.co.uk"),
        (password("example.com/login", .url), "example.com"),
        (password("https://Bücher.example/", .domain), "xn--bcher-kva.example"),
        (password("alice.github.io"), "alice.github.io"),
        (password("co.uk"), "co.uk"),
        (password("intranet"), "intranet"),
        (password("http://192.168.1.10:8080/"), "192.168.1.10"),
        (password("https://[2001:DB8::1]/", .url), "2001:db8::1"),
        (password("localhost"), "localhost"),
        (password("app.localhost:3000"), "app.localhost"),
        (code("https://www.example.com", .url), "example.com"),
        (passkey("login.example.com"), "example.com"),
        (passkey("192.168.1.10"), "192.168.1.10"),
    ])
    func theKeyIsTheRegistrableDomainOrTheExactHost(_ identity: CredentialIdentity, _ key: String) {
        #expect(IdentityIndex.lookupKey(for: identity) == key)
    }

    @Test(arguments: [
        password(""), password("exa mple.com"), password("example..com"), password("https://example.com:99999/", .url),
        password("xn--zz.example"), code("*.example.com"), passkey("https://example.com"), passkey("example.com:443"),
        passkey("example.com/login"), passkey("alice@example.com"), passkey(""),
    ])
    func anIdentityWhoseServiceDoesNotParseHasNoKey(_ identity: CredentialIdentity) {
        #expect(IdentityIndex.lookupKey(for: identity) == nil)
        #expect(IdentityIndex.serviceName(for: identity) == nil)
    }

    /// The table's rows whose query parses and matches their identity.
    static let matchingRows = MatchingTable.rows.filter { row in
        (try? ServiceQuery(row.query)).map { $0.match(row.identity) != nil } ?? false
    }

    @Test(arguments: matchingRows)
    func everyIdentityATableQueryMatchesHasTheQuerysKey(_ row: MatchingTableRow) throws {
        let query = try ServiceQuery(row.query)
        #expect(IdentityIndex.lookupKey(for: row.identity) == query.lookupKey, "\(row.number)")
    }

    @Test(arguments: MatchingTable.rows.filter { $0.why.contains("the identity does not parse") })
    func tableIdentitiesThatDoNotParseHaveNoKey(_ row: MatchingTableRow) {
        #expect(IdentityIndex.lookupKey(for: row.identity) == nil, "\(row.number)")
    }

    static let hosts = [
        "example.com", "www.example.com", "login.example.com", "a.b.example.com", "notexample.com", "example.com.evil.test",
        "evil.test", "example.co.uk", "a.example.co.uk", "co.uk", "alice.github.io", "bob.github.io", "github.io",
        "amazonaws.com", "console.amazonaws.com", "mybucket.s3.amazonaws.com", "x.mybucket.s3.amazonaws.com",
        "localhost", "app.localhost", "192.168.1.10", "[::1]", "intranet", "xn--bcher-kva.example", "com",
    ]

    @Test func everyMatchAmongManyHostsSharesTheQuerysKey() throws {
        var matches = 0
        for queryHost in Self.hosts {
            for scheme in ["https://", "http://", ""] {
                let query = try ServiceQuery(scheme + queryHost + (scheme.isEmpty ? "" : "/login"))
                for identityHost in Self.hosts {
                    let rp = identityHost.hasPrefix("[") ? String(identityHost.dropFirst().dropLast()) : identityHost
                    for identity in [
                        Self.password(identityHost), Self.password("https://" + identityHost + "/login", .url),
                        Self.code("http://" + identityHost + ":8080/"), Self.passkey(rp),
                    ] where query.match(identity) != nil {
                        matches += 1
                        #expect(IdentityIndex.lookupKey(for: identity) == query.lookupKey, "\(query.name) vs \(identity)")
                    }
                }
            }
        }
        #expect(matches > 100)
    }
}
