/// A rough look at a new master password, for a warning at the terminal (never a refusal): too
/// short, too few kinds of characters, or one of the passwords guessers try first.
enum PasswordStrength {
    /// The reasons `password` is weak; empty when none was found.
    static func weaknesses(of password: String) -> [String] {
        var reasons: [String] = []
        let length = password.count
        var classes = 0
        if password.contains(where: \.isLowercase) { classes += 1 }
        if password.contains(where: \.isUppercase) { classes += 1 }
        if password.contains(where: \.isNumber) { classes += 1 }
        if password.contains(where: { !$0.isLetter && !$0.isNumber }) { classes += 1 }
        if length < 12 {
            reasons.append("it has only \(length) characters (use 12 or more)")
        } else if length < 16 && classes < 3 {
            reasons.append("it has \(length) characters of only \(classes) \(classes == 1 ? "kind" : "kinds") (mix lower and upper case, digits and symbols, or make it longer)")
        }
        if Set(password).count <= 2 && length > 0 {
            reasons.append("it repeats one or two characters")
        }
        if isCommon(password) {
            reasons.append("it is one of the passwords guessers try first")
        }
        return reasons
    }

    /// Whether `password`, lowercased, without spaces and without trailing digits and symbols, is a common password.
    static func isCommon(_ password: String) -> Bool {
        let plain = password.lowercased().filter { $0 != " " }
        var stem = plain
        while let last = stem.last, !last.isLetter { stem.removeLast() }
        return common.contains(plain) || (!stem.isEmpty && common.contains(stem))
    }

    /// Passwords at the top of every published list of leaked passwords, and famous examples.
    private static let common: Set<String> = [
        "123456", "password", "123456789", "12345678", "12345", "qwerty", "1234567", "111111", "1234567890", "123123",
        "abc123", "1234", "password1", "iloveyou", "1q2w3e4r", "000000", "qwerty123", "zaq12wsx", "dragon", "sunshine",
        "princess", "letmein", "654321", "monkey", "27653", "1qaz2wsx", "123321", "qwertyuiop", "superman", "asdfghjkl",
        "trustno1", "football", "baseball", "welcome", "master", "shadow", "michael", "admin", "passw0rd", "starwars",
        "login", "hello", "freedom", "whatever", "qazwsx", "121212", "666666", "7777777", "secret", "changeme",
        "access", "mustang", "batman", "charlie", "jesus", "ninja", "azerty", "solo", "loveme", "hunter",
        "hunter2", "p@ssw0rd", "p@ssword", "pass", "test", "guest", "root", "toor", "default", "summer", "winter",
        "autumn", "spring", "correcthorsebatterystaple", "tr0ub4dor&3", "masterpassword", "mypassword", "iloveyou1",
    ]
}
