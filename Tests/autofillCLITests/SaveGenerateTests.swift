import AutofillCore
import Foundation
import Testing

/// `autofill save`, `generate`, `report unused-password` and `passkey signal` with the Vault, as
/// users and the git credential helper run them (through the agent, and in process).
struct SaveGenerateTests {
    let home: TemporaryHome
    static let master = "correct horse battery staple"

    /// The Vault sample with a private copy of the demo vault (alice and bob at example.com), under
    /// the `none` policy (`none.plist`) and the `confirm` policy (`confirm.plist`).
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        try home.demoVault(policies: [("none", ["Policy": "none"]), ("confirm", ["Policy": "confirm"])])
        #expect(try CLI.run(["providers", "sync", "--config", "\(home.path)/none.plist"], home: home.path).status == 0)
        // The Vault publishes its logins when it is unlocked.
        let unlocked = try autofill(["unlock", "org.autofill.vault"], script: Self.unlock)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
    }

    static let unlock = "secret \(master)\n"

    /// `autofill ARGS --config POLICY.plist [--ui-script SCRIPT]` with `input` on stdin.
    func autofill(_ arguments: [String], policy: String = "none", script: String? = nil, input: String = "") throws -> CLI.Result {
        var extra = ["--config", "\(home.path)/\(policy).plist"]
        if let script { extra += ["--ui-script", try home.file("script-\(UUID().uuidString).txt", script)] }
        return try CLI.run(arguments + extra, home: home.path, input: input)
    }

    @Test func aPasswordSavedFromStdinIsWhatTheNextFillGives() throws {
        let saved = try autofill(["save", "https://example.com/login", "--user", "dave", "--trace", "--verbose"], script: Self.unlock,
                                 input: "dave-saved-secret\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stderr.contains("Saved dave's password for https://example.com/login in Vault (org.autofill.vault)."))
        #expect(saved.stdout.isEmpty)
        #expect(!saved.stderr.contains("dave-saved-secret"))
        let suggest = try autofill(["suggest", "example.com"])
        #expect(suggest.stdout.contains("dave"), "the new login is published")
        let filled = try autofill(["fill", "example.com", "--user", "dave"], script: Self.unlock)
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout == "dave-saved-secret\n")
    }

    @Test func atATerminalThePasswordIsAskedTwiceWithoutEcho() throws {
        // The agent kept the Vault that init unlocked; without it, the Vault asks for its master password.
        let unlock = CLI.usesAgent ? [] : [(prompt: "master password", keys: Self.master)]
        let saved = try home.atTerminal(["save", "example.com", "--user", "frank", "--config", "\(home.path)/none.plist"], answers: [
            ("New password for frank at example.com:", "frank-typed-secret"), ("The same password again:", "frank-typed-secret"),
        ] + unlock)
        #expect(saved.result.status == 0, "\(saved.result.stderr)")
        #expect(saved.result.stderr.contains("Saved frank's password for example.com in Vault (org.autofill.vault)."))
        #expect(!saved.screen.contains("frank-typed-secret"), "not echoed")
        #expect(try autofill(["fill", "example.com", "--user", "frank"], script: Self.unlock).stdout == "frank-typed-secret\n")
    }

    @Test func onlyTheFirstLineIsThePasswordWithoutItsLineEnding() throws {
        let saved = try autofill(["save", "example.com", "--user", "gina"], script: Self.unlock, input: "gina-secret\r\nsecond line\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try autofill(["fill", "example.com", "--user", "gina"], script: Self.unlock).stdout == "gina-secret\n")
    }

    @Test func anEmptyPasswordIsRefusedAndNothingIsSaved() throws {
        let saved = try autofill(["save", "example.com", "--user", "dave"], script: Self.unlock, input: "\n")
        #expect(saved.status == 65, "\(saved.stderr)")
        #expect(saved.stderr.contains("the password is empty; nothing was saved"))
        #expect(!(try autofill(["suggest", "example.com"])).stdout.contains("dave"))
    }

    @Test func replacingAStoredPasswordIsAuthenticatedLikeAFillAndAddingOneIsNot() throws {
        // A script running as the user, with no terminal, under the confirm policy.
        let replaced = try autofill(["save", "example.com", "--user", "alice"], policy: "confirm", script: Self.unlock, input: "attacker-chosen\n")
        #expect(replaced.status == 21, "\(replaced.stderr)")
        #expect(replaced.stderr.contains("Not saved: autofill could not ask you to confirm"))
        #expect(!replaced.stderr.contains("attacker-chosen"))
        // The vault served a confirm request: the agent lets it answer none again once it is locked
        // and unlocked anew (docs/AGENT.md, "Whose policy").
        #expect(try autofill(["lock", "org.autofill.vault"]).status == 0)
        let filled = try autofill(["fill", "example.com", "--user", "alice"], script: Self.unlock)
        #expect(filled.stdout == "alice-demo-password\n", "the stored password is unchanged")
        let added = try autofill(["save", "example.com", "--user", "erin"], policy: "confirm", script: Self.unlock, input: "erin-secret\n")
        #expect(added.status == 0, "\(added.stderr)")
    }

    @Test func aGeneratedPasswordHonoursTheRulesAndGoesToStdoutOnly() throws {
        let text = "minlength: 20; required: lower; required: upper; required: digit; required: [-_!]; max-consecutive: 2"
        let generated = try autofill(["generate", "--for", "example.com", "--rules", text])
        #expect(generated.status == 0, "\(generated.stderr)")
        let password = String(generated.stdout.dropLast())
        #expect(generated.stdout.hasSuffix("\n") && !password.contains("\n"))
        #expect(try PasswordRules.parse(text).violation(of: password) == nil)
        #expect(!generated.stderr.contains(password))
    }

    @Test(arguments: [
        ("minimum-length: 20", "unknown rule “minimum-length”"),
        ("required: digits", "“digits” is not a character class"),
        ("maxlength: 2; required: upper; required: lower; required: digit", "maxlength: 2 is shorter than the 3 required"),
    ])
    func invalidRulesAreAUsageErrorNamingTheRule(rules: String, message: String) throws {
        let generated = try autofill(["generate", "--for", "example.com", "--rules", rules])
        #expect(generated.status == 64, "\(generated.stderr)")
        #expect(generated.stderr.contains(message))
        #expect(generated.stdout.isEmpty)
    }

    @Test func anUnusedPasswordReportReachesTheVaultThatHoldsTheLogin() throws {
        let reported = try autofill(["report", "unused-password", "example.com", "--user", "bob"], script: Self.unlock)
        #expect(reported.status == 0, "\(reported.stderr)")
        #expect(reported.stderr.contains("Reported the unused password of bob at example.com to Vault."))
        let list = try autofill(["identities", "list", "--provider", "org.autofill.vault", "--json"])
        #expect(list.stdout.contains("-1"), "bob's login is ranked below the others")
        let nobody = try autofill(["report", "unused-password", "example.com", "--user", "zed"], script: Self.unlock)
        #expect(nobody.status == 1, "\(nobody.stderr)")
    }

    @Test func signalsNamingNoHeldPasskeyOrBadIdsFailClearly() throws {
        let unknown = try autofill(["passkey", "signal", "unknown-credential", "--rp", "nowhere.example", "--credential-id", "AAECAw"])
        #expect(unknown.status == 1, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("holds the unknown passkey at nowhere.example"))
        let bad = try autofill(["passkey", "signal", "accepted-credentials", "--rp", "example.com", "--user-handle", "not base64!"])
        #expect(bad.status == 64, "\(bad.stderr)")
        #expect(bad.stderr.contains("--user-handle is not base64url"))
        let badRP = try autofill(["passkey", "signal", "unknown-credential", "--rp", "not a domain", "--credential-id", "AAECAw"])
        #expect(badRP.status == 65, "\(badRP.stderr)")
        #expect(badRP.stderr.hasPrefix("autofill: "))
    }
}
