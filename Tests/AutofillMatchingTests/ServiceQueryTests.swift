import AutofillCore
import AutofillMatching
import Testing

/// A query's service-identifier array, registrable domain and lookup key.
struct ServiceQueryTests {
    static func url(_ text: String) -> ServiceIdentifier { ServiceIdentifier(identifier: text, type: .url) }
    static func domain(_ text: String) -> ServiceIdentifier { ServiceIdentifier(identifier: text, type: .domain) }

    @Test(arguments: [
        ("https://a.b.example.co.uk:8443/x?y#z",
         [url("https://a.b.example.co.uk:8443/x"), domain("a.b.example.co.uk"), domain("b.example.co.uk"), domain("example.co.uk")]),
        ("https://www.example.com", [url("https://www.example.com"), domain("www.example.com"), domain("example.com")]),
        ("https://example.com/", [url("https://example.com/"), domain("example.com")]),
        ("example.com", [domain("example.com")]),
        ("login.example.com/signin?x", [domain("login.example.com"), domain("example.com")]),
        ("HTTPS://User@Bücher.Example./Login", [url("https://xn--bcher-kva.example/Login"), domain("xn--bcher-kva.example")]),
        ("https://alice.github.io/x", [url("https://alice.github.io/x"), domain("alice.github.io")]),
        ("https://co.uk/", [url("https://co.uk/"), domain("co.uk")]),
        ("http://192.168.1.10:8080/admin?x", [url("http://192.168.1.10:8080/admin"), domain("192.168.1.10")]),
        ("https://[2001:DB8::1]/", [url("https://[2001:db8::1]/"), domain("2001:db8::1")]),
        ("http://app.localhost:3000/", [url("http://app.localhost:3000/"), domain("app.localhost")]),
        ("localhost", [domain("localhost")]),
    ])
    func serviceIdentifiersGoFromTheURLToTheRegistrableDomain(_ text: String, _ expected: [ServiceIdentifier]) throws {
        #expect(try ServiceQuery(text).serviceIdentifiers == expected)
    }

    @Test(arguments: [
        ("https://a.b.example.co.uk/", "example.co.uk", "example.co.uk"), ("https://example.com", "example.com", "example.com"),
        ("alice.github.io", "alice.github.io", "alice.github.io"), ("co.uk", nil, "co.uk"), ("intranet", nil, "intranet"),
        ("http://192.168.1.10/", nil, "192.168.1.10"), ("https://[::1]/", nil, "::1"), ("app.localhost", nil, "app.localhost"),
    ])
    func theLookupKeyIsTheRegistrableDomainOrTheHost(_ text: String, _ registrable: String?, _ key: String) throws {
        let query = try ServiceQuery(text)
        #expect(query.registrableDomain == registrable)
        #expect(query.lookupKey == key)
    }

    @Test func aQueryCanBeMadeFromAParsedName() throws {
        let name = try ServiceName.parse("https://www.example.com/")
        let query = ServiceQuery(name: name)
        #expect(query.name == name)
        #expect(query.lookupKey == "example.com")
    }

    @Test func anUnparsableQueryThrowsTheParseError() {
        #expect(throws: ServiceNameError.self) { try ServiceQuery("https://exa mple.com/") }
    }

    @Test func matchingAParsedServiceAgreesWithMatchingTheIdentity() throws {
        let query = try ServiceQuery("https://www.example.com/login")
        let identity = CredentialIdentity.password(PasswordCredentialIdentity(
            serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: "alice"))
        let service = try #require(IdentityIndex.serviceName(for: identity))
        #expect(query.match(service, kind: .password) == query.match(identity))
        #expect(query.match(service, kind: .password) == .parentDomain(distance: 1))
        #expect(query.match(try ServiceName.parse("login.example.com"), kind: .passkey) == nil)
        #expect(query.match(try ServiceName.parse("login.example.com"), kind: .oneTimeCode) == .sameRegistrableDomain)
    }

    @Test func queriesAreSafeToShareAcrossTasks() async throws {
        let query = try ServiceQuery("https://www.example.com/")
        let results = await withTaskGroup(of: MatchQuality?.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    query.match(.password(PasswordCredentialIdentity(
                        serviceIdentifier: ServiceIdentifier(identifier: "login.example.com", type: .domain), user: "a")))
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: .sameRegistrableDomain, count: 32))
    }
}
