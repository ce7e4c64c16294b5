public import AutofillCore

/// Random passwords from the system's cryptographic random source (`getrandom`).
public enum PasswordGenerator {
    /// Letters, digits and punctuation that survive most sites' rules and are easy to tell apart.
    static let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789-_.!@#%+=")
    /// How many tries ``generate(honouring:)`` makes before it says the rules are too tight.
    static let attempts = 1000

    /// A password of `length` characters (8–128), each drawn uniformly from the alphabet.
    public static func generate(length: Int = 24) throws(VaultError) -> Secret {
        guard (8...128).contains(length) else {
            throw VaultError(.invalidInput, "a generated password has 8 to 128 characters, not \(length)")
        }
        var random = SystemRandomNumberGenerator()
        return Secret(String((0..<length).map { _ in alphabet.randomElement(using: &random)! }))
    }

    /// A password that honours `rules` (Apple's passwordrules), ``PasswordRules/generationLength``
    /// characters long.
    ///
    /// Each try places one character of every requirement at distinct random positions and draws
    /// the others from the permitted characters, left to right, never extending a run of identical
    /// characters past `max-consecutive`; a try that paints itself into a corner (a requirement whose
    /// only character would extend such a run) starts again. After ``attempts`` tries it gives up
    /// with an error naming the rules, so impossible rules never loop.
    public static func generate(honouring rules: PasswordRules) throws(VaultError) -> Secret {
        let length = rules.generationLength
        let alphabet = rules.generationAlphabet
        let requirements = essential(rules.required.map { classes in
            alphabet.filter { scalar in classes.contains { $0.contains(scalar) } }
        })
        var random = SystemRandomNumberGenerator()
        for _ in 0..<attempts {
            if let password = attempt(length: length, alphabet: alphabet, requirements: requirements,
                                      maximumConsecutive: rules.maximumConsecutive ?? .max, random: &random),
                rules.violation(of: password) == nil
            {
                return Secret(password)
            }
        }
        throw VaultError(.invalidInput, "no password of \(length) characters honours the rules \(rules) (\(attempts) tries)")
    }

    /// The requirements that need a character of their own: one whose characters include all of
    /// another's is met by that other's character (`required: [a]; required: [a], digit` needs one `a`).
    static func essential(_ requirements: [[Unicode.Scalar]]) -> [[Unicode.Scalar]] {
        let sets = requirements.map(Set.init)
        return requirements.indices.filter { index in
            !sets.indices.contains { other in
                other != index && sets[other].isSubset(of: sets[index]) && (sets[other] != sets[index] || other < index)
            }
        }.map { requirements[$0] }
    }

    private static func attempt(
        length: Int, alphabet: [Unicode.Scalar], requirements: [[Unicode.Scalar]], maximumConsecutive: Int,
        random: inout SystemRandomNumberGenerator
    ) -> String? {
        guard requirements.count <= length, requirements.allSatisfy({ !$0.isEmpty }) else { return nil }
        var slots = Array(0..<length)
        slots.shuffle(using: &random)
        var sourceAt = [Int: [Unicode.Scalar]]()
        for (slot, requirement) in zip(slots, requirements) { sourceAt[slot] = requirement }
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(length)
        var run = 0
        for index in 0..<length {
            var candidates = sourceAt[index] ?? alphabet
            if run >= maximumConsecutive, let last = scalars.last { candidates.removeAll { $0 == last } }
            guard let next = candidates.randomElement(using: &random) else { return nil }
            run = scalars.last == next ? run + 1 : 1
            scalars.append(next)
        }
        return String(String.UnicodeScalarView(scalars))
    }
}
