import AutofillCore
import Testing

/// `PasswordRules.generatePassword()` (what the Vault and KeePassXC providers answer with, through the
/// SDK) against Apple's passwordrules: many generations per rule set, each checked rule by rule
/// (property style), and impossible rules ending in an error, never a loop.
struct PasswordGenerationTests {
    static let ruleSets = [
        "",
        "minlength: 20; required: lower; required: upper; required: digit; required: special",
        "maxlength: 8; allowed: digit",
        "minlength: 30; maxlength: 30; max-consecutive: 1; allowed: [ab]",
        "required: [!#]; allowed: lower; max-consecutive: 2",
        "minlength: 64; required: ascii-printable",
        "allowed: unicode; required: upper, digit; maxlength: 10",
        "maxlength: 4; required: [a]; required: [b]; required: [c]; required: [d]",
        "minlength: 12; allowed: [x]; allowed: [y]; max-consecutive: 1",
    ]

    @Test(arguments: ruleSets)
    func everyGeneratedPasswordHonoursEveryRule(_ text: String) throws {
        let rules = try PasswordRules.parse(text)
        var seen = Set<String>()
        for _ in 0..<300 {
            let password = try rules.generatePassword().revealed
            #expect(rules.violation(of: password) == nil, "\(rules): \(rules.violation(of: password) ?? "")")
            #expect(password.unicodeScalars.count == rules.generationLength)
            #expect(!password.contains(" "))
            seen.insert(password)
        }
        #expect(seen.count > 1, "the generator repeats itself for \(text)")
    }

    @Test func everyRequiredClassAppearsInShortPasswords() throws {
        let rules = try PasswordRules.parse("maxlength: 4; required: upper; required: lower; required: digit; required: [-]")
        for _ in 0..<300 {
            let password = try rules.generatePassword().revealed
            #expect(password.count == 4)
            #expect(password.contains(where: \.isUppercase) && password.contains(where: \.isLowercase))
            #expect(password.contains(where: \.isNumber) && password.contains("-"))
        }
    }

    @Test func aRequirementMetByAnotherNeedsNoCharacterOfItsOwn() throws {
        let rules = try PasswordRules.parse("maxlength: 2; allowed: [ab]; required: [a]; required: [a], digit; max-consecutive: 1")
        for _ in 0..<100 {
            #expect(rules.violation(of: try rules.generatePassword().revealed) == nil)
        }
    }

    @Test func rulesNoPasswordCanMeetEndInAnErrorAfterBoundedTries() {
        // parse refuses these; a caller that builds rules itself gets an error, never a loop.
        let impossible = PasswordRules(minimumLength: 2, maximumLength: 2, maximumConsecutive: 1, allowed: [.custom(["a"])])
        #expect {
            try impossible.generatePassword()
        } throws: { error in
            "\(error)".contains("no password of 2 characters honours the rules")
        }
    }
}
