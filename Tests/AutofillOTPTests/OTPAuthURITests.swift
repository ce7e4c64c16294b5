import AutofillOTP
import AutofillTestSupport
import Testing

/// `otpauth://` URIs: what is accepted, what each error says, and that no error shows the secret.
struct OTPAuthURITests {
    /// "This is secret!" in Base32: a secret no message may contain.
    static let secret = "KRUGS4ZANFZSA43FMNZGK5BB"
    static let secretBytes = Array("This is secret!".utf8)

    struct Valid: Sendable, CustomTestStringConvertible {
        let uri: String
        var kind: OneTimeCodeParameters.Kind = .totp()
        var algorithm: OTPAlgorithm = .sha1
        var digits = 6
        var issuer: String?
        var account: String
        var label: String
        var domain: String?
        var notes = 0
        var secret = OTPAuthURITests.secretBytes

        var testDescription: String { uri }
    }

    static let s = secret
    static let valid: [Valid] = [
        Valid(uri: "otpauth://totp/Example:alice@google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example",
              issuer: "Example", account: "alice@google.com", label: "Example:alice@google.com",
              secret: Array("Hello!".utf8) + [0xDE, 0xAD, 0xBE, 0xEF]),
        Valid(uri: "otpauth://totp/ACME%20Co:john.doe@email.com?secret=\(s)&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30",
              issuer: "ACME Co", account: "john.doe@email.com", label: "ACME Co:john.doe@email.com"),
        Valid(uri: "otpauth://totp/alice@example.com?secret=\(s)", account: "alice@example.com", label: "alice@example.com"),
        Valid(uri: "otpauth://totp/Example%3Aalice?secret=\(s.lowercased())&issuer=Example",
              issuer: "Example", account: "alice", label: "Example:alice"),
        Valid(uri: "otpauth://totp/Example:%20%20alice?secret=KRUG-S4ZA-NFZS-A43F-MNZG-K5BB",
              issuer: "Example", account: "alice", label: "Example:  alice"),
        Valid(uri: "otpauth://totp/Label:alice?secret=\(s)&issuer=Other",
              issuer: "Other", account: "alice", label: "Label:alice", notes: 1),
        Valid(uri: "otpauth://totp/:alice?secret=\(s)", account: "alice", label: ":alice"),
        Valid(uri: "OTPAUTH://TOTP/a?secret=\(s)&algorithm=sha256&digits=8&period=60",
              kind: .totp(period: 60), algorithm: .sha256, digits: 8, account: "a", label: "a"),
        Valid(uri: "otpauth://totp/a?secret=\(s)&algorithm=SHA512&digits=7", algorithm: .sha512, digits: 7,
              account: "a", label: "a"),
        Valid(uri: "otpauth://totp/a?secret=\(s)&algorithm=SHA-256", algorithm: .sha256, account: "a", label: "a"),
        Valid(uri: "otpauth://totp/a?secret=\(s)&period=1", kind: .totp(period: 1), account: "a", label: "a"),
        Valid(uri: "otpauth://hotp/Example:bob?secret=\(s)&counter=42&issuer=Example",
              kind: .hotp(counter: 42), issuer: "Example", account: "bob", label: "Example:bob"),
        Valid(uri: "otpauth://hotp/bob?secret=\(s)&counter=18446744073709551615",
              kind: .hotp(counter: .max), account: "bob", label: "bob"),
        Valid(uri: "otpauth://Hotp/bob?counter=0&secret=\(s)", kind: .hotp(counter: 0), account: "bob", label: "bob"),
        Valid(uri: "otpauth://totp/Example:alice?secret=\(s)&issuer=Example&af_domain=Example.COM.",
              issuer: "Example", account: "alice", label: "Example:alice", domain: "example.com"),
        Valid(uri: "otpauth://totp/a?secret=\(s)&image=https%3A%2F%2Fexample.com%2Flogo.png&foo", account: "a", label: "a"),
        Valid(uri: "  otpauth://totp/a?secret=\(s)\r\n", account: "a", label: "a"),
        Valid(uri: "otpauth://totp/a?secret=MZXW6YQ=", account: "a", label: "a", secret: Array("foob".utf8)),
        Valid(uri: "otpauth://totp/a?secret=MZXW6YQ%3D&&", account: "a", label: "a", secret: Array("foob".utf8)),
        Valid(uri: "otpauth://totp/a?secret=\(s)&counter=3", account: "a", label: "a", notes: 1),
        Valid(uri: "otpauth://hotp/a?secret=\(s)&counter=3&period=60", kind: .hotp(counter: 3), account: "a", label: "a", notes: 1),
        Valid(uri: "otpauth://totp/B%C3%BCro:j%C3%BCrgen?secret=\(s)", issuer: "Büro", account: "jürgen", label: "Büro:jürgen"),
        Valid(uri: "otpauth://totp/Büro:jürgen?secret=\(s)", issuer: "Büro", account: "jürgen", label: "Büro:jürgen"),
        Valid(uri: "otpauth://totp/a:b:c?secret=\(s)", issuer: "a", account: "b:c", label: "a:b:c"),
        Valid(uri: "otpauth://totp/a?secret=\(s)&issuer=", account: "a", label: "a"),
        Valid(uri: "otpauth://totp/a?secret=\(s)#fragment", account: "a", label: "a"),
        Valid(uri: "otpauth://totp/a+b?secret=\(s)&issuer=x+y", issuer: "x+y", account: "a+b", label: "a+b"),
        // A colon inside the issuer or the account: the label is split before it is decoded.
        Valid(uri: "otpauth://totp/b%3Ac:alice?secret=\(s)&issuer=b%3Ac", issuer: "b:c", account: "alice", label: "b:c:alice"),
        Valid(uri: "otpauth://totp/b:c:alice?secret=\(s)&issuer=b:c", issuer: "b:c", account: "alice", label: "b:c:alice"),
        Valid(uri: "otpauth://totp/b%3Ac%3Aalice?secret=\(s)&issuer=b%3Ac", issuer: "b:c", account: "alice", label: "b:c:alice"),
        Valid(uri: "otpauth://totp/Example:b%3Aalice?secret=\(s)&issuer=Example", issuer: "Example", account: "b:alice",
              label: "Example:b:alice"),
        Valid(uri: "otpauth://totp/Example%3Ab%3Aalice?secret=\(s)", issuer: "Example", account: "b:alice", label: "Example:b:alice"),
        Valid(uri: "otpauth://totp/:b%3Aalice?secret=\(s)", account: "b:alice", label: ":b:alice"),
        Valid(uri: "otpauth://totp/100%25%20sure:al%25ice?secret=\(s)", issuer: "100% sure", account: "al%ice", label: "100% sure:al%ice"),
    ]

    @Test(arguments: valid)
    func parses(_ valid: Valid) throws {
        let uri = try OTPAuthURI(parsing: valid.uri)
        let p = uri.parameters
        #expect(p.kind == valid.kind)
        #expect(p.algorithm == valid.algorithm)
        #expect(p.digits == valid.digits)
        #expect(p.issuer == valid.issuer)
        #expect(p.account == valid.account)
        #expect(p.secret == OTPSecret(bytes: valid.secret))
        #expect(uri.label == valid.label)
        #expect(uri.domain == valid.domain)
        #expect(uri.notes.count == valid.notes, "\(uri.notes)")
        #expect(try OTPAuthURI.parse(valid.uri) == p)
        for note in uri.notes { #expect(!note.contains(Self.secret)) }
        // It writes back to a URI that parses to the same parameters.
        let written = OTPAuthURI.string(for: p, domain: uri.domain)
        let again = try OTPAuthURI(parsing: written)
        #expect(again.parameters == p)
        #expect(again.domain == uri.domain)
    }

    @Test func anIssuerMismatchIsNotedAndTheParameterWins() throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/Label:alice?secret=\(Self.secret)&issuer=Other")
        #expect(uri.parameters.issuer == "Other")
        #expect(uri.notes == ["the issuer parameter (Other) differs from the label's issuer (Label); using the parameter"])
    }

    static let invalid: [(code: OTPError.Code, uri: String)] = [
        (.notOTPAuthURI, "https://example.com/?secret=\(s)"),
        (.notOTPAuthURI, ""),
        (.notOTPAuthURI, "otpauth:/totp/a?secret=\(s)"),
        (.notOTPAuthURI, s),
        (.notOTPAuthURI, "otpauth:"),
        (.malformedURI, "otpauth://totp/Ex%ZZ:alice?secret=\(s)"),
        (.malformedURI, "otpauth://totp/alice%2?secret=\(s)"),
        (.malformedURI, "otpauth://totp/%FF?secret=\(s)"),
        (.malformedURI, "otpauth://totp/alice?secret=\(s)&issuer=%E2%82"),
        (.malformedURI, "otpauth://totp/alice?secret=\(s)%"),
        (.unknownType, "otpauth://motp/alice?secret=\(s)"),
        (.unknownType, "otpauth:///alice?secret=\(s)"),
        (.unknownType, "otpauth://totp2/alice?secret=\(s)"),
        (.unknownType, "otpauth://?secret=\(s)"),
        (.missingLabel, "otpauth://totp/?secret=\(s)"),
        (.missingLabel, "otpauth://totp?secret=\(s)"),
        (.missingLabel, "otpauth://totp/Example:?secret=\(s)&issuer=Example"),
        (.missingLabel, "otpauth://totp/%20?secret=\(s)"),
        (.missingSecret, "otpauth://totp/alice"),
        (.missingSecret, "otpauth://totp/alice?issuer=Example"),
        (.missingSecret, "otpauth://totp/alice?secret="),
        (.missingSecret, "otpauth://totp/alice?secret=%20"),
        (.missingSecret, "otpauth://totp/alice?sercet=\(s)"),
        (.missingSecret, "otpauth://totp/alice&secret=\(s)"),
        (.missingSecret, "otpauth://hotp/alice?counter=1&\(s)"),
        (.invalidSecret, "otpauth://totp/alice?secret=\(s)0"),
        (.invalidSecret, "otpauth://totp/alice?secret=\(s)1"),
        (.invalidSecret, "otpauth://totp/alice?secret=\(s)A"),
        (.invalidSecret, "otpauth://totp/alice?secret=\(s)%2F"),
        (.invalidSecret, "otpauth://totp/alice?secret=\(s)AB=="),
        (.invalidSecret, "otpauth://totp/alice?secret=\(s)+"),
        (.invalidDigits, "otpauth://totp/alice?secret=\(s)&digits=5"),
        (.invalidDigits, "otpauth://totp/alice?secret=\(s)&digits=9"),
        (.invalidDigits, "otpauth://totp/alice?secret=\(s)&digits=10"),
        (.invalidDigits, "otpauth://totp/alice?secret=\(s)&digits=six"),
        (.invalidDigits, "otpauth://totp/alice?secret=\(s)&digits="),
        (.invalidDigits, "otpauth://hotp/alice?secret=\(s)&counter=0&digits=-6"),
        (.invalidPeriod, "otpauth://totp/alice?secret=\(s)&period=0"),
        (.invalidPeriod, "otpauth://totp/alice?secret=\(s)&period=-30"),
        (.invalidPeriod, "otpauth://totp/alice?secret=\(s)&period=abc"),
        (.invalidPeriod, "otpauth://totp/alice?secret=\(s)&period="),
        (.invalidPeriod, "otpauth://totp/alice?secret=\(s)&period=1.5"),
        (.invalidPeriod, "otpauth://totp/alice?secret=\(s)&period=99999999999999999999"),
        (.unknownAlgorithm, "otpauth://totp/alice?secret=\(s)&algorithm=MD5"),
        (.unknownAlgorithm, "otpauth://totp/alice?secret=\(s)&algorithm=SHA224"),
        (.unknownAlgorithm, "otpauth://totp/alice?secret=\(s)&algorithm=SHA3-256"),
        (.unknownAlgorithm, "otpauth://totp/alice?secret=\(s)&algorithm="),
        (.missingCounter, "otpauth://hotp/alice?secret=\(s)"),
        (.missingCounter, "otpauth://hotp/alice?secret=\(s)&issuer=Example&period=30"),
        (.invalidCounter, "otpauth://hotp/alice?secret=\(s)&counter=-1"),
        (.invalidCounter, "otpauth://hotp/alice?secret=\(s)&counter=abc"),
        (.invalidCounter, "otpauth://hotp/alice?secret=\(s)&counter=18446744073709551616"),
        (.invalidCounter, "otpauth://hotp/alice?secret=\(s)&counter="),
        (.duplicateParameter, "otpauth://totp/alice?secret=\(s)&secret=\(s)"),
        (.duplicateParameter, "otpauth://totp/alice?secret=\(s)&digits=6&DIGITS=6"),
        (.duplicateParameter, "otpauth://totp/alice?issuer=A&secret=\(s)&issuer=B"),
        (.duplicateParameter, "otpauth://totp/alice?\(s)&\(s)"),
        (.duplicateParameter, "otpauth://totp/alice?secret=\(s)&SECRET=\(s)"),
        (.duplicateParameter, "otpauth://totp/alice?secret=\(s)&%73ecret=\(s)"),
        // A secret somewhere else than secret=: never quoted, and never kept in the clear.
        (.missingSecret, "otpauth://totp/alice?issuer=Example;secret=\(s)"),
        (.missingSecret, "otpauth://totp/alice;secret=\(s)"),
        (.missingSecret, "otpauth://totp/secret=\(s)?issuer=Example"),
        (.missingSecret, "otpauth://totp/Example:SECRET%3D\(s)?issuer=Example"),
        (.missingSecret, "otpauth://totp/alice?issuer=Example#secret=\(s)"),
        (.missingSecret, "otpauth://totp/alice#\(s)"),
        (.missingSecret, "otpauth://totp/alice?issuer=Example?secret=\(s)"),
        (.missingSecret, "otpauth://totp/alice?issuer=Example&\u{301}secret=\(s)"),
        (.missingSecret, "otpauth://totp/alice?\(s)=1&digits=6"),
        (.misplacedSecret, "otpauth://totp/alice?secret=\(s)&issuer=Example;secret=\(s)"),
        (.misplacedSecret, "otpauth://totp/alice?secret=\(s)&issuer=Example%26secret%3D\(s)"),
        (.misplacedSecret, "otpauth://totp/alice?secret=\(s)&af_domain=example.com;SECRET=\(s)"),
        (.misplacedSecret, "otpauth://totp/Example:\(s)?secret=\(s)&issuer=Example"),
        (.misplacedSecret, "otpauth://totp/Example:krug%20s4za-nfzs%20a43f%20mnzg%20k5bb?secret=\(s)&issuer=Example"),
        (.misplacedSecret, "otpauth://totp/alice%26secret%3D\(s)?secret=\(s)"),
        (.misplacedSecret, "otpauth://totp/alice;Secret=x?secret=\(s)"),
    ]

    /// A word every message for the code contains: what was wrong.
    static let keyword: [OTPError.Code: String] = [
        .notOTPAuthURI: "not an otpauth:// URI", .malformedURI: "percent escape", .unknownType: "totp (time-based",
        .missingLabel: "no account name", .missingSecret: "no secret", .invalidSecret: "not valid Base32",
        .invalidDigits: "6, 7 or 8", .invalidPeriod: "positive whole number of seconds",
        .unknownAlgorithm: "SHA1, SHA256 or SHA512", .missingCounter: "needs counter=",
        .invalidCounter: "whole number from 0", .duplicateParameter: "appears twice", .misplacedSecret: "holds a secret",
    ]

    @Test(arguments: invalid)
    func refuses(code: OTPError.Code, uri: String) throws {
        do {
            let parsed = try OTPAuthURI(parsing: uri)
            Issue.record("accepted: \(parsed.parameters)")
        } catch {
            #expect(error.code == code, "\(error.message)")
            #expect(error.message.contains(Self.keyword[code] ?? "?"), "\(error.message)")
            // Never the secret, in any case, nor a part of it.
            #expect(!error.message.lowercased().contains(Self.secret.lowercased()), "\(error.message)")
            #expect(!error.message.contains(Self.secret.prefix(8)), "\(error.message)")
            #expect(!error.message.lowercased().contains("krug"), "\(error.message)")
            #expect(!"\(error)".contains(Self.secret))
            // A valid example, which parses.
            let marker = "For example: "
            let example = try #require(error.message.range(of: marker).map { String(error.message[$0.upperBound...]) })
            #expect(throws: Never.self) { try OTPAuthURI(parsing: example) }
        }
    }

    @Test func everyErrorCodeIsCovered() {
        let covered = Set(Self.invalid.map(\.code))
        #expect(covered == Set(OTPError.Code.allCases))
    }

    @Test func errorsQuoteTheURIRedacted() {
        do {
            _ = try OTPAuthURI(parsing: "otpauth://totp/Example:alice?secret=\(Self.secret)&issuer=Example&digits=9&pin=1234")
        } catch {
            #expect(error.message.contains(
                "otpauth://totp/Example:alice?secret=<REDACTED>&issuer=Example&digits=9&pin=<REDACTED>"), "\(error.message)")
        }
    }

    @Test(arguments: [
        ("otpauth://totp/a?secret=\(s)&issuer=X", "otpauth://totp/a?secret=<REDACTED>&issuer=X"),
        ("otpauth://totp/a?SECRET=\(s)", "otpauth://totp/a?SECRET=<REDACTED>"),
        ("otpauth://totp/a?%73ecret=\(s)", "otpauth://totp/a?%73ecret=<REDACTED>"),
        ("otpauth://totp/a?sercet=\(s)&digits=6", "otpauth://totp/a?sercet=<REDACTED>&digits=6"),
        ("otpauth://totp/a?\(s)&counter=1", "otpauth://totp/a?<REDACTED>&counter=1"),
        ("otpauth://totp/a&secret=\(s)", "otpauth://totp/a&secret=<REDACTED>"),
        ("otpauth://totp/a\u{1B}[2J?secret=\(s)", "otpauth://totp/a?[2J?secret=<REDACTED>"),
        ("otpauth://totp/a", "otpauth://totp/a"),
        // Whatever the separator.
        ("otpauth://totp/a?issuer=X;secret=\(s)", "otpauth://totp/a?issuer=X;secret=<REDACTED>"),
        ("otpauth://totp/a;secret=\(s)", "otpauth://totp/a;secret=<REDACTED>"),
        ("otpauth://totp/a?issuer=X?secret=\(s)", "otpauth://totp/a?issuer=X?secret=<REDACTED>"),
        ("otpauth://totp/a?issuer=X&\u{301}secret=\(s)", "otpauth://totp/a?issuer=X&<REDACTED>=<REDACTED>"),
        // Whatever the name's case or encoding, and however often.
        ("otpauth://totp/a?%73%65%63%72%65%74=\(s)", "otpauth://totp/a?%73%65%63%72%65%74=<REDACTED>"),
        ("otpauth://totp/a?secret=\(s)&Secret=\(s)&issuer=X", "otpauth://totp/a?secret=<REDACTED>&Secret=<REDACTED>&issuer=X"),
        ("otpauth://totp/a?\(s)=1", "otpauth://totp/a?<REDACTED>=<REDACTED>"),
        // A quotable value that hides another parameter, or repeats the secret.
        ("otpauth://totp/a?issuer=X%26secret%3D\(s)", "otpauth://totp/a?issuer=<REDACTED>"),
        ("otpauth://totp/a?secret=\(s)&issuer=\(s.lowercased())", "otpauth://totp/a?secret=<REDACTED>&issuer=<REDACTED>"),
        // In the label, the type or the fragment.
        ("otpauth://totp/secret=\(s)?issuer=X", "otpauth://totp/secret=<REDACTED>?issuer=X"),
        ("otpauth://totp/Example:SECRET%3d\(s)", "otpauth://totp/Example:SECRET%3d<REDACTED>"),
        ("otpauth://totp/Example:\(s)?secret=\(s)", "otpauth://totp/<REDACTED>?secret=<REDACTED>"),
        ("otpauth://totp/Example:krug%20s4za%20nfzs%20a43f%20mnzg%20k5bb?secret=\(s)", "otpauth://totp/<REDACTED>?secret=<REDACTED>"),
        ("otpauth://\(s)/a?issuer=X", "otpauth://<REDACTED>/a?issuer=X"),
        ("otpauth://totp/a?issuer=X#secret=\(s)", "otpauth://totp/a?issuer=X#<REDACTED>"),
        ("otpauth://totp/a#\(s)", "otpauth://totp/a#<REDACTED>"),
        // Not a URI at all: it may be a bare secret.
        (s, "<REDACTED>"),
        ("https://example.com/?secret=\(s)", "<REDACTED>"),
    ])
    func redaction(uri: String, expected: String) {
        let quoted = OTPAuthURI.redacted(uri)
        #expect(quoted == expected)
        #expect(!quoted.lowercased().contains("krug"), "\(quoted)")
    }

    /// Issuers and accounts a round trip must keep: colons, percent signs, spaces, separators, unicode.
    static let names: [(issuer: String?, account: String)] = [
        ("b:c", "alice"), ("b:", "alice"), ("a:b:c", "d:e"), (nil, "b:alice"), (nil, ":alice"), ("Example", ":alice"),
        ("b%3Ac", "al%3Aice"), ("100%", "50% off"), ("ACME Co", "john doe"), (" ", "alice"), ("x", "a b:c d"),
        ("Büro", "jürgen"), ("東京", "ユーザー"), ("🔑 Keys", "me@🔑.example"), ("Cafe\u{301}", "e\u{301}:x"),
        ("a&b;c", "d=e?f#g"), ("a/b", "c/d"), ("x+y", "a+b"), ("a%20b", "%"), (nil, "a%3Ab"),
    ]

    @Test(arguments: names)
    func writingThenReadingKeepsTheIssuerAndTheAccount(issuer: String?, account: String) throws {
        let written = try OneTimeCodeParameters(
            kind: .totp(period: 45), algorithm: .sha256, digits: 8, secret: OTPSecret(base32: Self.secret), issuer: issuer, account: account)
        let text = OTPAuthURI.string(for: written, domain: "example.com")
        let read = try OTPAuthURI(parsing: text)
        let expectedIssuer = issuer.flatMap { $0.trimmingSpaces.isEmpty ? nil : $0 }
        #expect(read.parameters.issuer == expectedIssuer, "\(text)")
        #expect(read.parameters.account == account, "\(text)")
        #expect(read.parameters.secret == written.secret)
        #expect(read.parameters.kind == written.kind && read.parameters.algorithm == .sha256 && read.parameters.digits == 8)
        #expect(read.domain == "example.com")
        #expect(read.notes.isEmpty, "\(read.notes)")
        // And again: the written form is stable (a blank issuer is left out).
        if expectedIssuer == issuer { #expect(OTPAuthURI.string(for: read.parameters, domain: read.domain) == text) }
        // The codes are still oathtool's.
        let time: Int64 = 1_800_000_000
        let expected = try Oathtool.run(["--totp=SHA256", "-b", "-d", "8", "-s", "45s", "--now", "@\(time)", "-"], key: Self.secret)
        #expect(read.parameters.code(atUnixTime: time) == expected)
    }

    @Test func longURIsAreShortenedWhenQuoted() {
        let quoted = OTPAuthURI.redacted("otpauth://totp/" + String(repeating: "a", count: 1000) + "?secret=\(Self.secret)")
        #expect(quoted.count == 301)
        #expect(quoted.hasSuffix("…"))
    }
}

extension String {
    /// Without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
