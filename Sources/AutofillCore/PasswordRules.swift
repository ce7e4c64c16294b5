/// A site's password rules in Apple's passwordrules syntax (the HTML `passwordrules` attribute and
/// Apple's password-manager-resources quirks): `minlength: 20; required: lower; required: digit;
/// allowed: upper, [-_]; max-consecutive: 2`.
///
/// Semantics, as Apple defines them: each `required:` line is one requirement that at least one
/// character of its classes appears (`required: digit, upper` is digit *or* upper); `allowed:`
/// lines add classes the password may use; without `allowed` or `required`, every ASCII printable
/// character is allowed. The characters a password may use are the allowed and the required ones.
/// `minlength`, `maxlength` and `max-consecutive` (the most identical characters in a row) given
/// twice keep the stricter value. ``parse(_:)`` refuses rules no password can satisfy.
public struct PasswordRules: Hashable, Sendable, CustomStringConvertible {
    /// The fewest characters, if given.
    public var minimumLength: Int?
    /// The most characters, if given.
    public var maximumLength: Int?
    /// The most identical characters in a row, if given.
    public var maximumConsecutive: Int?
    /// The classes of `allowed:` lines.
    public var allowed: [PasswordCharacterClass]
    /// One entry per distinct `required:` line: its classes, any one of which satisfies it.
    public var required: [[PasswordCharacterClass]]

    /// The length a generator aims for when the rules allow it.
    public static let preferredLength = 20
    /// The longest password autofill generates or accepts rules for.
    public static let longestLength = 4096

    /// Rules that say nothing: any ASCII printable password.
    public init(minimumLength: Int? = nil, maximumLength: Int? = nil, maximumConsecutive: Int? = nil,
                allowed: [PasswordCharacterClass] = [], required: [[PasswordCharacterClass]] = []) {
        self.minimumLength = minimumLength
        self.maximumLength = maximumLength
        self.maximumConsecutive = maximumConsecutive
        self.allowed = allowed
        self.required = required
    }

    /// The classes a password may use: the allowed and required ones, or ASCII printable when
    /// neither is given.
    public var permitted: [PasswordCharacterClass] {
        let classes = allowed + required.flatMap { $0 }
        return classes.isEmpty ? [.asciiPrintable] : classes
    }

    /// The length a generator should produce: ``preferredLength`` within the rules' bounds, and at
    /// least one character per requirement.
    public var generationLength: Int {
        var length = Self.preferredLength
        if let minimumLength { length = max(length, minimumLength) }
        if let maximumLength { length = min(length, maximumLength) }
        if let maximumConsecutive, generationAlphabet.count == 1 { length = min(length, maximumConsecutive) }
        return min(max(length, required.count, minimumLength ?? 1, 1), Self.longestLength)
    }

    /// What is wrong with `password` under these rules, in words that never quote it; nil when it
    /// honours every rule.
    public func violation(of password: String) -> String? {
        let scalars = Array(password.unicodeScalars)
        if let minimumLength, scalars.count < minimumLength {
            return "it has \(scalars.count) characters; minlength is \(minimumLength)"
        }
        if let maximumLength, scalars.count > maximumLength {
            return "it has \(scalars.count) characters; maxlength is \(maximumLength)"
        }
        let permitted = self.permitted
        if let outside = scalars.firstIndex(where: { scalar in !permitted.contains { $0.contains(scalar) } }) {
            return "character \(outside + 1) is in no allowed or required class (\(permitted.map(\.description).joined(separator: ", ")))"
        }
        for requirement in required where !scalars.contains(where: { scalar in requirement.contains { $0.contains(scalar) } }) {
            return "it has no character of required: \(requirement.map(\.description).joined(separator: ", "))"
        }
        if let maximumConsecutive {
            var run = 0
            for index in scalars.indices {
                run = index > 0 && scalars[index] == scalars[index - 1] ? run + 1 : 1
                if run > maximumConsecutive {
                    return "it has \(run) identical characters in a row; max-consecutive is \(maximumConsecutive)"
                }
            }
        }
        return nil
    }

    /// The rules in the syntax, one per property.
    public var description: String {
        var parts: [String] = []
        if let minimumLength { parts.append("minlength: \(minimumLength)") }
        if let maximumLength { parts.append("maxlength: \(maximumLength)") }
        if let maximumConsecutive { parts.append("max-consecutive: \(maximumConsecutive)") }
        parts += required.map { "required: " + $0.map(\.description).joined(separator: ", ") }
        if !allowed.isEmpty { parts.append("allowed: " + allowed.map(\.description).joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}

/// Rules that cannot be read, or that no password can satisfy; the message names the rule.
public struct PasswordRulesError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong and what to write instead.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
