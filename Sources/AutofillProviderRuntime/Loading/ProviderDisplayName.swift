internal import AutofillCore

/// The rules for the name users see for a provider (`CFBundleDisplayName`): it heads every prompt
/// the provider shows (`[Vault] Master password:`), every suggestion and every message, so it must
/// name exactly one provider and never the host itself.
///
/// - It is plain text on one line: no control characters, escape sequences or bidi controls
///   (``DisplayText``), and at most ``maximumLength`` characters.
/// - It does not look like `autofill`, the name the host's own prompts carry.
/// - Two enabled providers may not look alike (``ProviderCatalog`` refuses enabling the second).
///
/// "Look alike" compares ``skeleton(_:)``s: the names folded to lower-case Latin letters and digits,
/// as a user skimming a prompt would read them.
package enum ProviderDisplayName {
    /// The longest display name accepted, in characters.
    static let maximumLength = 64
    /// The name the host's own prompts and messages carry.
    static let hostName = "autofill"

    /// What is wrong with `name` as a display name, or nil when nothing is.
    static func problem(_ name: String) -> String? {
        if DisplayText.needsEscaping(name, keepingNewlines: false) {
            return "\"\(DisplayText.line(name, limit: maximumLength))\" holds control characters, escape sequences or bidi controls"
        }
        if name.count > maximumLength {
            return "\"\(DisplayText.line(name, limit: maximumLength))\" is \(name.count) characters long, over the limit of \(maximumLength)"
        }
        let skeleton = skeleton(name)
        if skeleton.isEmpty { return "\"\(name)\" has no letters or digits" }
        if skeleton == Self.skeleton(hostName) {
            return "\"\(name)\" reads as \"\(hostName)\", the name of the host's own prompts"
        }
        return nil
    }

    /// `name` as it reads at a glance: letters and digits only (spaces, punctuation, symbols, marks
    /// and invisible characters dropped), accents removed, look-alike letters of other scripts and
    /// fullwidth or mathematical forms mapped to Latin, lower-cased, and the classic confusions
    /// folded (`0`→`o`, `1`/`i`/`I`→`l`, `rn`→`m`, `vv`→`w`). "Vault", "VAULT", "V a u l t",
    /// "Vau1t", "Vаult" (Cyrillic а) and "Ｖａｕｌｔ" have one skeleton.
    package static func skeleton(_ name: String) -> String {
        var letters = ""
        for scalar in name.unicodeScalars {
            let properties = scalar.properties
            guard properties.isAlphabetic || properties.numericType == .decimal else { continue }
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: continue
            default: break
            }
            letters += latin(scalar).lowercased()
        }
        var folded = ""
        for character in letters {
            switch character {
            case "0": folded += "o"
            case "1", "i": folded += "l"
            default: folded.append(character)
            }
        }
        return folded.replacingAll("rn", with: "m").replacingAll("vv", with: "w")
    }

    /// The Latin letter or ASCII digit `scalar` looks like, or the scalar itself.
    private static func latin(_ scalar: Unicode.Scalar) -> String {
        if scalar.isASCII { return String(scalar) }
        if let mapped = lookalikes[scalar] { return String(mapped) }
        if let digit = scalar.properties.numericValue, scalar.properties.numericType == .decimal, (0...9).contains(digit) {
            return String(Int(digit))
        }
        // "LATIN SMALL LETTER U WITH ACUTE", "FULLWIDTH LATIN CAPITAL LETTER V",
        // "MATHEMATICAL BOLD SMALL A", "CIRCLED LATIN SMALL LETTER B": the letter named.
        guard let name = scalar.properties.name,
            name.hasPrefix("LATIN ") || name.contains(" LATIN ") || name.hasPrefix("MATHEMATICAL ")
        else { return String(scalar) }
        let words = name.split(separator: " ")
        guard let caseWord = words.firstIndex(where: { $0 == "SMALL" || $0 == "CAPITAL" }) else { return String(scalar) }
        var letter = words.index(after: caseWord)
        if letter < words.endIndex, words[letter] == "LETTER" { letter = words.index(after: letter) }
        guard letter < words.endIndex, words[letter].count == 1, let first = words[letter].first, first.isLetter,
            words.index(after: letter) == words.endIndex || words[words.index(after: letter)] == "WITH"
        else { return String(scalar) }
        return String(first)
    }

    /// Cyrillic and Greek letters that look like Latin ones.
    private static let lookalikes: [Unicode.Scalar: Character] = [
        // Cyrillic
        "\u{0430}": "a", "\u{0410}": "a", "\u{0432}": "b", "\u{0412}": "b", "\u{0441}": "c", "\u{0421}": "c",
        "\u{0501}": "d", "\u{0435}": "e", "\u{0415}": "e", "\u{0451}": "e", "\u{0401}": "e", "\u{04BB}": "h",
        "\u{041D}": "h", "\u{043D}": "h", "\u{0456}": "i", "\u{0406}": "i", "\u{0458}": "j", "\u{0408}": "j",
        "\u{043A}": "k", "\u{041A}": "k", "\u{04CF}": "l", "\u{041C}": "m", "\u{043C}": "m", "\u{043F}": "n",
        "\u{043E}": "o", "\u{041E}": "o", "\u{0440}": "p", "\u{0420}": "p", "\u{051B}": "q", "\u{0455}": "s",
        "\u{0405}": "s", "\u{0442}": "t", "\u{0422}": "t", "\u{0443}": "y", "\u{0423}": "y", "\u{04AF}": "y",
        "\u{0445}": "x", "\u{0425}": "x", "\u{051D}": "w", "\u{0461}": "w", "\u{044C}": "b", "\u{0475}": "v",
        // Greek
        "\u{03B1}": "a", "\u{0391}": "a", "\u{0392}": "b", "\u{03B2}": "b", "\u{0395}": "e", "\u{03B5}": "e",
        "\u{0396}": "z", "\u{0397}": "h", "\u{03B7}": "n", "\u{0399}": "i", "\u{03B9}": "i", "\u{039A}": "k",
        "\u{03BA}": "k", "\u{039C}": "m", "\u{039D}": "n", "\u{03BD}": "v", "\u{039F}": "o", "\u{03BF}": "o",
        "\u{03A1}": "p", "\u{03C1}": "p", "\u{03A4}": "t", "\u{03C4}": "t", "\u{03A5}": "y", "\u{03C5}": "u",
        "\u{03A7}": "x", "\u{03C7}": "x", "\u{03C9}": "w",
        // Latin letters without a "WITH" in their names
        "\u{0131}": "i", "\u{0237}": "j", "\u{0261}": "g", "\u{026A}": "i", "\u{0280}": "r", "\u{028F}": "y",
        "\u{1D00}": "a", "\u{1D04}": "c", "\u{1D05}": "d", "\u{1D07}": "e", "\u{1D0A}": "j", "\u{1D0B}": "k",
        "\u{1D0D}": "m", "\u{1D0F}": "o", "\u{1D18}": "p", "\u{1D1B}": "t", "\u{1D1C}": "u", "\u{1D20}": "v",
        "\u{1D21}": "w", "\u{1D22}": "z", "\u{0138}": "k", "\u{00DF}": "b", "\u{00F8}": "o", "\u{00D8}": "o",
        "\u{0111}": "d", "\u{0110}": "d", "\u{0127}": "h", "\u{0142}": "l", "\u{0141}": "l",
    ]
}

extension String {
    /// The string with every occurrence of `pattern` replaced by `replacement`, left to right.
    fileprivate func replacingAll(_ pattern: String, with replacement: String) -> String {
        guard !pattern.isEmpty, contains(pattern) else { return self }
        var result = "", rest = Substring(self)
        while let range = rest.firstRange(of: pattern) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
