import Foundation
import Testing

/// The fill session as users run it: in a real terminal (tmux), with UI scripts, and in pipelines.
@Suite(.serialized)
struct FillSessionTests {
    let home: TemporaryHome
    /// The `pam` policy with a service that asks nothing (pam_permit): unattended on purpose.
    let config: String
    /// The same providers with the `confirm` policy: a yes/no at the terminal.
    let confirmConfig: String

    /// Two Netrc copies enabled, "Work" (alice, bob) and "Home" (carol; and a password without a login at
    /// nouser.test), synced; two configurations.
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("NetrcProvider", as: "org.t.work") { $0["CFBundleDisplayName"] = "Work" }
        _ = try home.sample("NetrcProvider", as: "org.t.home") { $0["CFBundleDisplayName"] = "Home" }
        let work = try home.file("work.netrc", "machine example.com login alice password alice-pw\nmachine www.example.com login bob password bob-pw\n")
        let personal = try home.file("home.netrc", "machine example.com login carol password netrc-pw\nmachine nouser.test password nouser-pw\n")
        let pam = try home.pamFolder()
        var plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.t.work", "org.t.home"],
            "ProviderSettings": ["org.t.work": ["NetrcFile": work], "org.t.home": ["NetrcFile": personal]],
            "UserAuthentication": ["Policy": "pam", "PAMService": "autofill-permit", "PAMConfigurationDirectory": pam],
        ]
        config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        plist["UserAuthentication"] = ["Policy": "confirm"]
        confirmConfig = "\(home.path)/confirm.plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: confirmConfig))
        try home.trust(["org.t.work", "org.t.home"], config: config)
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)
    }

    func fill(_ arguments: [String], script: String? = nil, config: String? = nil) throws -> CLI.Result {
        var extra: [String] = []
        if let script { extra = ["--ui-script", try home.file("script-\(UUID().uuidString).txt", script)] }
        return try CLI.run(["fill"] + arguments + extra + ["--config", config ?? self.config], home: home.path)
    }

    /// The shell command that runs autofill in the tmux pane (the `confirm` policy), its stdout to a file.
    func shell(_ arguments: String, output: String) -> String {
        CLI.shellEnvironment(home: home.path)
            + " \(CLI.binary) \(arguments) --config \(confirmConfig) > \(output); echo EXIT=$? >> \(output)"
    }

    @Test func anInteractiveSessionInATerminal() throws {
        let output = "\(home.path)/out.txt"
        let session = try TmuxSession(shell("fill https://www.example.com/login", output: output))
        let list = try session.waitFor("Choose 1–3 (q cancels):")
        #expect(list.contains("1. bob — password — Work (exact host: www.example.com)"))
        #expect(list.contains("3. carol — password — Home (parent domain, 1 level up: example.com)"))
        try session.send("3", "Enter")
        // The pick was the confirmation (the `confirm` policy): no second question.
        #expect(try CLI.waitForFile(output, containing: "EXIT=") == "netrc-pw\nEXIT=0\n")
        #expect(!(try session.screen()).contains("[y/n"), "one question, not two")
        #expect(!(try session.screen()).contains("netrc-pw"), "the secret goes to stdout, not the terminal")
    }

    @Test func theConfirmationOfAnEntryWithoutAUserNamesThePassword() throws {
        let output = "\(home.path)/nouser.txt"
        let session = try TmuxSession(shell("fill nouser.test --pick 1", output: output))
        let confirm = try session.waitFor("[y/n, q cancels]:")
        #expect(confirm.contains("fill the password for nouser.test from Home"), "\(confirm)")
        #expect(!confirm.contains(" 's "), "\(confirm)")
        try session.send("y", "Enter")
        #expect(try CLI.waitForFile(output, containing: "EXIT=") == "nouser-pw\nEXIT=0\n")
    }

    @Test func cancellingInTheTerminalFillsNothing() throws {
        let output = "\(home.path)/out.txt"
        let session = try TmuxSession(shell("fill example.com", output: output))
        try session.waitFor("Choose 1–3 (q cancels):")
        try session.send("q", "Enter")
        #expect(try CLI.waitForFile(output, containing: "EXIT=") == "EXIT=20\n")
    }

    @Test func aScriptedSessionPrintsTheSecretOnStdoutOnly() throws {
        let result = try fill(["https://www.example.com/login"], script: "choose 2\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "alice-pw\n")
        #expect(!result.stderr.contains("alice-pw"))
    }

    @Test func outputFormatsForScripts() throws {
        let env = try fill(["example.com", "--user", "carol", "--format", "env"])
        #expect(env.stdout == "AUTOFILL_USER='carol'\nAUTOFILL_PASSWORD='netrc-pw'\nAUTOFILL_PROVIDER='org.t.home'\n")
        let json = try fill(["example.com", "--pick", "1", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        #expect(object["user"] as? String == "alice")
        #expect(object["password"] as? String == "alice-pw")
        #expect((object["authentication"] as? [String: Any])?["method"] as? String == "pam")
        #expect((object["provider"] as? [String: Any])?["displayName"] as? String == "Work")
    }

    @Test(arguments: [
        (["example.com"], "cancel\n", Int32(20), "Nothing was filled"),
        (["example.com", "--pick", "9"], "", 1, "--pick takes 1 to 3"),
        (["nothing-here.example"], "", 1, "No suggestions for nothing-here.example; `autofill fill --list nothing-here.example` opens a provider's full list"),
        (["example.com"], "secret x\n", 65, "answers `secret`, but autofill asked for a choice"),
        (["exa mple.com"], "", 65, "autofill: "),
    ])
    func failuresHaveDistinctExitStatuses(arguments: [String], script: String, status: Int32, message: String) throws {
        let result = try fill(arguments, script: script)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message))
        #expect(result.stdout.isEmpty)
    }

    @Test func messagesNeverRepeatAPasswordFromTheCommandLineOrAUIScript() throws {
        let typed = try fill(["https://alice:pw-in-url@nothing-here.example/login"])
        #expect(typed.status == 1, "\(typed.stderr)")
        #expect(typed.stderr.contains("No suggestions for https://nothing-here.example/login"), "\(typed.stderr)")
        #expect(!typed.stderr.contains("pw-in-url"))
        // A script line that forgot its `secret ` is the secret itself.
        let script = try fill(["example.com"], script: "hunter2-in-script\n")
        #expect(script.status == 65, "\(script.stderr)")
        #expect(script.stderr.contains("line 1 does not start with an answer word"))
        #expect(!script.stderr.contains("hunter2-in-script"))
    }

    @Test func withoutATerminalOrScriptAUIRequestFailsClearly() throws {
        let result = try CLI.run(["fill", "example.com", "--config", config], home: home.path)
        #expect(result.status == 21)
        #expect(result.stderr.contains("there is no terminal: run in a terminal or pass --ui-script FILE"))
    }

    @Test func traceShowsWhoAnsweredWhatWithoutSecrets() throws {
        let result = try CLI.run(["fill", "example.com", "--user", "carol", "--trace", "--config", config], home: home.path)
        #expect(result.stderr.contains("trace: Home (org.t.home) provideCredentialWithoutUserInteraction(for:) → completed with PasswordCredential(user: carol, password: <REDACTED>)"))
        #expect(result.stderr.contains("trace: Home (org.t.home) host user authentication → pam"))
        #expect(!result.stderr.contains("netrc-pw"))
    }

    @Test func theListOpensAProvidersFullCredentialList() throws {
        let result = try fill(["example.com", "--list", "--provider", "org.t.work"], script: "choose 2\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "bob-pw\n")
    }
}
