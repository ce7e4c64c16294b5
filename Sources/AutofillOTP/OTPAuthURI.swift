/// The Google Authenticator Key URI format, `otpauth://TYPE/LABEL?PARAMETERS`, and autofill's
/// one extension to it, `af_domain`.
///
/// ```
/// otpauth://totp/Example:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example&algorithm=SHA256&digits=8&period=60
/// otpauth://hotp/alice@example.com?secret=JBSWY3DPEHPK3PXP&counter=0&af_domain=example.com
/// ```
///
/// * TYPE is `totp` or `hotp` (any case).
/// * LABEL is `issuer:account` or `account`, percent-encoded; spaces may follow the colon. It is
///   split before it is decoded, so a colon inside the issuer or the account is written `%3A`: the
///   separator is the colon (`:` or `%3A`) after which the issuer parameter ends, else the first
///   `:`, else the first `%3A`. An account with a colon and no issuer is written `:account`.
/// * `secret` (required): the key in Base32; case, padding, spaces and hyphens don't matter.
/// * `issuer`: wins over the label's prefix when both are given (they should agree; a
///   disagreement is reported in ``notes``).
/// * `algorithm`: `SHA1` (default), `SHA256` or `SHA512`; `digits`: 6 (default), 7 or 8;
///   `period` (TOTP): seconds, default 30; `counter` (HOTP, required): the next counter value.
/// * `af_domain` (autofill's extension): the domain the codes are for (`example.com`).
/// * Other parameters (`image`, …) are ignored; a parameter given twice is an error. Parameters
///   are separated by `&` only.
/// * The label, `issuer` and `af_domain` are kept and shown in the clear, so one that holds the
///   secret (or a `secret=`, as after a `;` used as a separator) is an error.
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
        // Split as Unicode scalars, so that a combining mark cannot hide a separator.
        var rest = Substring(text).unicodeScalars.dropFirst(scheme.unicodeScalars.count)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let pathPart: Substring.UnicodeScalarView
        let queryPart: Substring.UnicodeScalarView
        if let question = rest.firstIndex(of: "?") {
            pathPart = rest[..<question]
            queryPart = rest[rest.index(after: question)...]
        } else {
            pathPart = rest
            queryPart = rest[rest.endIndex...]
        }
        let typeText: Substring
        let rawLabel: Substring
        if let slash = pathPart.firstIndex(of: "/") {
            typeText = Substring(pathPart[..<slash])
            rawLabel = Substring(pathPart[pathPart.index(after: slash)...])
        } else {
            typeText = Substring(pathPart)
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

        // The label: issuer:account or account (split below, once the issuer parameter is known).
        guard let label = Self.percentDecoded(rawLabel) else {
            throw OTPError(.malformedURI, "the label of \(quoted) has a broken percent escape or is not UTF-8: write % and two hexadecimal digits (%20 for a space, %3A for a colon). For example: \(example)")
        }

        // The parameters.
        var values: [String: String] = [:]
        for item in queryPart.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let rawValue: Substring
            if let equals = item.firstIndex(of: "=") {
                name = Substring(item[..<equals])
                rawValue = Substring(item[item.index(after: equals)...])
            } else {
                name = Substring(item)
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

        // The label and the values kept in the clear must not carry a secret.
        let secretLetters = Self.base32Letters(secretText)
        func holdsSecret(_ text: String) -> Bool {
            Self.containsScalars(text.lowercased(), "secret=")
                || (secretLetters.count >= Self.minimumSecretLetters && Self.containsScalars(Self.base32Letters(text), secretLetters))
        }
        if holdsSecret(label) {
            throw OTPError(.misplacedSecret, "the label of \(quoted) holds a secret: the label (issuer:account) is shown in lists and logs, so the secret belongs in the secret= parameter only. For example: \(example)")
        }
        for name in ["issuer", "af_domain"] where values[name].map(holdsSecret) == true {
            throw OTPError(.misplacedSecret, "the \(name) parameter of \(quoted) holds a secret: it is shown in lists and logs, so the secret belongs in the secret= parameter only (parameters are separated by &; write %3B for a ; in a value). For example: \(example)")
        }

        guard let (labelIssuer, account) = Self.splitLabel(rawLabel, issuerParameter: values["issuer"]), !account.isEmpty else {
            throw OTPError(.missingLabel, "no account name in the label of \(quoted): after otpauth://\(isTOTP ? "totp" : "hotp")/ comes issuer:account or account. For example: \(example)")
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
            // An account with a colon gets an empty issuer prefix, so that no part of it is taken for one.
            let prefix = parameters.account.unicodeScalars.contains(":") ? ":" : ""
            uri += "\(parameters.isTimeBased ? "totp" : "hotp")/\(prefix)\(encoded(parameters.account))"
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
        percentDecoded(utf8: text.utf8)
    }

    /// Percent-decoded UTF-8 `text`; nil for a broken escape or bytes that are not UTF-8.
    static func percentDecoded(utf8 text: some Collection<UInt8>) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var iterator = text.makeIterator()
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

    /// The issuer and account of a raw (still percent-encoded) label, or nil for a broken escape.
    ///
    /// The label is split before it is decoded, so that a colon written `%3A` inside the issuer or
    /// the account stays there. It is split at the colon (`:` or `%3A`) whose prefix is the issuer
    /// parameter, else at the first `:`, else at the first `%3A` (some writers encode the separator
    /// too); each part is then decoded and trimmed. An empty issuer is nil.
    static func splitLabel(_ raw: Substring, issuerParameter: String?) -> (issuer: String?, account: String)? {
        let bytes = Array(raw.utf8)
        var colons: [(position: Int, length: Int)] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ":") {
                colons.append((index, 1))
            } else if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "3"),
                bytes[index + 2] | 0x20 == UInt8(ascii: "a")
            {
                colons.append((index, 3))
            }
            index += bytes[index] == UInt8(ascii: "%") ? 3 : 1
        }
        func parts(at colon: (position: Int, length: Int)) -> (issuer: String, account: String)? {
            guard let issuer = percentDecoded(utf8: bytes[..<colon.position]),
                let account = percentDecoded(utf8: bytes[(colon.position + colon.length)...])
            else { return nil }
            return (trimmed(issuer), trimmed(account))
        }
        let wanted = issuerParameter.map(trimmed) ?? ""
        let matching = wanted.isEmpty ? nil : colons.first { parts(at: $0)?.issuer == wanted }
        guard let colon = matching ?? colons.first(where: { $0.length == 1 }) ?? colons.first else {
            return percentDecoded(utf8: bytes).map { (nil, trimmed($0)) }
        }
        guard let (issuer, account) = parts(at: colon) else { return nil }
        return (issuer.isEmpty ? nil : issuer, account)
    }

    /// Whether `text` holds `part`, compared as Unicode scalars (a combining mark after `=` cannot
    /// hide it, as it would from a comparison of characters).
    static func containsScalars(_ text: String, _ part: String) -> Bool {
        let haystack = Array(text.unicodeScalars)
        let needle = Array(part.unicodeScalars)
        guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
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
