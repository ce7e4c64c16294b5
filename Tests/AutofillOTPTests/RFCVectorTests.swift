@testable import AutofillOTP
import Foundation
import Testing

/// The test vectors of RFC 4226 (Appendix D) and RFC 6238 (Appendix B), every row.
struct RFCVectorTests {
    static let rfc4226Secret = OTPSecret(bytes: Array("12345678901234567890".utf8))

    /// RFC 4226 Appendix D: counter, truncated 31-bit value, 6-digit HOTP.
    static let rfc4226: [(counter: UInt64, truncated: UInt32, hotp: String)] = [
        (0, 1284755224, "755224"), (1, 1094287082, "287082"), (2, 137359152, "359152"),
        (3, 1726969429, "969429"), (4, 1640338314, "338314"), (5, 868254676, "254676"),
        (6, 1918287922, "287922"), (7, 82162583, "162583"), (8, 673399871, "399871"),
        (9, 645520489, "520489"),
    ]

    @Test(arguments: rfc4226)
    func rfc4226AppendixD(counter: UInt64, truncated: UInt32, hotp: String) throws {
        #expect(HOTP.binary(secret: Self.rfc4226Secret, counter: counter, algorithm: .sha1) == truncated)
        let parameters = try OneTimeCodeParameters(kind: .hotp(counter: counter), secret: Self.rfc4226Secret)
        #expect(parameters.code(counter: counter) == hotp)
        #expect(parameters.code(at: Date()) == hotp)  // HOTP: the parameters' own counter
    }

    /// RFC 6238 Appendix B: the seeds are the ASCII digits repeated to the hash's length.
    static func seed(_ algorithm: OTPAlgorithm) -> OTPSecret {
        let length = switch algorithm {
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
        return OTPSecret(bytes: (0..<length).map { UInt8(ascii: "0") + UInt8(($0 + 1) % 10) })
    }

    /// RFC 6238 Appendix B: time, T (hex), TOTP, algorithm — all 18 rows.
    static let rfc6238: [(time: Int64, step: UInt64, totp: String, algorithm: OTPAlgorithm)] = [
        (59, 0x1, "94287082", .sha1),
        (59, 0x1, "46119246", .sha256),
        (59, 0x1, "90693936", .sha512),
        (1111111109, 0x23523EC, "07081804", .sha1),
        (1111111109, 0x23523EC, "68084774", .sha256),
        (1111111109, 0x23523EC, "25091201", .sha512),
        (1111111111, 0x23523ED, "14050471", .sha1),
        (1111111111, 0x23523ED, "67062674", .sha256),
        (1111111111, 0x23523ED, "99943326", .sha512),
        (1234567890, 0x273EF07, "89005924", .sha1),
        (1234567890, 0x273EF07, "91819424", .sha256),
        (1234567890, 0x273EF07, "93441116", .sha512),
        (2000000000, 0x3F940AA, "69279037", .sha1),
        (2000000000, 0x3F940AA, "90698825", .sha256),
        (2000000000, 0x3F940AA, "38618901", .sha512),
        (20000000000, 0x27BC86AA, "65353130", .sha1),
        (20000000000, 0x27BC86AA, "77737706", .sha256),
        (20000000000, 0x27BC86AA, "47863826", .sha512),
    ]

    @Test(arguments: rfc6238)
    func rfc6238AppendixB(time: Int64, step: UInt64, totp: String, algorithm: OTPAlgorithm) throws {
        let parameters = try OneTimeCodeParameters(kind: .totp(), algorithm: algorithm, digits: 8, secret: Self.seed(algorithm))
        #expect(parameters.timeStep(atUnixTime: time) == step)
        #expect(parameters.code(atUnixTime: time) == totp)
        #expect(parameters.code(at: Date(timeIntervalSince1970: TimeInterval(time))) == totp)
        #expect(parameters.code(at: Date(timeIntervalSince1970: TimeInterval(time) + 0.999)) == totp)  // rounds down
        #expect(parameters.code(counter: step) == totp)
    }

    @Test func theSeedsAreTheRFCs() {
        #expect(Self.seed(.sha1) == OTPSecret(bytes: Array("12345678901234567890".utf8)))
        #expect(Self.seed(.sha256) == OTPSecret(bytes: Array("12345678901234567890123456789012".utf8)))
        #expect(Self.seed(.sha512) == OTPSecret(bytes: Array(
            "1234567890123456789012345678901234567890123456789012345678901234".utf8)))
    }
}

/// Time steps, the seconds left, T0, digits and the checks of the parameters.
struct OneTimeCodeParametersTests {
    static let secret = OTPSecret(bytes: Array("12345678901234567890".utf8))

    @Test func timeStepsAndSecondsRemaining() throws {
        let totp = try OneTimeCodeParameters(secret: Self.secret)
        #expect(totp.timeStep(atUnixTime: 0) == 0)
        #expect(totp.timeStep(atUnixTime: 29) == 0)
        #expect(totp.timeStep(atUnixTime: 30) == 1)
        #expect(totp.secondsRemaining(atUnixTime: 0) == 30)
        #expect(totp.secondsRemaining(atUnixTime: 29) == 1)
        #expect(totp.secondsRemaining(atUnixTime: 30) == 30)
        #expect(totp.secondsRemaining(at: Date(timeIntervalSince1970: 59.5)) == 1)
        #expect(totp.timeStep(atUnixTime: .max) == UInt64(Int64.max / 30))
        #expect(totp.secondsRemaining(atUnixTime: .max) == 23)  // Int64.max % 30 == 7

        let hotp = try OneTimeCodeParameters(kind: .hotp(counter: 3), secret: Self.secret)
        #expect(hotp.timeStep(atUnixTime: 100) == nil)
        #expect(hotp.secondsRemaining(at: Date()) == nil)
        #expect(!hotp.isTimeBased && totp.isTimeBased)
    }

    @Test func t0ShiftsTheSteps() throws {
        let shifted = try OneTimeCodeParameters(kind: .totp(period: 30, t0: 1_000), digits: 8, secret: Self.secret)
        let plain = try OneTimeCodeParameters(digits: 8, secret: Self.secret)
        #expect(shifted.code(atUnixTime: 1_059) == plain.code(atUnixTime: 59))
        #expect(shifted.timeStep(atUnixTime: 999) == 0)  // before T0: the first step
        #expect(shifted.secondsRemaining(atUnixTime: 990) == 40)
        #expect(shifted.secondsRemaining(atUnixTime: 1_059) == 1)
        let negative = try OneTimeCodeParameters(kind: .totp(period: 30, t0: -60), digits: 8, secret: Self.secret)
        #expect(negative.timeStep(atUnixTime: 0) == 2)
    }

    @Test func otherPeriodsAndDigits() throws {
        let sixty = try OneTimeCodeParameters(kind: .totp(period: 60), digits: 7, secret: Self.secret)
        #expect(sixty.timeStep(atUnixTime: 119) == 1)
        #expect(sixty.code(atUnixTime: 119) == "4287082")  // RFC 4226 counter 1, 7 digits
        #expect(sixty.secondsRemaining(atUnixTime: 61) == 59)
    }

    @Test(arguments: [0, 5, 9, 10, -1])
    func digitsOutside6To8AreRefused(digits: Int) {
        #expect(throws: OTPError.self) { try OneTimeCodeParameters(digits: digits, secret: Self.secret) }
        do {
            _ = try OneTimeCodeParameters(digits: digits, secret: Self.secret)
        } catch {
            #expect(error.code == .invalidDigits)
            #expect(error.message.contains("6, 7 or 8"))
        }
    }

    @Test(arguments: [0, -30])
    func periodsBelow1AreRefused(period: Int) {
        do {
            _ = try OneTimeCodeParameters(kind: .totp(period: period), secret: Self.secret)
            Issue.record("period \(period) was accepted")
        } catch {
            #expect(error.code == .invalidPeriod)
        }
    }

    @Test func anEmptySecretIsRefused() {
        do {
            _ = try OneTimeCodeParameters(secret: OTPSecret(bytes: []))
            Issue.record("an empty secret was accepted")
        } catch {
            #expect(error.code == .missingSecret)
        }
    }

    @Test func leadingZerosAreKept() throws {
        // RFC 6238 row 1111111109 / SHA1 starts with 0.
        let parameters = try OneTimeCodeParameters(digits: 8, secret: Self.secret)
        #expect(parameters.code(atUnixTime: 1111111109) == "07081804")
        #expect(HOTP.decimal(42, digits: 6) == "000042")
        #expect(HOTP.decimal(0, digits: 8) == "00000000")
    }
}
