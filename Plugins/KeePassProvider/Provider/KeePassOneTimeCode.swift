import AutofillCore
import AutofillOTP
import KDBX

/// The one-time codes of a KeePass entry: KeePassXC's `otp` attribute (an otpauth:// URI), or the
/// older `TOTP Seed` (Base32) with `TOTP Settings` ("30;6", "30;8", "30;S" for Steam: not supported).
enum KeePassOneTimeCode {
    /// The entry's code parameters; nil when it has none. Errors never contain the seed.
    static func parameters(of entry: KDBXEntry) throws(OTPError) -> OneTimeCodeParameters? {
        if let uri = entry.fields["otp"]?.revealed, !uri.isEmpty {
            return try OTPAuthURI.parse(uri.trimmingCharacters(in: .whitespacesAndNewlines))
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

    /// Whether the entry has a one-time code, without checking it.
    static func has(_ entry: KDBXEntry) -> Bool {
        !(entry.fields["otp"]?.isEmpty ?? true) || !(entry.fields["TOTP Seed"]?.isEmpty ?? true)
    }
}
