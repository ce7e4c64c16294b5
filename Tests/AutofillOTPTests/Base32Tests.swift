@testable import AutofillOTP
import AutofillTestSupport
import Testing

/// Base32 (RFC 4648 §6 and its §10 test vectors), the way people copy secrets.
struct Base32Tests {
    /// Text → the bytes it decodes to.
    static let valid: [(text: String, bytes: String)] = [
        // RFC 4648 §10, padded and not.
        ("MY======", "f"), ("MZXQ====", "fo"), ("MZXW6===", "foo"), ("MZXW6YQ=", "foob"),
        ("MZXW6YTB", "fooba"), ("MZXW6YTBOI======", "foobar"),
        ("MY", "f"), ("MZXQ", "fo"), ("MZXW6", "foo"), ("MZXW6YQ", "foob"), ("MZXW6YTBOI", "foobar"),
        // Any case, spaces, hyphens and tabs anywhere.
        ("mzxw6ytboi", "foobar"), ("MzXw6YtBoI", "foobar"), ("MZXW 6YTB-OI", "foobar"),
        (" mzxw-6ytb\tOI ", "foobar"), ("MZXW6YTBOI ====== ", "foobar"),
        ("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", "12345678901234567890"),
    ]

    @Test(arguments: valid)
    func decodes(text: String, bytes: String) throws {
        #expect(try Base32.decode(text) == Array(bytes.utf8))
        #expect(try OTPSecret(base32: text) == OTPSecret(bytes: Array(bytes.utf8)))
    }

    @Test func decodesTheUsualExampleSecret() throws {
        #expect(try Base32.decode("JBSWY3DPEHPK3PXP") == Array("Hello!".utf8) + [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(try Base32.decode("jbsw y3dp ehpk 3pxp") == Base32.decode("JBSWY3DPEHPK3PXP"))
    }

    @Test func encodes() {
        let vectors = ["": "", "f": "MY======", "fo": "MZXQ====", "foo": "MZXW6===", "foob": "MZXW6YQ=",
                       "fooba": "MZXW6YTB", "foobar": "MZXW6YTBOI======"]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8), padding: true) == encoded)
            #expect(Base32.encode(Array(plain.utf8)) == encoded.filter { $0 != "=" })
        }
    }

    @Test func roundTripsEveryLength() throws {
        var random = SplitMix64(seed: 4648)
        for length in 1...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(try Base32.decode(Base32.encode(bytes)) == bytes)
            #expect(try Base32.decode(Base32.encode(bytes, padding: true).lowercased()) == bytes)
            #expect(try OTPSecret(base32: Base32.encode(bytes)).revealedBase32() == Base32.encode(bytes))
        }
    }

    /// Text → a piece of the message (the position, or what is wrong).
    static let invalid: [(text: String, expected: String)] = [
        ("", "empty"), ("  - -\t", "empty"), ("======", "empty"),
        ("MZXW0YTB", "character 5 is not a Base32 character"),
        ("MZXW1YTB", "character 5"), ("MZXW8YTB", "character 5"), ("MZXW9YTB", "character 5"),
        ("MZXW!YTB", "character 5"), ("MZXWéYTB", "character 5"), ("MZXW_YTB", "character 5"),
        ("MZ XW+YTB", "character 6"), ("MZXW6YTB\n", "character 9"),
        ("MY==MY", "after the = padding"), ("MZXW6Y=TB", "after the = padding"),
        ("M", "1 characters cannot encode whole bytes"), ("MZX", "3 characters"), ("MZXW6Y", "6 characters"),
        ("MZXW6YTBO", "9 characters"),
        ("MY=====", "need 6 = of padding, not 5"), ("MZXW6YQ==", "need 1 = of padding, not 2"),
        ("MZXW6YTB=", "need 0 = of padding, not 1"),
    ]

    @Test(arguments: invalid)
    func refuses(text: String, expected: String) {
        do {
            _ = try Base32.decode(text)
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.code == .invalidSecret)
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(error.message.contains("A–Z and the digits 2–7"))
            let core = text.filter { $0 != " " && $0 != "-" && $0 != "=" && !$0.isWhitespace }
            if core.count >= 6 { #expect(!error.message.contains(core), "the message quotes the secret") }
        }
        #expect(throws: OTPError.self) { try OTPSecret(base32: text) }
    }
}

