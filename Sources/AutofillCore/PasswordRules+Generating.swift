/// Generating a password that honours the rules, from the system's cryptographic random source
/// (`getrandom`): what a provider's generate-password entry point answers with (the SDK's
/// `ExtensionContext.completeGeneratePasswordRequest(honouring:)` calls it).
extension PasswordRules {
    /// How many tries ``generatePassword()`` makes before it says the rules are too tight.
    public static let generationAttempts = 1000

    /// A password that honours these rules, ``generationLength`` characters long.
    ///
    /// Each try places one character of every requirement at distinct random positions and draws
    /// the others from the permitted characters, left to right, never extending a run of identical
    /// characters past `max-consecutive`; a try that paints itself into a corner (a requirement whose
    /// only character would extend such a run) starts again. After ``generationAttempts`` tries it
    /// gives up with an error naming the rules, so impossible rules never loop.
    public func generatePassword() throws(PasswordRulesError) -> Secret {
        let length = generationLength
        let alphabet = generationAlphabet
        let requirements = Self.essential(required.map { classes in
            alphabet.filter { scalar in classes.contains { $0.contains(scalar) } }
        })
        var random = SystemRandomNumberGenerator()
        for _ in 0..<Self.generationAttempts {
            if let password = Self.attempt(length: length, alphabet: alphabet, requirements: requirements,
                                           maximumConsecutive: maximumConsecutive ?? .max, random: &random),
                violation(of: password) == nil
            {
                return Secret(password)
            }
        }
        throw PasswordRulesError("no password of \(length) characters honours the rules \(self) (\(Self.generationAttempts) tries)")
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
