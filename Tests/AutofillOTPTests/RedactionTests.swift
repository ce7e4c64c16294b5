import AutofillOTP
import Testing

/// The secret never prints, however a value is printed.
struct RedactionTests {
    static let base32 = "KRUGS4ZANFZSA43FMNZGK5BB"  // "This is secret!"
    static let plain = "This is secret!"

    /// Every way Swift prints a value.
    static func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        var debugPrinted = ""
        debugPrint(value, to: &debugPrinted)
        var printed = ""
        print(value, to: &printed)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped, debugPrinted, printed,
                Mirror(reflecting: value).children.map { "\($0.label ?? ""): \($0.value)" }.joined()]
    }

    static func expectNoSecret(in value: Any, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in renderings(value) {
            #expect(!text.contains(base32), "\(text)", sourceLocation: sourceLocation)
            #expect(!text.contains(plain), "\(text)", sourceLocation: sourceLocation)
            #expect(!text.contains("KRUG"), "\(text)", sourceLocation: sourceLocation)
            #expect(!text.contains("84, 104, 105"), "\(text)", sourceLocation: sourceLocation)  // the bytes as numbers
        }
    }

    @Test func theSecretPrintsAsRedacted() throws {
        let secret = try OTPSecret(base32: Self.base32)
        #expect(secret.description == "<REDACTED>")
        #expect(secret.debugDescription == "<REDACTED>")
        #expect("\(secret)" == "<REDACTED>")
        #expect(String(reflecting: secret) == "<REDACTED>")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(dumped == "- <REDACTED>\n")
        #expect(Mirror(reflecting: secret).children.isEmpty)
        Self.expectNoSecret(in: secret)
        Self.expectNoSecret(in: [secret])
        Self.expectNoSecret(in: Optional(secret) as Any)
    }

    @Test func parametersAndParsedURIsDontShowTheSecret() throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/Example:alice?secret=\(Self.base32)&issuer=Example")
        Self.expectNoSecret(in: uri)
        Self.expectNoSecret(in: uri.parameters)
        #expect(uri.parameters.description
            == "OneTimeCodeParameters(Example:alice, TOTP every 30 s, SHA1, 6 digits, secret: <REDACTED>)")
        var dumped = ""
        dump(uri.parameters, to: &dumped)
        #expect(dumped.contains("secret: <REDACTED>"), "\(dumped)")
    }

    @Test func theSecretIsStillUsable() throws {
        let secret = try OTPSecret(base32: Self.base32)
        #expect(secret.count == 15)
        #expect(secret.withUnsafeBytes { Array($0) } == Array(Self.plain.utf8))
        #expect(secret.revealedBase32() == Self.base32)
        #expect(secret == OTPSecret(bytes: Array(Self.plain.utf8)))
        #expect(secret != OTPSecret(bytes: Array("This is secret?".utf8)))
        #expect(secret != OTPSecret(bytes: Array("This is secret".utf8)))
    }

    @Test func copiesShareTheKeyUntilTheLastIsReleased() throws {
        var copy: OTPSecret?
        do {
            let secret = try OTPSecret(base32: Self.base32)
            copy = secret
        }
        #expect(copy?.withUnsafeBytes { Array($0) } == Array(Self.plain.utf8))
    }
}
