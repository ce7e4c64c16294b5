/// A character class of Apple's passwordrules syntax: a named class or a custom `[…]` set.
public enum PasswordCharacterClass: Hashable, Sendable, CustomStringConvertible {
    /// A–Z.
    case upper
    /// a–z.
    case lower
    /// 0–9.
    case digit
    /// Apple's special characters: ``-~!@#$%^&*_+=`|(){}[:;"'<>,.?]`` and space.
    case special
    /// Every ASCII printable character, space included.
    case asciiPrintable
    /// Any Unicode character (a generator uses ASCII printable characters for it).
    case unicode
    /// The characters between `[` and `]`, ASCII printable only.
    case custom(Set<Unicode.Scalar>)

    /// The named classes by their names in the syntax.
    public static let named: [String: PasswordCharacterClass] = [
        "upper": .upper, "lower": .lower, "digit": .digit, "special": .special,
        "ascii-printable": .asciiPrintable, "unicode": .unicode,
    ]

    static let specialCharacters = Set("-~!@#$%^&*_+=`|(){}[:;\"'<>,.?] ".unicodeScalars)
    static let printable = Set((0x20...0x7E).map { Unicode.Scalar(UInt8($0)) })

    /// Whether `scalar` belongs to the class.
    public func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch self {
        case .upper: ("A"..."Z").contains(scalar)
        case .lower: ("a"..."z").contains(scalar)
        case .digit: ("0"..."9").contains(scalar)
        case .special: Self.specialCharacters.contains(scalar)
        case .asciiPrintable: Self.printable.contains(scalar)
        case .unicode: true
        case .custom(let scalars): scalars.contains(scalar)
        }
    }

    /// The ASCII printable characters of the class, which a generator draws from (`unicode` gives
    /// the ASCII printable ones).
    public var printableScalars: Set<Unicode.Scalar> {
        Self.printable.filter { contains($0) }
    }

    public var description: String {
        switch self {
        case .upper: "upper"
        case .lower: "lower"
        case .digit: "digit"
        case .special: "special"
        case .asciiPrintable: "ascii-printable"
        case .unicode: "unicode"
        case .custom(let scalars): Self.setText(scalars)
        }
    }

    /// A `[…]` set as the syntax reads it back: `]` first (only right after `[` is it a character of
    /// the set rather than its end), then the rest in code point order.
    static func setText(_ scalars: Set<Unicode.Scalar>) -> String {
        let rest = scalars.subtracting(["]"]).sorted { $0.value < $1.value }
        return "[" + (scalars.contains("]") ? "]" : "") + String(String.UnicodeScalarView(rest)) + "]"
    }
}
