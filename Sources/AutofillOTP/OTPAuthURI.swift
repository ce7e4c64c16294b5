/// The Google Authenticator Key URI format, `otpauth://TYPE/LABEL?PARAMETERS`, and autofill's
/// one extension to it, `af_domain`.
///
/// ```
/// otpauth://totp/Example:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example&algorithm=SHA256&digits=8&period=60
/// otpauth://hotp/alice@example.com?secret=JBSWY3DPEHPK3PXP&counter=0&af_domain=example.com
/// ```
///
/// * TYPE is `totp` or `hotp` (any case).
/// * LABEL is `issuer:account` or `account`, percent-encoded; spaces may follow the colon.
/// * `secret` (required): the key in Base32; case, padding, spaces and hyphens don't matter.
/// * `issuer`: wins over the label's prefix when both are given (they should agree; a
///   disagreement is reported in ``notes``).
/// * `algorithm`: `SHA1` (default), `SHA256` or `SHA512`; `digits`: 6 (default), 7 or 8;
///   `period` (TOTP): seconds, default 30; `counter` (HOTP, required): the next counter value.
/// * `af_domain` (autofill's extension): the domain the codes are for (`example.com`).
/// * Other parameters (`image`, …) are ignored; a parameter given twice is an error.
///
/// Errors say what was wrong and show a valid example. They never contain the secret: a
/// quoted URI is redacted first (``redacted(_:)``).
public struct OTPAuthURI: Sendable, Equatable {
    /// The generator's parameters.
    public let parameters: OneTimeCodeParameters
    /// The label as written, percent-decoded: `Example:alice@example.com`.
    public let label: String
    /// The `af_domain` parameter (autofill's extension), lower-cased; nil when absent.
    public let domain: String?
    /// What is odd but not wrong (the issuer parameter disagreeing with the label's prefix, a
    /// parameter that does not apply to the type). Never contains the secret.
    public let notes: [String]

    /// An example for messages, with an obviously made-up secret.
    static let totpExample = "otpauth://totp/Example:alice@example.com?secret=\(Base32.example)&issuer=Example"
    static let hotpExample = "otpauth://hotp/Example:alice@example.com?secret=\(Base32.example)&issuer=Example&counter=0"

    /// The parameters of an `otpauth://` URI.
    public static func parse(_ text: String) throws(OTPError) -> OneTimeCodeParameters {
        try OTPAuthURI(parsing: text).parameters
    }

    /// Parses an `otpauth://` URI; leading and trailing white space is ignored.
    public init(parsing original: String) throws(OTPError) {
        let text = Self.trimmed(original)
        let scheme = "otpauth://"
        guard text.utf8.count >= scheme.utf8.count,
            String(decoding: text.utf8.prefix(scheme.utf8.count), as: UTF8.self).lowercased() == scheme
        else {
            throw OTPError(.notOTPAuthURI, "not an otpauth:// URI: it must start with otpauth://totp/ or otpauth://hotp/. For example: \(Self.totpExample)")
        }
        let quoted = Self.redacted(text)
        var rest = Substring(text.unicodeScalars.dropFirst(scheme.unicodeScalars.count))
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let pathPart: Substring
        let queryPart: Substring
        if let question = rest.firstIndex(of: "?") {
            pathPart = rest[..<question]
            queryPart = rest[rest.index(after: question)...]
        } else {
            pathPart = rest
            queryPart = ""
        }
        let typeText: Substring
        let rawLabel: Substring
        if let slash = pathPart.firstIndex(of: "/") {
            typeText = pathPart[..<slash]
            rawLabel = pathPart[pathPart.index(after: slash)...]
        } else {
            typeText = pathPart
            rawLabel = ""
        }

        // The type.
        let isTOTP: Bool
        switch typeText.lowercased() {
        case "totp": isTOTP = true
        case "hotp": isTOTP = false
        default:
            throw OTPError(.unknownType, "unknown one-time-code type in \(quoted): after otpauth:// comes totp (time-based codes) or hotp (counter-based codes). For example: \(Self.totpExample)")
        }
        let example = isTOTP ? Self.totpExample : Self.hotpExample

        // The label: issuer:account or account.
        guard let label = Self.percentDecoded(rawLabel) else {
            throw OTPError(.malformedURI, "the label of \(quoted) has a broken percent escape or is not UTF-8: write % and two hexadecimal digits (%20 for a space, %3A for a colon). For example: \(example)")
        }
        var labelIssuer: String?
        var account = Self.trimmed(label)
        if let colon = label.firstIndex(of: ":") {
            let prefix = Self.trimmed(String(label[..<colon]))
            labelIssuer = prefix.isEmpty ? nil : prefix
            account = Self.trimmed(String(label[label.index(after: colon)...]))
        }
        guard !account.isEmpty else {
            throw OTPError(.missingLabel, "no account name in the label of \(quoted): after otpauth://\(isTOTP ? "totp" : "hotp")/ comes issuer:account or account. For example: \(example)")
        }

        // The parameters.
        var values: [String: String] = [:]
        for item in queryPart.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let rawValue: Substring
            if let equals = item.firstIndex(of: "=") {
                name = item[..<equals]
                rawValue = item[item.index(after: equals)...]
            } else {
                name = item
                rawValue = ""
            }
            guard let decodedName = Self.percentDecoded(name)?.lowercased(), let value = Self.percentDecoded(rawValue) else {
                throw OTPError(.malformedURI, "a parameter of \(quoted) has a broken percent escape or is not UTF-8: write % and two hexadecimal digits (%20 for a space). For example: \(example)")
            }
            guard values[decodedName] == nil else {
                // Name only known parameters: an unknown "name" may be a stray secret.
                let shown = Self.quotable.contains(decodedName) || decodedName == "secret" ? decodedName : "with no known name"
                throw OTPError(.duplicateParameter, "a parameter \(shown) appears twice in \(quoted): give each parameter once. For example: \(example)")
            }
            values[decodedName] = value
        }

        guard let secretText = values["secret"], !Self.trimmed(secretText).isEmpty else {
            throw OTPError(.missingSecret, "no secret in \(quoted): add secret= with the key the service showed you, in Base32. For example: \(example)")
        }
        let secret: OTPSecret
        do {
            secret = OTPSecret(base32: secretText, measuredCount: try Base32.measure(secretText))
        } catch {
            throw OTPError(.invalidSecret, "the secret in \(quoted) is not valid Base32: \(error.reason). \(Base32.help). For example: \(example)")
        }

        var algorithm = OTPAlgorithm.sha1
        if let text = values["algorithm"] {
            let name = text.uppercased().replacingHyphens()
            guard let known = OTPAlgorithm(rawValue: name) else {
                throw OTPError(.unknownAlgorithm, "unknown algorithm in \(quoted): algorithm is SHA1, SHA256 or SHA512 (SHA1 when left out). For example: \(example)&algorithm=SHA256")
            }
            algorithm = known
        }

        var digits = 6
        if let text = values["digits"] {
            guard let number = Int(Self.trimmed(text)), (6...8).contains(number) else {
                throw OTPError(.invalidDigits, "invalid digits in \(quoted): digits is 6, 7 or 8 (6 when left out). For example: \(example)&digits=8")
            }
            digits = number
        }

        var notes: [String] = []
        let kind: OneTimeCodeParameters.Kind
        if isTOTP {
            var period = 30
            if let text = values["period"] {
                guard let number = Int(Self.trimmed(text)), number > 0 else {
                    throw OTPError(.invalidPeriod, "invalid period in \(quoted): period is a positive whole number of seconds (30 when left out). For example: \(example)&period=30")
                }
                period = number
            }
            if values["counter"] != nil { notes.append("counter applies to hotp only; ignored for this totp URI") }
            kind = .totp(period: period, t0: 0)
        } else {
            guard let text = values["counter"] else {
                throw OTPError(.missingCounter, "no counter in \(quoted): an hotp URI needs counter=, the next counter value (0 for a new account). For example: \(example)")
            }
            guard let counter = UInt64(Self.trimmed(text)) else {
                throw OTPError(.invalidCounter, "invalid counter in \(quoted): counter is a whole number from 0 to \(UInt64.max). For example: \(example)")
            }
            if values["period"] != nil { notes.append("period applies to totp only; ignored for this hotp URI") }
            kind = .hotp(counter: counter)
        }

        var issuer = labelIssuer
        if let parameter = values["issuer"].map(Self.trimmed), !parameter.isEmpty {
            if let labelIssuer, labelIssuer != parameter {
                notes.append("the issuer parameter (\(Self.printable(parameter))) differs from the label's issuer (\(Self.printable(labelIssuer))); using the parameter")
            }
            issuer = parameter
        }

        var domain: String?
        if let text = values["af_domain"] {
            var name = Self.trimmed(text).lowercased()
            if name.hasSuffix(".") { name.removeLast() }
            domain = name.isEmpty ? nil : name
        }

        parameters = try OneTimeCodeParameters(
            kind: kind, algorithm: algorithm, digits: digits, secret: secret, issuer: issuer, account: account)
        self.label = label
        self.domain = domain
        self.notes = notes
    }

    /// The URI of `parameters`, with the label `issuer:account` (or `account`) and, if given,
    /// `af_domain`. **Contains the secret**: for exports to the user only, never for logs.
    public static func string(for parameters: OneTimeCodeParameters, domain: String? = nil) -> String {
        var uri = "otpauth://"
        var query: [(String, String)] = [("secret", parameters.secret.revealedBase32())]
        if let issuer = parameters.issuer {
            uri += "\(parameters.isTimeBased ? "totp" : "hotp")/\(encoded(issuer)):\(encoded(parameters.account))"
            query.append(("issuer", issuer))
        } else {
            uri += "\(parameters.isTimeBased ? "totp" : "hotp")/\(encoded(parameters.account))"
        }
        query.append(("algorithm", parameters.algorithm.rawValue))
        query.append(("digits", String(parameters.digits)))
        switch parameters.kind {
        case .totp(let period, _): query.append(("period", String(period)))
        case .hotp(let counter): query.append(("counter", String(counter)))
        }
        if let domain { query.append(("af_domain", domain)) }
        return uri + "?" + query.map { "\($0.0)=\(encoded($0.1))" }.joined(separator: "&")
    }

    /// Parameters whose values may be quoted in messages; every other value is redacted.
    static let quotable: Set<String> = ["issuer", "algorithm", "digits", "period", "counter", "af_domain"]

    /// `text` fit to quote in a message or a log: the value of `secret` and of every parameter
    /// not known to be harmless is replaced by `<REDACTED>`, as is an item without `=` (it may
    /// be a stray secret); control characters become `?` and long text is shortened.
    public static func redacted(_ text: String) -> String {
        let text = trimmed(text)
        var output: String
        // Split at the first `?`, or at a `&` before it (a secret may follow a forgotten `?`).
        if let question = text.firstIndex(where: { $0 == "?" || $0 == "&" }) {
            output = String(text[...question])
            let items = text[text.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            output += items.map { item -> String in
                guard let equals = item.firstIndex(of: "=") else { return item.isEmpty ? "" : "<REDACTED>" }
                let name = item[..<equals]
                let decoded = percentDecoded(name)?.lowercased() ?? ""
                return quotable.contains(decoded) ? String(item) : "\(name)=<REDACTED>"
            }.joined(separator: "&")
        } else {
            output = text
        }
        output = printable(output)
        if output.count > 300 { output = String(output.prefix(300)) + "…" }
        return output
    }

    // MARK: Helpers

    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    /// `text` with control characters replaced by `?`.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }

    /// Percent-decoded `text` (RFC 3986; `+` stays `+`); nil for a broken escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `text` percent-encoded for a label part or a parameter value: everything but
    /// RFC 3986's unreserved characters and `@`.
    static func encoded(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "@"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                output.unicodeScalars.append("%")
                output.unicodeScalars.append(hex[Int(byte >> 4)])
                output.unicodeScalars.append(hex[Int(byte & 0xf)])
            }
        }
        return output
    }
}

extension String {
    /// `SHA-256` → `SHA256`.
    fileprivate func replacingHyphens() -> String {
        String(unicodeScalars.filter { $0 != "-" })
    }
}
