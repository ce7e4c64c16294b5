import Foundation
import Testing

/// The fill session as users run it: in a real terminal (tmux), with UI scripts, and in pipelines.
@Suite(.serialized)
struct FillSessionTests {
    let home: TemporaryHome
    let config: String

    /// Two Netrc copies enabled, "Work" (alice, bob) and "Home" (carol), synced, the `confirm` policy.
    init() throws {
        home = try TemporaryHome()
        _ = try home.sample("NetrcProvider", as: "org.t.work") { $0["CFBundleDisplayName"] = "Work" }
        _ = try home.sample("NetrcProvider", as: "org.t.home") { $0["CFBundleDisplayName"] = "Home" }
        let work = try home.file("work.netrc", "machine example.com login alice password alice-pw\nmachine www.example.com login bob password bob-pw\n")
        let personal = try home.file("home.netrc", "machine example.com login carol password netrc-pw\n")
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.t.work", "org.t.home"],
            "ProviderSettings": ["org.t.work": ["NetrcFile": work], "org.t.home": ["NetrcFile": personal]],
            "UserAuthentication": ["Policy": "confirm"],
        ]
        config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.t.work", "org.t.home"], config: config)
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)
    }

    func fill(_ arguments: [String], script: String? = nil) throws -> CLI.Result {
        var extra: [String] = []
        if let script { extra = ["--ui-script", try home.file("script-\(UUID().uuidString).txt", script)] }
        return try CLI.run(["fill"] + arguments + extra + ["--config", config], home: home.path)
    }

    /// The shell command that runs autofill in the tmux pane, its stdout to a file.
    func shell(_ arguments: String, output: String) -> String {
        "env HOME=\(home.path) XDG_CONFIG_HOME=\(home.path)/.config XDG_DATA_HOME=\(home.path)/.local/share "
            + "XDG_STATE_HOME=\(home.path)/.local/state "
            + "\(CLI.binary) \(arguments) --config \(config) > \(output); echo EXIT=$? >> \(output)"
    }

    func waitForFile(_ path: String, containing text: String) throws -> String {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let contents = try? String(contentsOfFile: path, encoding: .utf8), contents.contains(text) { return contents }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TmuxTimeout(expected: text, screen: (try? String(contentsOfFile: path, encoding: .utf8)) ?? "(no output)")
    }

    @Test func anInteractiveSessionInATerminal() throws {
        let output = "\(home.path)/out.txt"
        let session = try TmuxSession(shell("fill https://www.example.com/login", output: output))
        let list = try session.waitFor("Choose 1–3 (q cancels):")
        #expect(list.contains("1. bob — password — Work (exact host: www.example.com)"))
        #expect(list.contains("3. carol — password — Home (parent domain, 1 level up: example.com)"))
        try session.send("3", "Enter")
        let confirm = try session.waitFor("[y/n, q cancels]:")
        #expect(confirm.contains("fill carol's password for example.com from Home"))
        try session.send("y", "Enter")
        #expect(try waitForFile(output, containing: "EXIT=") == "netrc-pw\nEXIT=0\n")
        #expect(!(try session.screen()).contains("netrc-pw"), "the secret goes to stdout, not the terminal")
    }

    @Test func cancellingInTheTerminalFillsNothing() throws {
        let output = "\(home.path)/out.txt"
        let session = try TmuxSession(shell("fill example.com", output: output))
        try session.waitFor("Choose 1–3 (q cancels):")
        try session.send("q", "Enter")
        #expect(try waitForFile(output, containing: "EXIT=") == "EXIT=20\n")
    }

    @Test func aScriptedSessionPrintsTheSecretOnStdoutOnly() throws {
        let result = try fill(["https://www.example.com/login"], script: "choose 2\nconfirm yes\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "alice-pw\n")
        #expect(!result.stderr.contains("alice-pw"))
    }

    @Test func outputFormatsForScripts() throws {
        let env = try fill(["example.com", "--user", "carol", "--format", "env"], script: "confirm yes\n")
        #expect(env.stdout == "AUTOFILL_USER='carol'\nAUTOFILL_PASSWORD='netrc-pw'\nAUTOFILL_PROVIDER='org.t.home'\n")
        let json = try fill(["example.com", "--pick", "1", "--json"], script: "confirm yes\n")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        #expect(object["user"] as? String == "alice")
        #expect(object["password"] as? String == "alice-pw")
        #expect((object["authentication"] as? [String: Any])?["method"] as? String == "confirm")
        #expect((object["provider"] as? [String: Any])?["displayName"] as? String == "Work")
    }

    @Test(arguments: [
        (["example.com", "--pick", "1"], "confirm no\n", Int32(22), "you were not authenticated"),
        (["example.com", "--pick", "1"], "cancel\n", 20, "Nothing was filled"),
        (["example.com", "--pick", "9"], "", 1, "--pick takes 1 to 3"),
        (["nothing-here.example"], "", 1, "No suggestions for nothing-here.example"),
        (["example.com", "--pick", "1"], "choose 1\n", 65, "answers `choose`, but autofill asked for a yes/no question"),
        (["exa mple.com"], "", 65, "autofill: "),
    ])
    func failuresHaveDistinctExitStatuses(arguments: [String], script: String, status: Int32, message: String) throws {
        let result = try fill(arguments, script: script)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message))
        #expect(result.stdout.isEmpty)
    }

    @Test func withoutATerminalOrScriptAUIRequestFailsClearly() throws {
        let result = try CLI.run(["fill", "example.com", "--pick", "1", "--config", config], home: home.path)
        #expect(result.status == 21)
        #expect(result.stderr.contains("there is no terminal: run in a terminal or pass --ui-script FILE"))
    }

    @Test func traceShowsWhoAnsweredWhatWithoutSecrets() throws {
        let result = try CLI.run(["fill", "example.com", "--user", "carol", "--trace", "--ui-script",
                                  try home.file("s.txt", "confirm yes\n"), "--config", config], home: home.path)
        #expect(result.stderr.contains("trace: Home (org.t.home) provideCredentialWithoutUserInteraction(for:) → completed with PasswordCredential(user: carol, password: <REDACTED>)"))
        #expect(result.stderr.contains("trace: Home (org.t.home) host user authentication → confirm"))
        #expect(!result.stderr.contains("netrc-pw"))
    }

    @Test func theListOpensAProvidersFullCredentialList() throws {
        let result = try fill(["example.com", "--list", "--provider", "org.t.work"], script: "choose 2\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "bob-pw\n")
    }
}
