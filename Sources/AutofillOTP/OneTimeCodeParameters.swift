#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Everything needed to generate one account's one-time codes: HOTP (RFC 4226) or TOTP (RFC 6238).
///
/// The values are checked when the parameters are made, so generating a code cannot fail.
/// Printing the parameters never shows the secret.
public struct OneTimeCodeParameters: Sendable, Equatable, CustomStringConvertible {
    /// Time-based or counter-based.
    public enum Kind: Hashable, Sendable {
        /// TOTP: a new code every `period` seconds, counted from `t0` (seconds since 1970, UTC).
        case totp(period: Int = 30, t0: Int64 = 0)
        /// HOTP: a new code for every value of the counter; `counter` is the next one to use.
        case hotp(counter: UInt64)
    }

    /// TOTP or HOTP.
    public let kind: Kind
    /// The HMAC hash.
    public let algorithm: OTPAlgorithm
    /// How many digits a code has: 6, 7 or 8.
    public let digits: Int
    /// The key; prints as `<REDACTED>`.
    public let secret: OTPSecret
    /// Who issued the codes ("Example"), if known.
    public let issuer: String?
    /// The account the codes are for ("alice@example.com").
    public let account: String

    /// Checks and creates parameters. Throws for digits outside 6–8, a period ≤ 0 or an empty secret.
    public init(
        kind: Kind = .totp(), algorithm: OTPAlgorithm = .sha1, digits: Int = 6, secret: OTPSecret,
        issuer: String? = nil, account: String = ""
    ) throws(OTPError) {
        guard (6...8).contains(digits) else {
            throw OTPError(.invalidDigits, "a one-time code has 6, 7 or 8 digits, not \(digits)")
        }
        if case .totp(let period, _) = kind, period <= 0 {
            throw OTPError(.invalidPeriod, "the TOTP period must be a positive number of seconds (usually 30), not \(period)")
        }
        guard secret.count > 0 else {
            throw OTPError(.missingSecret, "the secret is empty")
        }
        self.kind = kind
        self.algorithm = algorithm
        self.digits = digits
        self.secret = secret
        self.issuer = issuer
        self.account = account
    }

    /// Whether the codes are time-based.
    public var isTimeBased: Bool {
        if case .totp = kind { true } else { false }
    }

    /// The HOTP value for `counter` (RFC 4226). For TOTP parameters, `counter` is the time step.
    public func code(counter: UInt64) -> String {
        HOTP.code(secret: secret, counter: counter, algorithm: algorithm, digits: digits)
    }

    /// The code to enter at `date`. TOTP: the code of the time step holding `date`.
    /// HOTP has no clock: this is the code for the parameters' own counter; a provider keeps
    /// the counter itself and calls ``code(counter:)``.
    public func code(at date: Date) -> String {
        code(atUnixTime: Self.unixTime(date))
    }

    /// ``code(at:)`` for a time in whole seconds since 1970-01-01 00:00:00 UTC.
    public func code(atUnixTime seconds: Int64) -> String {
        switch kind {
        case .totp: code(counter: timeStep(atUnixTime: seconds) ?? 0)
        case .hotp(let counter): code(counter: counter)
        }
    }

    /// TOTP: the time step T = ⌊(time − T0) / period⌋ at `seconds` (0 before T0); nil for HOTP.
    public func timeStep(atUnixTime seconds: Int64) -> UInt64? {
        guard case .totp(let period, let t0) = kind else { return nil }
        let elapsed = Int128(seconds) - Int128(t0)
        return elapsed < 0 ? 0 : UInt64(elapsed / Int128(period))
    }

    /// TOTP: whole seconds until the code at `date` changes: 1 to `period` (more before T0,
    /// where the first step's code is used); nil for HOTP.
    public func secondsRemaining(at date: Date) -> Int? {
        secondsRemaining(atUnixTime: Self.unixTime(date))
    }

    /// ``secondsRemaining(at:)`` for a time in whole seconds since 1970.
    public func secondsRemaining(atUnixTime seconds: Int64) -> Int? {
        guard case .totp(let period, let t0) = kind, let step = timeStep(atUnixTime: seconds) else { return nil }
        let end = Int128(t0) + (Int128(step) + 1) * Int128(period)
        return Int(min(end - Int128(seconds), Int128(Int.max)))
    }

    /// Whole seconds since 1970 in `date`, rounded down and clamped to Int64.
    static func unixTime(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return seconds > 0 ? .max : 0 }
        if seconds >= 9.2e18 { return .max }
        if seconds <= -9.2e18 { return .min }
        return Int64(seconds)
    }

    public var description: String {
        let what: String
        switch kind {
        case .totp(let period, let t0): what = "TOTP every \(period) s" + (t0 == 0 ? "" : " from \(t0)")
        case .hotp(let counter): what = "HOTP at counter \(counter)"
        }
        let who = issuer.map { "\($0):\(account)" } ?? account
        return "OneTimeCodeParameters(\(who), \(what), \(algorithm.rawValue), \(digits) digits, secret: <REDACTED>)"
    }
}
