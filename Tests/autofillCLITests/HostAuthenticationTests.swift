import AutofillTestSupport
import Foundation
import Testing

/// The host's core promise, through the real CLI: every path that hands out a secret applies the
/// `UserAuthentication` policy; a provider's UI counts only for what it really established; the
/// host's own questions are answered at the controlling terminal, never from `--ui-script`.
///
/// Providers: the Vault (a copy of the demo vault, unlocked in the agent with `autofill unlock`, so
/// it answers without UI; without the agent nothing stays unlocked, so these run in the agent pass) and the C fixture (`org.t.fixture`), whose text entry point completes without
/// UI and whose `silentui` identity completes from the UI entry point without showing anything.
@Suite(.serialized, .enabled(if: CLI.usesAgent))
struct HostAuthenticationTests {
    let home: TemporaryHome
    static let master = "correct horse battery staple"
    static let policies: [String: [String: String]] = [
        "permit": ["Policy": "pam", "PAMService": "autofill-permit"],
        "deny": ["Policy": "pam", "PAMService": "autofill-deny"],
        "ask": ["Policy": "pam", "PAMService": "autofill-ask"],
        "confirm": ["Policy": "confirm"],
        "none": ["Policy": "none"],
    ]

    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        try FixturePlugin.bundle(
            in: "\(home.path)/plugins",
            plist: FixturePlugin.plist(id: "org.t.fixture", capabilities: ["ProvidesPasswords": true, "ProvidesTextToInsert": true]))
        // In a folder of its own: the Vault's sandbox may change files in its vault's folder (docs/SANDBOX.md).
        try FileManager.default.createDirectory(atPath: "\(home.path)/vault", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(CLI.root)/Config/demo/vault/vault.afvault", toPath: "\(home.path)/vault/vault.afvault")
        let pam = try home.pamFolder()
        for (name, var policy) in Self.policies {
            if policy["Policy"] == "pam" { policy["PAMConfigurationDirectory"] = pam }
            let plist: [String: Any] = [
                "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.vault", "org.t.fixture"],
                "ProviderSettings": ["org.autofill.vault": ["VaultFile": "./vault/vault.afvault"], "org.t.fixture": ["FixtureName": "fix"]],
                "UserAuthentication": policy,
            ]
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
                .write(to: URL(fileURLWithPath: "\(home.path)/\(name).plist"))
        }
        for id in ["org.autofill.vault", "org.t.fixture"] { _ = try autofill(["providers", "trust", id], policy: "none") }
        #expect(try autofill(["providers", "sync"], policy: "none").status == 0)
        let identities = try home.file("fixture.json", """
            { "identities": [{ "kind": "password", "serviceIdentifier": { "identifier": "fix.test", "type": "domain" }, "user": "silentui" },
                             { "kind": "password", "serviceIdentifier": { "identifier": "fix.test", "type": "domain" }, "user": "cancel:100" }] }
            """)
        #expect(try autofill(["identities", "save", "--provider", "org.t.fixture", "--file", identities], policy: "none").status == 0)
        // Unlocked: the vault answers without UI from now on, so only the host's policy stands between a
        // command and the secret.
        let unlocked = try autofill(["unlock", "org.autofill.vault"], policy: "none", script: "secret \(Self.master)\n")
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
    }

    var environment: [String: String] { CLI.environment(home: home.path) }

    /// `autofill ARGS --config POLICY.plist [--ui-script …]`, without a terminal.
    func autofill(_ arguments: [String], policy: String, script: String? = nil) throws -> CLI.Result {
        var extra = ["--config", "\(home.path)/\(policy).plist"]
        if let script { extra += ["--ui-script", try home.file("script-\(UUID().uuidString).txt", script)] }
        return try CLI.run(arguments + extra, home: home.path)
    }

    static func authentication(_ result: CLI.Result) -> [String: Any] {
        let object = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any]
        return object?["authentication"] as? [String: Any] ?? [:]
    }

    /// Every command that prints a secret, with the UI script its provider's list needs.
    static let secretPaths: [([String], String?)] = [
        (["fill", "example.com", "--pick", "1"], nil),
        (["fill", "example.com", "--list", "--provider", "org.autofill.vault"], "choose 1\n"),
        (["fill", "example.com", "--type", "otp", "--pick", "1"], nil),
        (["fill", "example.com", "--type", "otp", "--list", "--provider", "org.autofill.vault"], "choose 1\n"),
        (["text", "--provider", "org.autofill.vault"], "choose 1\n"),
        (["text", "--provider", "org.t.fixture"], nil),
    ]

    // MARK: 1. Every path applies the policy

    @Test(arguments: secretPaths)
    func everyPathThatHandsOutASecretIsRefusedWhenPAMRefusesTheUser(arguments: [String], script: String?) throws {
        let result = try autofill(arguments, policy: "deny", script: script)
        #expect(result.status == 22, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(arguments) printed a secret")
        #expect(result.stderr.contains("you were not authenticated"), "\(result.stderr)")
    }

    @Test(arguments: secretPaths)
    func everyPathThatHandsOutASecretFillsWhenPAMAcceptsTheUser(arguments: [String], script: String?) throws {
        let result = try autofill(arguments + ["--json"], policy: "permit", script: script)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        let authentication = Self.authentication(result)
        #expect(authentication["method"] as? String == "pam", "\(arguments): \(authentication)")
        #expect(authentication["userVerified"] as? Bool == true)
    }

    // MARK: 2. A provider's UI counts only when it really showed something

    @Test func aProviderThatCompletesItsUIEntryPointWithoutShowingAnythingGetsTheHostsAuthentication() throws {
        let denied = try autofill(["fill", "fix.test", "--user", "silentui", "--trace"], policy: "deny")
        #expect(denied.status == 22, "\(denied.stderr)")
        #expect(denied.stdout.isEmpty)
        #expect(denied.stderr.contains("provider UI → showed nothing"), "\(denied.stderr)")

        let none = try autofill(["fill", "fix.test", "--user", "silentui", "--json"], policy: "none")
        #expect(none.status == 0, "\(none.stderr)")
        let authentication = Self.authentication(none)
        #expect(authentication["method"] as? String == "none", "nothing was established: \(authentication)")
        #expect(authentication["userPresent"] as? Bool == false)
        #expect(authentication["userVerified"] as? Bool == false)
    }

    @Test func aSecretTheProvidersOwnUITookIsItsOwnVerification() throws {
        // The fixture's UI entry point asks a secret prompt (a master password, say): PAM is not asked.
        let result = try autofill(["fill", "fix.test", "--user", "cancel:100", "--json"], policy: "deny", script: "secret hunter2\n")
        #expect(result.status == 0, "\(result.stderr)")
        let authentication = Self.authentication(result)
        #expect(authentication["method"] as? String == "provider")
        #expect(authentication["userVerified"] as? Bool == true)
        #expect(authentication["userPresent"] as? Bool == false, "a UI script is not a person: \(authentication)")
    }

    @Test func choosingFromAListWithAUIScriptEstablishesNothing() throws {
        // The script chose from the vault's list: nobody was there, so `none` reports nothing.
        let result = try autofill(["fill", "example.com", "--list", "--provider", "org.autofill.vault", "--json"],
                                  policy: "none", script: "choose 1\n")
        #expect(result.status == 0, "\(result.stderr)")
        let authentication = Self.authentication(result)
        #expect(authentication["userPresent"] as? Bool == false, "\(authentication)")
        #expect(authentication["userVerified"] as? Bool == false)
    }

    // MARK: 3. The host's own questions need the terminal

    @Test(arguments: [("confirm", "confirm yes\n"), ("ask", "secret whatever\n")])
    func aUIScriptNeverAnswersTheHostsOwnQuestions(policy: String, script: String) throws {
        let result = try autofill(["fill", "example.com", "--pick", "1", "--json"], policy: policy, script: script)
        #expect(result.status == 21, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("needs you at the controlling terminal"), "\(result.stderr)")
        #expect(result.stderr.contains("policy none on purpose"))
    }

    /// The shell command that runs autofill in a tmux pane, its stdout to a file.
    func shell(_ arguments: String, policy: String, output: String) -> String {
        "\(CLI.shellEnvironment(home: home.path)) \(CLI.binary) \(arguments) --config \(home.path)/\(policy).plist > \(output); echo EXIT=$? >> \(output)"
    }

    /// Checks that a command in a tmux pane exited 0 after printing JSON whose `authentication` is `method`
    /// with these flags.
    static func expectAuthentication(printed: String, method: String, present: Bool, verified: Bool) throws {
        #expect(printed.hasSuffix("EXIT=0\n"), "\(printed)")
        let object = try JSONSerialization.jsonObject(with: Data(printed.dropLast("EXIT=0\n".count).utf8)) as? [String: Any]
        let authentication = object?["authentication"] as? [String: Any] ?? [:]
        #expect(authentication["method"] as? String == method, "\(authentication)")
        #expect(authentication["userPresent"] as? Bool == present)
        #expect(authentication["userVerified"] as? Bool == verified)
    }

    @Test func theConfirmationIsAnsweredAtTheTerminal() throws {
        let output = "\(home.path)/confirmed.txt"
        let session = try TmuxSession(shell("fill example.com --pick 1 --json --trace", policy: "confirm", output: output))
        let screen = try session.waitFor("[y/n, q cancels]:")
        #expect(screen.contains("autofill ▶ Confirm"))
        #expect(screen.contains("trace: Vault (org.autofill.vault) provideCredentialWithoutUserInteraction(for:) → completed"),
                "--trace prints each line as it happens, before the question: \(screen)")
        try session.send("y", "Enter")
        try Self.expectAuthentication(printed: try CLI.waitForFile(output, containing: "EXIT="), method: "confirm", present: true, verified: false)
    }

    @Test func choosingFromAProvidersListAtTheTerminalIsPresenceNotVerification() throws {
        let output = "\(home.path)/listed.txt"
        let session = try TmuxSession(shell("fill example.com --list --provider org.autofill.vault --json", policy: "confirm", output: output))
        try session.waitFor("(q cancels):")
        try session.send("1", "Enter")
        // Presence was established, so the host did not ask again.
        try Self.expectAuthentication(printed: try CLI.waitForFile(output, containing: "EXIT="), method: "provider", present: true, verified: false)
    }

    @Test func aPickFromTheSuggestionsAtTheTerminalIsTheConfirmation() throws {
        // alice and bob at example.com: a list. The pick was a person at the terminal: under `confirm`
        // that is the confirmation, so no second question.
        let output = "\(home.path)/picked.txt"
        let session = try TmuxSession(shell("fill example.com --json --trace", policy: "confirm", output: output))
        try session.waitFor("(q cancels):")
        try session.send("1", "Enter")
        let printed = try CLI.waitForFile(output, containing: "EXIT=")
        try Self.expectAuthentication(printed: printed, method: "confirm", present: true, verified: false)
        let screen = try session.screen()
        #expect(!screen.contains("[y/n"), "one question, not two: \(screen)")
        #expect(screen.contains("not asked: you chose it from the list at the terminal"), "\(screen)")
    }

    @Test func underPamAPickAtTheTerminalStillAuthenticates() throws {
        // The same pick under `pam` with a service that refuses everyone: a choice is no verification.
        let output = "\(home.path)/denied.txt"
        let session = try TmuxSession(shell("fill example.com --json", policy: "deny", output: output))
        try session.waitFor("(q cancels):")
        try session.send("1", "Enter")
        let printed = try CLI.waitForFile(output, containing: "EXIT=")
        #expect(!printed.contains("EXIT=0"), "\(printed)")
        #expect(!printed.contains("password"), "nothing was filled: \(printed)")
    }
}
