import AutofillCore
import AutofillTestSupport
import Testing

/// Apple's passwordrules syntax: what it reads, what it refuses (with the rule named), and how a
/// password is checked against it. Hostile text never crashes or loops.
struct PasswordRulesTests {
    @Test func everyRuleKindIsRead() throws {
        let rules = try PasswordRules.parse(
            "minlength: 12; maxlength: 30; max-consecutive: 2; required: lower; required: upper, digit; allowed: [-_!], special")
        #expect(rules.minimumLength == 12)
        #expect(rules.maximumLength == 30)
        #expect(rules.maximumConsecutive == 2)
        #expect(rules.required == [[.lower], [.upper, .digit]])
        #expect(rules.allowed == [.custom(Set("-_!".unicodeScalars)), .special])
    }

    @Test func namesAreCaseInsensitiveAndSpacesAndEmptyRulesAreSkipped() throws {
        let rules = try PasswordRules.parse("  MinLength :8;;  REQUIRED: Digit ;  ")
        #expect(rules.minimumLength == 8)
        #expect(rules.required == [[.digit]])
    }

    @Test func emptyRulesAllowAnyPrintableASCIIPassword() throws {
        let rules = try PasswordRules.parse("")
        #expect(rules == PasswordRules())
        #expect(rules.violation(of: "any ~ printable 123") == nil)
        #expect(rules.violation(of: "tab\there") != nil)
    }

    @Test func repeatedLengthRulesKeepTheStricterValueAndRepeatedRequirementsCountOnce() throws {
        let rules = try PasswordRules.parse("minlength: 8; minlength: 10; maxlength: 40; maxlength: 20; required: digit; required: digit")
        #expect(rules.minimumLength == 10)
        #expect(rules.maximumLength == 20)
        #expect(rules.required == [[.digit]])
    }

    @Test func aCustomSetMayHoldTheSeparatorsAndAClosingBracketFirst() throws {
        let rules = try PasswordRules.parse("allowed: [];,:]; required: [-]")
        #expect(rules.allowed == [.custom(Set("];,:".unicodeScalars))])
        #expect(rules.required == [[.custom(["-"])]])
    }

    @Test func rulesWrittenBackReadAsTheSameRulesWhenASetHoldsAClosingBracket() throws {
        for text in ["required: []6]; allowed: [];,:-]", "required: [-], digit; minlength: 8"] {
            let rules = try PasswordRules.parse(text)
            let written = rules.description
            #expect(try PasswordRules.parse(written) == rules, "\(text) was written back as \(written)")
        }
        #expect(try PasswordRules.parse("allowed: []6]").description == "allowed: []6]")
    }

    @Test(arguments: [
        ("minlength: 10", "abc", "minlength is 10"),
        ("maxlength: 4", "abcde", "maxlength is 4"),
        ("required: digit; allowed: lower", "abcdef", "required: digit"),
        ("allowed: lower", "abcD", "character 4"),
        ("max-consecutive: 2", "abbbc", "3 identical characters in a row"),
        ("required: upper, digit; allowed: lower", "abc", "required: upper, digit"),
        ("required: digit", "12a", "character 3 is in no allowed or required class (digit)"),
        ("allowed: unicode", "ok\u{1F600}", ""),
    ])
    func aPasswordIsCheckedAgainstEachRuleKind(rules: String, password: String, problem: String) throws {
        let violation = try PasswordRules.parse(rules).violation(of: password)
        if problem.isEmpty {
            #expect(violation == nil)
        } else {
            #expect(violation?.contains(problem) == true, "\(violation ?? "nil")")
            #expect(violation?.contains(password) == false)
        }
    }

    @Test(arguments: [
        ("minimum-length: 3", "unknown rule “minimum-length”"),
        ("minlength 3", "expected “:”"),
        ("minlength: many", "minlength: expected a whole number"),
        ("minlength: -3", "minlength: expected a whole number"),
        ("minlength: 99999999999999999999", "minlength: expected a whole number"),
        ("required: digits", "“digits” is not a character class"),
        ("required: ", "is not a character class"),
        ("allowed: [abc", "has no closing “]”"),
        ("allowed: [é]", "not an ASCII printable character"),
        ("minlength: 3 4", "unexpected"),
        ("; : digit", "expected a rule name"),
        ("max-consecutive: 0", "max-consecutive: 0"),
        ("maxlength: 0", "maxlength: 0"),
        ("minlength: 30; maxlength: 20", "minlength: 30 is more than maxlength: 20"),
        ("maxlength: 2; required: upper; required: lower; required: digit", "maxlength: 2 is shorter than the 3 required"),
        ("minlength: 5000", "longer than the 4096"),
        ("allowed: [a]; max-consecutive: 3; minlength: 4", "only one character is permitted"),
    ])
    func badRulesAreRefusedNamingTheRule(rules: String, message: String) {
        #expect {
            try PasswordRules.parse(rules)
        } throws: { error in
            (error as? PasswordRulesError)?.message.contains(message) == true
        }
    }

    @Test func garbageNeverCrashesOrHangsAndAlwaysEndsWithAnAnswer() {
        var random = SplitMix64(seed: 0x5eed)
        let alphabet = Array("minlength:maxrequiredallowed-consecutive;,[] \t\u{0}\u{202E}é12345digitupperlower".unicodeScalars)
        for _ in 0..<3000 {
            let length = Int(random.next() % 80)
            let text = String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
            do {
                let rules = try PasswordRules.parse(text)
                #expect(rules.generationLength >= 1 && rules.generationLength <= PasswordRules.longestLength)
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test func rulesTooLongToReadAreRefused() {
        #expect(throws: PasswordRulesError.self) { try PasswordRules.parse(String(repeating: ";", count: PasswordRules.longestText + 1)) }
    }

    @Test func theGenerationLengthStaysWithinTheRules() throws {
        #expect(try PasswordRules.parse("").generationLength == PasswordRules.preferredLength)
        #expect(try PasswordRules.parse("minlength: 32").generationLength == 32)
        #expect(try PasswordRules.parse("maxlength: 8").generationLength == 8)
        #expect(try PasswordRules.parse("allowed: [x]; max-consecutive: 3").generationLength == 3)
    }
}
