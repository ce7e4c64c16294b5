import AutofillMatching
import Testing

/// WebAuthn's origin and relying-party-id rules, as `autofill passkey` checks them before any provider runs.
@Suite struct WebAuthnOriginTests {
    @Test(arguments: [
        ("https://example.com", "https://example.com"),
        ("https://EXAMPLE.com/", "https://example.com"),
        ("https://example.com:443", "https://example.com"),
        ("https://example.com:8443", "https://example.com:8443"),
        ("http://localhost:8080", "http://localhost:8080"),
        ("http://app.localhost", "http://app.localhost"),
        ("https://bücher.example", "https://xn--bcher-kva.example"),
        ("https://[::1]:8443", "https://[::1]:8443"),
    ])
    func acceptsOrigins(_ text: String, _ serialized: String) throws {
        #expect(try WebAuthnOrigin(text).serialized == serialized)
    }

    @Test(arguments: [
        ("http://example.com", "secure origin"),
        ("example.com", "no scheme"),
        ("ftp://example.com", "not a web origin"),
        ("https://example.com/login", "no path"),
        ("https://example.com?x=1", "no query"),
        ("https://alice@example.com", "no user name"),
        ("https://evil.com@example.com", "no user name"),
        ("", "empty"),
    ])
    func refusesOrigins(_ text: String, _ fragment: String) {
        #expect {
            try WebAuthnOrigin(text)
        } throws: { error in
            (error as? WebAuthnRequestError)?.message.contains(fragment) == true
        }
    }

    @Test(arguments: [
        ("https://example.com", nil, "example.com"),
        ("https://example.com", "example.com", "example.com"),
        ("https://login.example.com", "example.com", "example.com"),
        ("https://a.b.example.co.uk", "b.example.co.uk", "b.example.co.uk"),
        ("https://login.example.com", "EXAMPLE.com", "example.com"),
        ("https://bücher.example", "bücher.example", "xn--bcher-kva.example"),
        ("http://localhost:8080", "localhost", "localhost"),
        ("http://app.localhost", "localhost", "localhost"),
        ("https://192.168.1.10", "192.168.1.10", "192.168.1.10"),
        ("https://alice.github.io", "alice.github.io", "alice.github.io"),
    ] as [(String, String?, String)])
    func acceptsRelyingParties(_ origin: String, _ rpID: String?, _ expected: String) throws {
        #expect(try WebAuthnOrigin(origin).relyingParty(rpID) == expected)
    }

    @Test(arguments: [
        ("https://example.com", "login.example.com", "neither"),
        ("https://example.com", "other.com", "neither"),
        ("https://example.com", "ample.com", "neither"),
        ("https://login.example.com", "www.example.com", "neither"),
        ("https://alice.github.io", "github.io", "public suffix"),
        ("https://example.co.uk", "co.uk", "public suffix"),
        ("https://example.com", "com", "public suffix"),
        ("https://example.com", "https://example.com", "without a scheme"),
        ("https://example.com", "example.com:443", "without a port"),
        ("https://192.168.1.10", "168.1.10", "not a valid service name"),
        ("https://192.168.1.10", "example.com", "IP address"),
        ("http://localhost", "example.com", "localhost"),
    ] as [(String, String, String)])
    func refusesRelyingParties(_ origin: String, _ rpID: String, _ fragment: String) throws {
        let checked = try WebAuthnOrigin(origin)
        #expect {
            try checked.relyingParty(rpID)
        } throws: { error in
            (error as? WebAuthnRequestError)?.message.contains(fragment) == true
        }
    }
}
