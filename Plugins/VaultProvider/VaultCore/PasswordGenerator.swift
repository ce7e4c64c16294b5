public import AutofillCore

/// Random passwords from the system's cryptographic random source (`getrandom`) for the companion's
/// `add --generate` and `edit --generate`; a password that honours a site's rules is
/// `PasswordRules.generatePassword()` (AutofillCore).
public enum PasswordGenerator {
    /// Letters, digits and punctuation that survive most sites' rules and are easy to tell apart.
    static let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789-_.!@#%+=")

    /// A password of `length` characters (8–128), each drawn uniformly from the alphabet.
    public static func generate(length: Int = 24) throws(VaultError) -> Secret {
        guard (8...128).contains(length) else {
            throw VaultError(.invalidInput, "a generated password has 8 to 128 characters, not \(length)")
        }
        var random = SystemRandomNumberGenerator()
        return Secret(String((0..<length).map { _ in alphabet.randomElement(using: &random)! }))
    }
}
