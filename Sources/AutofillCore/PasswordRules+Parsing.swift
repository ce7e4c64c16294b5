extension PasswordRules {
    /// The longest rules text ``parse(_:)`` reads.
    public static let longestText = 65536

    /// Reads rules in Apple's passwordrules syntax and checks that some password satisfies them.
    /// Names are case-insensitive; rules are separated by `;`, classes by `,`; empty text is no rules.
    /// Every error names the rule at fault and what to write instead; parsing is linear in the
    /// text's length and never loops on any input.
    public static func parse(_ text: String) throws(PasswordRulesError) -> PasswordRules {
        guard text.utf8.count <= longestText else {
            throw PasswordRulesError("the rules are \(text.utf8.count) bytes long; at most \(longestText) are read")
        }
        var scanner = RulesScanner(Array(text.unicodeScalars))
        var rules = PasswordRules()
        while true {
            scanner.skipSpaces()
            if scanner.atEnd { break }
            if scanner.take(";") { continue }
            let name = scanner.word()
            guard !name.isEmpty else {
                throw PasswordRulesError("expected a rule name at character \(scanner.position + 1), found \(scanner.quotedRest); \(ruleNames)")
            }
            scanner.skipSpaces()
            guard scanner.take(":") else {
                throw PasswordRulesError("rule \(quoted(name)): expected “:” after the name (write \(name.lowercased()): VALUE)")
            }
            scanner.skipSpaces()
            switch name.lowercased() {
            case "minlength":
                let value = try scanner.number(rule: "minlength")
                rules.minimumLength = max(rules.minimumLength ?? 0, value)
            case "maxlength":
                let value = try scanner.number(rule: "maxlength")
                rules.maximumLength = min(rules.maximumLength ?? .max, value)
            case "max-consecutive":
                let value = try scanner.number(rule: "max-consecutive")
                rules.maximumConsecutive = min(rules.maximumConsecutive ?? .max, value)
            case "allowed":
                rules.allowed += try scanner.classes(rule: "allowed")
            case "required":
                let requirement = try scanner.classes(rule: "required")
                if !rules.required.contains(requirement) { rules.required.append(requirement) }
            default:
                throw PasswordRulesError("unknown rule \(quoted(name)); \(ruleNames)")
            }
            scanner.skipSpaces()
            guard scanner.atEnd || scanner.take(";") else {
                throw PasswordRulesError("rule \(name.lowercased()): unexpected \(scanner.quotedRest) after its value; end each rule with “;”")
            }
        }
        try rules.checkSatisfiable()
        return rules
    }

    static let ruleNames = "the rules are minlength, maxlength, required, allowed and max-consecutive (e.g. `minlength: 12; required: digit`)"

    static func quoted(_ text: String) -> String {
        "“" + DisplayText.line(text, limit: 40) + "”"
    }

    /// The characters a generator draws from: the permitted classes' ASCII printable characters,
    /// without the space (which sign-in forms and shells trim) unless nothing else is permitted.
    public var generationAlphabet: [Unicode.Scalar] {
        let all = permitted.reduce(into: Set<Unicode.Scalar>()) { $0.formUnion($1.printableScalars) }
        let withoutSpace = all.subtracting([" "])
        return (withoutSpace.isEmpty ? all : withoutSpace).sorted { $0.value < $1.value }
    }

    /// Refuses rules that no password can satisfy, naming the rules in conflict.
    func checkSatisfiable() throws(PasswordRulesError) {
        if maximumConsecutive == 0 {
            throw PasswordRulesError("max-consecutive: 0 allows no character at all; write 1 or more")
        }
        if maximumLength == 0 {
            throw PasswordRulesError("maxlength: 0 allows no password at all; write 1 or more")
        }
        if let minimumLength, minimumLength > Self.longestLength {
            throw PasswordRulesError("minlength: \(minimumLength) is longer than the \(Self.longestLength) characters autofill generates")
        }
        if let minimumLength, let maximumLength, minimumLength > maximumLength {
            throw PasswordRulesError("minlength: \(minimumLength) is more than maxlength: \(maximumLength); no password fits both")
        }
        if let maximumLength, required.count > maximumLength {
            throw PasswordRulesError("""
                maxlength: \(maximumLength) is shorter than the \(required.count) required: rules, which each need a character
                """)
        }
        let shortest = max(minimumLength ?? 1, required.count, 1)
        if generationAlphabet.count == 1, let maximumConsecutive, maximumConsecutive < shortest {
            throw PasswordRulesError("""
                only one character is permitted and max-consecutive is \(maximumConsecutive), but the password needs at least \
                \(shortest) characters; allow more characters or raise max-consecutive
                """)
        }
    }
}

/// Reads the rules text one Unicode scalar at a time; every method consumes at least what it reads,
/// so the parser always ends.
struct RulesScanner {
    private let scalars: [Unicode.Scalar]
    private(set) var position = 0

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    var atEnd: Bool { position >= scalars.count }

    /// The rest of the text from here, quoted and cut for a message; "the end" at the end.
    var quotedRest: String {
        atEnd ? "the end" : PasswordRules.quoted(String(String.UnicodeScalarView(scalars[position...].prefix(20))))
    }

    mutating func skipSpaces() {
        while !atEnd, scalars[position].properties.isWhitespace { position += 1 }
    }

    mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard !atEnd, scalars[position] == scalar else { return false }
        position += 1
        return true
    }

    /// Letters, digits and `-`.
    mutating func word() -> String {
        let start = position
        while !atEnd, scalars[position].isASCII,
            scalars[position] == "-" || scalars[position].properties.isAlphabetic || ("0"..."9").contains(scalars[position])
        {
            position += 1
        }
        return String(String.UnicodeScalarView(scalars[start..<position]))
    }

    /// A whole number from 0 to 999,999,999.
    mutating func number(rule: String) throws(PasswordRulesError) -> Int {
        let start = position
        while !atEnd, ("0"..."9").contains(scalars[position]) { position += 1 }
        let digits = String(String.UnicodeScalarView(scalars[start..<position]))
        guard !digits.isEmpty, digits.count <= 9, let value = Int(digits) else {
            let found = digits.isEmpty ? quotedRest : PasswordRules.quoted(digits)
            throw PasswordRulesError("\(rule): expected a whole number from 0 to 999999999, found \(found)")
        }
        return value
    }

    /// Classes separated by `,`: names, or `[…]` sets (a `]` right after `[` is one of the set's characters).
    mutating func classes(rule: String) throws(PasswordRulesError) -> [PasswordCharacterClass] {
        var classes: [PasswordCharacterClass] = []
        repeat {
            skipSpaces()
            if take("[") {
                classes.append(try customSet(rule: rule))
            } else {
                let name = word()
                guard let named = PasswordCharacterClass.named[name.lowercased()] else {
                    let found = name.isEmpty ? quotedRest : PasswordRules.quoted(name)
                    throw PasswordRulesError("""
                        \(rule): \(found) is not a character class; the classes are upper, lower, digit, special, \
                        ascii-printable, unicode, or the characters themselves in [ ], as in [-_.]
                        """)
                }
                classes.append(named)
            }
            skipSpaces()
        } while take(",")
        return classes
    }

    private mutating func customSet(rule: String) throws(PasswordRulesError) -> PasswordCharacterClass {
        let start = position
        var set = Set<Unicode.Scalar>()
        while !atEnd {
            let scalar = scalars[position]
            if scalar == "]" && position > start { break }
            guard PasswordCharacterClass.printable.contains(scalar) else {
                throw PasswordRulesError("""
                    \(rule): character \(position + 1) of the rules, in [ ], is not an ASCII printable character; \
                    a [ ] set lists ASCII printable characters only (use the class unicode for any character)
                    """)
            }
            set.insert(scalar)
            position += 1
        }
        guard take("]") else {
            throw PasswordRulesError("\(rule): the set opened with “[” at character \(start) has no closing “]”")
        }
        return .custom(set)
    }
}
