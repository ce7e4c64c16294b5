import AutofillCore
import AutofillOTP
import Foundation
import KDBX

/// The one-time codes of a KeePass entry: KeePassXC's `otp` attribute (an otpauth:// URI, or the KeeOTP
/// plugin's `key=BASE32&size=6&step=30&otpHashMode=sha256`, which KeePassXC reads too), or the older
/// `TOTP Seed` (Base32) with `TOTP Settings` ("30;6", "30;8", "30;S" for Steam: not supported).
enum KeePassOneTimeCode {
    /// The entry's code parameters; nil when it has none. Errors never contain the seed.
    static func parameters(of entry: KDBXEntry) throws(OTPError) -> OneTimeCodeParameters? {
        if let uri = entry.fields["otp"]?.revealed.trimmingCharacters(in: .whitespacesAndNewlines), !uri.isEmpty {
            if !uri.lowercased().hasPrefix("otpauth:"), let keeOTP = try keeOTP(uri, account: entry.userName) { return keeOTP }
            return try OTPAuthURI.parse(uri)
        }
        guard let seed = entry.fields["TOTP Seed"]?.revealed, !seed.isEmpty else { return nil }
        var period = 30
        var digits = 6
        if let settings = entry.fields["TOTP Settings"]?.revealed, !settings.isEmpty {
            let parts = settings.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            if let first = parts.first, let value = Int(first) { period = value }
            if parts.count > 1 {
                guard let value = Int(parts[1]) else {
                    throw OTPError(.invalidDigits, "the TOTP Settings \"\(settings)\" name an encoding this provider does not make (Steam codes are not supported)")
                }
                digits = value
            }
        }
        return try OneTimeCodeParameters(kind: .totp(period: period), digits: digits, secret: try OTPSecret(base32: seed), account: entry.userName)
    }

    /// The KeeOTP form (`key=…&size=…&step=…&otpHashMode=…`), as KeePassXC reads it; nil when
    /// `text` has no `key`.
    static func keeOTP(_ text: String, account: String) throws(OTPError) -> OneTimeCodeParameters? {
        var values: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            values[parts[0].lowercased()] = parts[1].removingPercentEncoding ?? parts[1]
        }
        guard let key = values["key"], !key.isEmpty else { return nil }
        if let type = values["type"], type.lowercased() != "totp" {
            throw OTPError(.unknownType, "the entry's KeeOTP settings name type \"\(type)\"; only time-based codes (totp) are made")
        }
        let algorithm: OTPAlgorithm
        switch values["otphashmode"]?.lowercased() ?? "sha1" {
        case "sha1": algorithm = .sha1
        case "sha256": algorithm = .sha256
        case "sha512": algorithm = .sha512
        default: throw OTPError(.unknownAlgorithm, "the entry's KeeOTP otpHashMode is not sha1, sha256 or sha512")
        }
        return try OneTimeCodeParameters(kind: .totp(period: values["step"].flatMap { Int($0) } ?? 30), algorithm: algorithm,
                                         digits: values["size"].flatMap { Int($0) } ?? 6, secret: try OTPSecret(base32: key), account: account)
    }

    /// Whether the entry has a one-time code, without checking it.
    static func has(_ entry: KDBXEntry) -> Bool {
        !(entry.fields["otp"]?.isEmpty ?? true) || !(entry.fields["TOTP Seed"]?.isEmpty ?? true)
    }
}
