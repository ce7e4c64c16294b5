public import AutofillCore
internal import AutofillOTP

/// One-time codes of vault entries, through AutofillOTP (RFC 4226/6238, otpauth:// URIs).
extension OneTimeCodeEntry {
    /// What a user gave for a one-time-code entry, checked: an `otpauth://totp/` URI or a bare Base32 secret.
    public struct Input: Sendable {
        /// The otpauth URI to store (built from the secret when a bare secret was given).
        public var uri: Secret
        /// The URI's label (`Example:alice@example.com`), or nil for a bare secret.
        public var label: String?
        /// The URI's `af_domain`, if any.
        public var domain: String?
    }

    /// Checks `text`: an `otpauth://totp/` URI, or a bare Base32 secret that becomes a TOTP URI with
    /// `issuer` and `account`. Errors never contain the secret. HOTP is refused: the vault does not
    /// keep counters yet.
    public static func parseInput(_ text: Secret, issuer: String? = nil, account: String) throws(VaultError) -> Input {
        let trimmed = text.revealed.trimmingWhitespace
        do {
            if trimmed.lowercased().hasPrefix("otpauth:") {
                let uri = try OTPAuthURI(parsing: trimmed)
                guard uri.parameters.isTimeBased else {
                    throw VaultError(.invalidInput, "HOTP (counter-based) codes are not supported by the vault yet; use a TOTP (otpauth://totp/) URI")
                }
                return Input(uri: Secret(trimmed), label: uri.label, domain: uri.domain)
            }
            let parameters = try OneTimeCodeParameters(
                kind: .totp(), secret: try OTPSecret(base32: trimmed), issuer: issuer, account: account)
            return Input(uri: Secret(OTPAuthURI.string(for: parameters)), label: nil, domain: nil)
        } catch let error as OTPError {
            throw VaultError(.invalidInput, error.message)
        } catch let error as VaultError {
            throw error
        } catch {
            throw VaultError(.invalidInput, "the one-time-code secret is not valid")
        }
    }

    /// The code to enter at `unixTime` (seconds since 1970); prints as `<REDACTED>`.
    public func code(atUnixTime unixTime: Int64) throws(VaultError) -> Secret {
        do throws(OTPError) {
            let parameters = try OTPAuthURI.parse(uri.revealed)
            guard parameters.isTimeBased else {
                throw OTPError(.unknownType, "HOTP (counter-based) codes are not supported by the vault yet")
            }
            return Secret(parameters.code(atUnixTime: unixTime))
        } catch {
            throw VaultError(.invalidInput, "the one-time-code entry \(id) cannot make codes: \(error.message)")
        }
    }

    /// Seconds until the code at `unixTime` changes, if the entry is readable.
    public func secondsRemaining(atUnixTime unixTime: Int64) -> Int? {
        (try? OTPAuthURI.parse(uri.revealed))?.secondsRemaining(atUnixTime: unixTime)
    }
}

extension OneTimeCodeEntry {
    /// The code to enter now (by the wall clock).
    public func currentCode() throws(VaultError) -> Secret {
        try code(atUnixTime: Int64(WallClock.now()))
    }
}
