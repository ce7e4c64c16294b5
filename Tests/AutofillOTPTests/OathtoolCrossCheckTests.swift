import AutofillOTP
import Foundation
import AutofillTestSupport
import Testing

/// Our codes against the real `oathtool` (OATH Toolkit) for seeded-random secrets, times,
/// periods, start times, digits and algorithms. The secret goes to oathtool on standard input,
/// never on its command line.
struct OathtoolCrossCheckTests {
    static let oathtool = "/usr/bin/oathtool"

    struct Case: Sendable, CustomTestStringConvertible {
        let secret: [UInt8]
        let parameters: OneTimeCodeParameters
        let time: Int64

        var testDescription: String {
            switch parameters.kind {
            case .totp(let period, let t0):
                "TOTP \(parameters.algorithm.rawValue) \(parameters.digits) digits, \(secret.count)-byte key, period \(period), T0 \(t0), time \(time)"
            case .hotp(let counter):
                "HOTP \(parameters.digits) digits, \(secret.count)-byte key, counter \(counter)"
            }
        }

        /// oathtool's arguments for this case; the key is read from standard input ("-").
        var arguments: [String] {
            switch parameters.kind {
            case .totp(let period, let t0):
                ["--totp=\(parameters.algorithm.rawValue)", "-b", "-d", String(parameters.digits), "-s", "\(period)s",
                 "-S", "@\(t0)", "--now", "@\(time)", "-"]
            case .hotp(let counter):
                ["--hotp", "-b", "-d", String(parameters.digits), "-c", String(counter), "-"]
            }
        }
    }

    /// 80 cases: 60 TOTP (all three algorithms) and 20 HOTP (oathtool's HOTP is SHA-1 only).
    static let cases: [Case] = {
        var random = SplitMix64(seed: 6238)
        let periods = [30, 30, 60, 15, 1, 7, 45, 90, 300, 3600]
        return (0..<80).map { index in
            let secret = (0..<Int.random(in: 10...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let digits = Int.random(in: 6...8, using: &random)
            let time = Int64.random(in: 0...4_102_444_800, using: &random)  // up to 2100
            let kind: OneTimeCodeParameters.Kind
            let algorithm: OTPAlgorithm
            if index % 4 == 3 {
                let counter = index == 79 ? UInt64.max : UInt64.random(in: 0...UInt64(1) << UInt64.random(in: 1...63, using: &random), using: &random)
                kind = .hotp(counter: counter)
                algorithm = .sha1
            } else {
                let t0 = index % 3 == 0 ? 0 : Int64.random(in: 0...time, using: &random)
                kind = .totp(period: periods.randomElement(using: &random)!, t0: t0)
                algorithm = OTPAlgorithm.allCases.randomElement(using: &random)!
            }
            let parameters = try! OneTimeCodeParameters(
                kind: kind, algorithm: algorithm, digits: digits, secret: OTPSecret(bytes: secret), account: "case-\(index)")
            return Case(secret: secret, parameters: parameters, time: time)
        }
    }()

    /// oathtool's code for `arguments`, with `key` on standard input.
    static func oathtool(_ arguments: [String], key: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: oathtool) else {
            throw CrossCheckFailure("\(oathtool) is missing: install it (apt-get install oathtool)")
        }
        return try Oathtool.run(arguments, key: key)
    }

    @Test(arguments: cases)
    func matchesOathtool(_ check: Case) throws {
        let expected = try Self.oathtool(check.arguments, key: Base32.encode(check.secret))
        let ours = switch check.parameters.kind {
        case .totp: check.parameters.code(atUnixTime: check.time)
        case .hotp(let counter): check.parameters.code(counter: counter)
        }
        #expect(ours == expected)
        #expect(ours.count == check.parameters.digits)
        // The same through an otpauth:// URI, its secret written in lower case with spaces.
        if case .totp(_, 0) = check.parameters.kind {
            let uri = OTPAuthURI.string(for: check.parameters)
            let spaced = uri.replacingOccurrences(of: "secret=", with: "secret=%20").lowercased()
            let parsed = try OTPAuthURI.parse(spaced)
            #expect(parsed.code(at: Date(timeIntervalSince1970: TimeInterval(check.time))) == expected)
        } else if case .hotp(let counter) = check.parameters.kind {
            let parsed = try OTPAuthURI.parse(OTPAuthURI.string(for: check.parameters))
            #expect(parsed.code(counter: counter) == expected)
        }
    }

    @Test func coversEveryAlgorithmDigitCountAndBothKinds() {
        #expect(Set(Self.cases.map(\.parameters.algorithm)) == Set(OTPAlgorithm.allCases))
        #expect(Set(Self.cases.map(\.parameters.digits)) == [6, 7, 8])
        #expect(Self.cases.filter { !$0.parameters.isTimeBased }.count == 20)
        #expect(Self.cases.count >= 50)
    }

    @Test func theRFC6238RowsAgreeWithOathtoolToo() throws {
        // Ties the cross-check to the RFC: oathtool gives the RFC's value for its first row.
        let key = Base32.encode(Array("12345678901234567890".utf8))
        #expect(try Self.oathtool(["--totp=SHA1", "-b", "-d", "8", "--now", "@59", "-"], key: key) == "94287082")
    }
}

struct CrossCheckFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
