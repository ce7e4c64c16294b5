/// Quoting `otpauth://` URIs in messages and logs without their secret.
extension OTPAuthURI {
    /// Parameters whose values may be quoted in messages; every other value is redacted.
    static let quotable: Set<String> = ["issuer", "algorithm", "digits", "period", "counter", "af_domain"]

    /// `text` fit to quote in a message or a log: only what is known to be harmless is kept.
    ///
    /// * Text that does not start with `otpauth:` is `<REDACTED>` as a whole (it may be a bare secret).
    /// * The query starts at the first `?`, `&` or `;` (a secret may follow a forgotten `?`), and its
    ///   items are separated by `&`, `;` and any further `?`. The value of every parameter but the
    ///   ``quotable`` ones is `<REDACTED>`; so is an item without `=`, and a name that is not a short
    ///   word (`pin=<REDACTED>`, `<REDACTED>=<REDACTED>`).
    /// * A quotable value is `<REDACTED>` too when, percent-decoded, it holds `=`, `&`, `;`, `?` or
    ///   `#` (another parameter hidden in it) or the Base32 letters of a redacted value.
    /// * The label is cut after its first `=` (or `%3D`): `otpauth://totp/secret=<REDACTED>`; it is
    ///   `<REDACTED>` as a whole when it holds the Base32 letters of a redacted value.
    /// * The fragment (from `#`) is `<REDACTED>`.
    ///
    /// Separators are matched as Unicode scalars, so a combining mark cannot hide one. Control
    /// characters become `?`, and text longer than 300 characters is shortened.
    public static func redacted(_ text: String) -> String {
        let scalars = Substring(trimmed(text)).unicodeScalars
        let scheme = "otpauth:"
        guard String(String.UnicodeScalarView(scalars.prefix(scheme.unicodeScalars.count))).lowercased() == scheme else {
            return redactedMark
        }
        var body = scalars
        var fragment = false
        if let hash = body.firstIndex(of: "#") {
            fragment = true
            body = body[..<hash]
        }
        let queryStart = body.firstIndex { querySeparators.contains($0) } ?? body.endIndex

        // The query items, split at every separator; the values redacted in them may be secrets
        // quoted elsewhere too (a label that repeats the secret).
        var items: [(separator: Unicode.Scalar, text: Substring.UnicodeScalarView)] = []
        var index = queryStart
        while index < body.endIndex {
            let separator = body[index]
            let start = body.index(after: index)
            let end = body[start...].firstIndex { querySeparators.contains($0) } ?? body.endIndex
            items.append((separator, body[start..<end]))
            index = end
        }
        var stray: [String] = []
        for item in items {
            let (name, value) = split(item.text)
            if value == nil || !quotable.contains(decodedName(name)) {
                let letters = base32Letters(decodedOrRaw(value ?? name))
                if letters.count >= minimumSecretLetters { stray.append(letters) }
            }
        }
        func holdsStray(_ raw: Substring.UnicodeScalarView) -> Bool {
            let letters = base32Letters(decodedOrRaw(raw))
            return stray.contains { containsScalars(letters, $0) }
        }

        // The head: otpauth:, slashes, the type, a slash, the label.
        var output = String.UnicodeScalarView()
        let head = body[..<queryStart]
        let afterScheme = head.index(head.startIndex, offsetBy: scheme.unicodeScalars.count)
        output += head[..<afterScheme]
        var rest = head[afterScheme...]
        let slashes = rest.prefix { $0 == "/" }
        output += slashes
        rest = rest[slashes.endIndex...]
        let typeEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        let type = rest[..<typeEnd]
        output += type.isEmpty || isWord(type) ? type : Substring(redactedMark).unicodeScalars
        if typeEnd < rest.endIndex {
            output.append("/")
            let label = rest[rest.index(after: typeEnd)...]
            if holdsStray(label) {
                output += redactedMark.unicodeScalars
            } else if let equals = endOfFirstEquals(in: label) {
                output += label[..<equals]
                output += redactedMark.unicodeScalars
            } else {
                output += label
            }
        }

        // The query.
        for item in items {
            output.append(item.separator)
            guard !item.text.isEmpty else { continue }
            let (name, value) = split(item.text)
            guard let value else {
                output += redactedMark.unicodeScalars
                continue
            }
            let decoded = decodedName(name)
            if quotable.contains(decoded), let text = percentDecoded(Substring(value)),
                !text.unicodeScalars.contains(where: { hiddenSeparators.contains($0) }), !holdsStray(value)
            {
                output += item.text
            } else {
                output += isWord(Substring(decoded).unicodeScalars) ? name : Substring(redactedMark).unicodeScalars
                output += "=\(redactedMark)".unicodeScalars
            }
        }
        if fragment { output += "#\(redactedMark)".unicodeScalars }

        var quoted = printable(String(output))
        if quoted.count > 300 { quoted = String(quoted.prefix(300)) + "…" }
        return quoted
    }

    /// What stands for a value that is not shown.
    static let redactedMark = "<REDACTED>"
    /// Where the redactor starts a new query item.
    static let querySeparators: Set<Unicode.Scalar> = ["?", "&", ";"]
    /// What a quoted value may not hold, decoded: it would separate another parameter.
    static let hiddenSeparators: Set<Unicode.Scalar> = ["=", "&", ";", "?", "#"]
    /// The shortest run of Base32 letters treated as a secret that may be repeated elsewhere.
    static let minimumSecretLetters = 8

    /// An item's name and its value (nil without `=`).
    private static func split(_ item: Substring.UnicodeScalarView) -> (Substring.UnicodeScalarView, Substring.UnicodeScalarView?) {
        guard let equals = item.firstIndex(of: "=") else { return (item, nil) }
        return (item[..<equals], item[item.index(after: equals)...])
    }

    /// A parameter name percent-decoded and lower-cased; "" when it does not decode.
    private static func decodedName(_ name: Substring.UnicodeScalarView) -> String {
        percentDecoded(Substring(name))?.lowercased() ?? ""
    }

    private static func decodedOrRaw(_ text: Substring.UnicodeScalarView) -> String {
        percentDecoded(Substring(text)) ?? String(Substring(text))
    }

    /// Whether `text` is a short word (1 to 12 ASCII letters, digits, `_` or `-`): short enough
    /// not to be a secret, and worth showing to point at a misspelt name.
    static func isWord(_ text: Substring.UnicodeScalarView) -> Bool {
        (1...12).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
    }

    /// Where the first `=` or `%3D` of a raw label ends.
    private static func endOfFirstEquals(in label: Substring.UnicodeScalarView) -> Substring.UnicodeScalarView.Index? {
        var index = label.startIndex
        while index < label.endIndex {
            if label[index] == "=" { return label.index(after: index) }
            if label[index] == "%" {
                let digits = label[label.index(after: index)...].prefix(2)
                if String(String.UnicodeScalarView(digits)).uppercased() == "3D" { return digits.endIndex }
            }
            index = label.index(after: index)
        }
        return nil
    }

    /// The Base32 letters of `text`, upper-cased, with everything else left out: how a secret
    /// is compared wherever it is written (any case, with spaces, hyphens or padding).
    static func base32Letters(_ text: String) -> String {
        String(String.UnicodeScalarView(text.uppercased().unicodeScalars.filter {
            ("A"..."Z").contains($0) || ("2"..."7").contains($0)
        }))
    }
}
