import AutofillCore
import AutofillMatching
import Testing

/// Parsing URLs and domains into normalized service names.
struct ServiceNameTests {
    @Test func aFullURLIsTakenApartAndNormalized() throws {
        let name = try ServiceName.parse("HTTPS://User:Secret@Example.COM.:8443/Login/Step?x=1#frag")
        #expect(name.scheme == "https")
        #expect(name.host == .domain("example.com"))
        #expect(name.port == 8443)
        #expect(name.path == "/Login/Step")
        #expect(name.effectivePort == 8443)
        #expect(name.hostText == "example.com")
        #expect(!name.isExactOnly)
        #expect(name.description == "https://example.com:8443/Login/Step")
        #expect(name.serviceIdentifier == ServiceIdentifier(identifier: "https://example.com:8443/Login/Step", type: .url))
    }

    @Test func aBareDomainHasNoSchemePortOrPath() throws {
        let name = try ServiceName.parse("Example.com")
        #expect(name == ServiceName(scheme: nil, host: .domain("example.com"), port: nil, path: ""))
        #expect(name.effectivePort == nil)
        #expect(name.description == "example.com")
        #expect(name.serviceIdentifier == ServiceIdentifier(identifier: "example.com", type: .domain))
    }

    @Test func aURLStoredWithoutASchemeStillParses() throws {
        let name = try ServiceName.parse(ServiceIdentifier(identifier: "example.com/login", type: .url))
        #expect(name.scheme == nil)
        #expect(name.host == .domain("example.com"))
        #expect(name.path == "/login")
        #expect(name.description == "example.com/login")
    }

    @Test(arguments: [
        ("https://example.com", 443), ("https://example.com:443", 443), ("http://example.com", 80), ("wss://example.com", 443),
        ("ftp://example.com", 21), ("https://example.com:8443", 8443), ("example.com:8080", 8080),
    ])
    func theEffectivePortIsThePortOrTheSchemesDefault(_ text: String, _ port: Int) throws {
        #expect(try ServiceName.parse(text).effectivePort == port)
    }

    @Test func anExplicitDefaultPortIsKeptAsWritten() throws {
        let name = try ServiceName.parse("https://example.com:443/")
        #expect(name.port == 443)
        #expect(name.description == "https://example.com:443/")
        #expect(name != (try ServiceName.parse("https://example.com/")))
    }

    @Test func unknownSchemesAndSchemelessNamesWithoutAPortHaveNoEffectivePort() throws {
        #expect(try ServiceName.parse("example.com").effectivePort == nil)
        #expect(try ServiceName.parse("myapp://example.com").effectivePort == nil)
    }

    @Test func anEmptyPortIsNoPort() throws {
        #expect(try ServiceName.parse("https://example.com:/x").port == nil)
    }

    @Test(arguments: [
        ("https://example.com@evil.test/", "evil.test"), ("https://a@b@evil.test", "evil.test"),
        ("https://evil.test\\@example.com/", "evil.test"), ("https://evil.test?@example.com/", "evil.test"),
        ("https://evil.test#@example.com/", "evil.test"), ("example.com@evil.test", "evil.test"),
        ("myapp://example.com\\@evil.test/", "evil.test"),
    ])
    func theHostIsAfterTheLastAtSignAndBeforeTheAuthoritysEnd(_ text: String, _ host: String) throws {
        #expect(try ServiceName.parse(text).hostText == host)
    }

    @Test func backslashesInWebPathsReadAsSlashes() throws {
        #expect(try ServiceName.parse("https://example.com\\login\\step").path == "/login/step")
        #expect(try ServiceName.parse("myapp://example.com/a\\b").path == "/a\\b")
    }

    @Test func surroundingSpacesAndControlCharactersAreIgnored() throws {
        #expect(try ServiceName.parse(" \t https://example.com/ \n") == (try ServiceName.parse("https://example.com/")))
    }

    @Test(arguments: [
        ("bücher.example", "xn--bcher-kva.example"), ("XN--BCHER-KVA.example", "xn--bcher-kva.example"),
        ("BÜCHER.Example", "xn--bcher-kva.example"), ("faß.de", "xn--fa-hia.de"), ("💩.la", "xn--ls8h.la"),
        ("example。com", "example.com"), ("a_b.bücher.example", "a_b.xn--bcher-kva.example"),
        ("ab--c.bücher.example", "ab--c.xn--bcher-kva.example"), ("bücher.example.", "xn--bcher-kva.example"),
    ])
    func internationalNamesBecomePunycode(_ text: String, _ host: String) throws {
        #expect(try ServiceName.parse(text).host == .domain(host))
    }

    @Test(arguments: [
        ("[::1]", "::1"), ("[0:0:0:0:0:0:0:1]", "::1"), ("[::]", "::"), ("[2001:DB8:0:0::1]", "2001:db8::1"),
        ("[1:0:0:1:0:0:0:1]", "1:0:0:1::1"), ("[2001:db8:0:0:1:0:0:1]", "2001:db8::1:0:0:1"), ("[1::]", "1::"),
        ("[1:2:3:4:5:6:7:8]", "1:2:3:4:5:6:7:8"), ("[::ffff:192.0.2.1]", "::ffff:192.0.2.1"),
        ("[::FFFF:c000:0201]", "::ffff:192.0.2.1"), ("[64:ff9b::192.0.2.1]", "64:ff9b::c000:201"), ("[1:0::2]", "1::2"),
        ("[0001:0db8::0:1]", "1:db8::1"),
    ])
    func ipv6AddressesAreNormalized(_ bracketed: String, _ address: String) throws {
        let name = try ServiceName.parse("https://" + bracketed + ":8443/x")
        #expect(name.host == .ipv6(address))
        #expect(name.hostText == address)
        #expect(name.port == 8443)
        #expect(name.isExactOnly)
        #expect(name.description == "https://[\(address)]:8443/x")
    }

    @Test func aSchemelessBareIPv6AddressIsAccepted() throws {
        let name = try ServiceName.parse("2001:db8::1")
        #expect(name.host == .ipv6("2001:db8::1"))
        #expect(name.description == "2001:db8::1")
    }

    @Test(arguments: [
        "https://[1:2:3:4:5:6:7:8:9]/", "https://[1::2::3]/", "https://[12345::]/", "https://[:1]/", "https://[1:]/",
        "https://[::1%eth0]/", "https://[g::]/", "https://[]/", "https://[1:2:3:4:5:6:7::8]/", "https://[::1.2.3]/",
        "https://[1:2:3:4:5:6:7:1.2.3.4]/", "https://[::1]x/", "https://[::1]:/", "https://x[::1]/",
    ])
    func malformedIPv6AddressesAreRejected(_ text: String) {
        if text == "https://[::1]:/" {
            #expect(throws: Never.self) { try ServiceName.parse(text) }  // an empty port is no port
        } else {
            #expect(throws: ServiceNameError.self) { try ServiceName.parse(text) }
        }
    }

    @Test(arguments: [
        ("192.168.1.10", true), ("http://10.0.0.1:8080/", true), ("localhost", true), ("LOCALHOST.", true),
        ("app.localhost", true), ("a.b.localhost", true), ("[::1]", true), ("example.com", false), ("mylocalhost", false),
        ("localhost.example.com", false), ("intranet", false),
    ])
    func ipAddressesAndLocalhostAreExactOnly(_ text: String, _ exactOnly: Bool) throws {
        #expect(try ServiceName.parse(text).isExactOnly == exactOnly)
    }

    @Test(arguments: [
        "https://example.com:8443/Login", "example.com", "example.com/login", "example.com:8443", "http://192.168.1.10/",
        "https://[2001:db8::1]/x", "[::1]:8080", "::1", "https://xn--bcher-kva.example/", "myapp://host/p",
        "https://example.com:443",
    ])
    func theDescriptionParsesBackToTheSameName(_ text: String) throws {
        let name = try ServiceName.parse(text)
        #expect(try ServiceName.parse(name.description) == name)
    }

    @Test(arguments: [
        ("", "The service name is empty"), ("   ", "it is empty apart from spaces"),
        ("https://exa mple.com/", "its host contains a space"), ("exa\u{7}mple.com", "its host contains a control character"),
        ("https://.../", "its host is only dots"), ("https://example..com/", "empty label"), (".example.com", "empty label"),
        ("https://example.com:http/", "the port \"http\" is not a number"), ("https://example.com:-1/", "is not a number"),
        ("https://example.com:65536/", "the port \"65536\" is out of range"),
        ("https://example.com:99999999999999999999999/", "out of range"),
        ("https://[::1/", "no \"]\" closes it"), ("https://[::1]x/", "only \":\" and a port may follow \"]\""),
        ("https://[example.com]/", "is not an IPv6 address"), ("https://exa]mple.com/", "brackets may only enclose"),
        ("https://2001:db8::1/", "an IPv6 address goes in brackets"), ("https://xn--zz.example/", "\"xn--zz\" is not a valid internationalised"),
        ("https://-bücher.example/", "is not a valid internationalised"), ("https://*.example.com/", "its host contains \"*\""),
        ("https://ex%61mple.com/", "its host contains \"%\""), ("https://192.168.1.256/", "is not an IPv4 address"),
        ("https://127.1/", "is not an IPv4 address"), ("https://0x7f.0.0.1/", "is not an IPv4 address"),
        ("https://example.123/", "ends in a number"), ("://example.com", "no scheme before it"),
        ("1https://example.com", "\"1https\" is not a scheme"), ("https:///login", "it has no host"),
        ("https://user@/", "it has no host"), ("https:example.com", "a scheme is followed by \"//\""),
    ])
    func invalidInputIsRejectedWithWhatIsWrongAndAValidExample(_ text: String, _ problem: String) {
        #expect {
            try ServiceName.parse(text)
        } throws: { error in
            guard let error = error as? ServiceNameError else { return false }
            return error.message.contains(problem)
                && error.message.contains(#""example.com""#) && error.message.contains(#""https://example.com/login""#)
                && error.description == error.message
        }
    }

    @Test func theErrorQuotesTheInputWithControlCharactersEscaped() throws {
        let error = try #require(throws: ServiceNameError.self) { try ServiceName.parse("https://ex\u{1B}[31mample.com/") }
        #expect(error.message.hasPrefix(#""https://ex\u{1b}[31mample.com/" is not a valid service name: "#))
        #expect(!error.message.contains("\u{1B}"))
    }

    @Test(arguments: [
        ("https://alice:hunter2@exa mple.com/", #""https://<REDACTED>@exa mple.com/""#),
        ("https://alice:hunter2@example.com:99999/", #""https://<REDACTED>@example.com:99999/""#),
        ("alice:hunter2@exa mple.com", #""<REDACTED>@exa mple.com""#),
        ("https://a@b:hunter2@[::1/x", #""https://<REDACTED>@[::1/x""#),
    ])
    func theErrorNeverQuotesAPasswordBeforeTheHost(_ input: String, _ quoted: String) throws {
        let error = try #require(throws: ServiceNameError.self) { try ServiceName.parse(input) }
        #expect(error.message.hasPrefix(quoted + " is not a valid service name: "), "\(error.message)")
        #expect(!error.message.contains("hunter2"))
        let origin = try #require(throws: WebAuthnRequestError.self) { try WebAuthnOrigin("https://alice:hunter2@example.com") }
        #expect(origin.message.hasPrefix(#"The origin "https://<REDACTED>@example.com" cannot make passkey requests"#), "\(origin.message)")
    }

    @Test func theErrorShortensALongInput() throws {
        let input = "https://" + String(repeating: "a", count: 500) + " .com/"
        let error = try #require(throws: ServiceNameError.self) { try ServiceName.parse(input) }
        #expect(error.message.contains(String(repeating: "a", count: 192) + "…"))
        #expect(!error.message.contains(String(repeating: "a", count: 193)))
    }

    @Test(arguments: ["example.com", "Login.Example.com.", "bücher.example", "192.168.1.10", "::1", "[::1]", "localhost"])
    func aRelyingPartyIsABareHost(_ text: String) throws {
        let name = try ServiceName.parseRelyingParty(text)
        #expect(name.scheme == nil && name.port == nil && name.path.isEmpty)
    }

    @Test(arguments: [
        ("https://example.com", "without a scheme"), ("example.com:443", "without a port"), ("example.com/", "without a path"),
        ("example.com?x", "without a path"), ("alice@example.com", "without \"@\""), ("", "empty"),
    ])
    func aRelyingPartyWithMoreThanAHostIsRejected(_ text: String, _ problem: String) {
        #expect {
            try ServiceName.parseRelyingParty(text)
        } throws: { error in
            (error as? ServiceNameError)?.message.contains(problem) == true
        }
    }
}
