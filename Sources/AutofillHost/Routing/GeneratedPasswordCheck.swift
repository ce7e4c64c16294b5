public import AutofillCore

/// The host's check of a generated password: a provider's answer must honour the rules the host
/// sent, whatever the provider is (a hostile or broken one included).
public enum GeneratedPasswordCheck {
    /// What is wrong with `password` as an answer to `request`, in words that never quote it; nil
    /// when it honours the request's rules (none: any characters but control characters).
    public static func problem(with password: Secret, for request: GeneratePasswordRequest) -> String? {
        let scalars = password.revealed.unicodeScalars
        if let index = scalars.firstIndex(where: { $0.properties.generalCategory == .control }) {
            return "has a control character (character \(scalars.distance(from: scalars.startIndex, to: index) + 1))"
        }
        guard let text = request.passwordRules else { return nil }
        let rules: PasswordRules
        do {
            rules = try PasswordRules.parse(text)
        } catch {
            return "answers rules the host cannot read (\(error.message))"
        }
        return rules.violation(of: password.revealed).map { "breaks the site's rules (\(rules)): \($0)" }
    }
}
