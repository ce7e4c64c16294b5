import AutofillTestSupport
import Foundation
import Testing

/// How commands behave at a terminal (a real one, through tmux) and not: a screenful of suggestions,
/// tables that fit the width, and the nearest command or provider id on a typo.
@Suite(.serialized)
struct TerminalMannersTests {
    let home: TemporaryHome
    let config: String

    /// One Netrc provider with 30 logins for example.com, with long user names, synced.
    init() throws {
        home = try TemporaryHome()
        _ = try home.sample("NetrcProvider", as: "org.t.work") { $0["CFBundleDisplayName"] = "Work" }
        let lines = (1...30).map { "machine example.com login user-\($0)-with-a-rather-long-name@example.com password pw-\($0)" }
        let netrc = try home.file("work.netrc", lines.joined(separator: "\n") + "\n")
        config = try home.config(enabled: ["org.t.work"], settings: ["org.t.work": ["NetrcFile": netrc]])
        try home.trust(["org.t.work"], config: config)
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)
    }

    /// The shell command that runs `autofill arguments` in a pane, then says it ended.
    func shell(_ arguments: String) -> String {
        CLI.shellEnvironment(home: home.path) + " \(CLI.binary) \(arguments) --config \(config); echo EXIT=$?; sleep 30"
    }

    @Test func suggestAtATerminalShowsAScreenfulAndHowManyMore() throws {
        let session = try TmuxSession(shell("suggest example.com"), columns: 100, rows: 15)
        let screen = try session.waitFor("EXIT=0")
        #expect(screen.contains("19 more (--limit 30 shows them all)"), "\(screen)")
        #expect(screen.contains("11.  user-"))
        #expect(!screen.contains("12.  user-"), "a screenful (15 rows): the title, the header, 11 rows, the line that says how many more, the prompt")
    }

    @Test func tablesFitTheTerminalsWidth() throws {
        let session = try TmuxSession(shell("suggest example.com --limit 3"), columns: 60, rows: 20)
        let screen = try session.waitFor("EXIT=0")
        let rows = screen.split(separator: "\n").filter { $0.hasPrefix("1.") || $0.hasPrefix("#") }
        #expect(rows.count == 2, "\(screen)")
        for row in rows { #expect(row.count <= 60, "\(row)") }
        #expect(rows.contains { $0.contains("…") }, "a long cell is cut: \(screen)")
    }

    @Test func withoutATerminalTheOutputIsWhole() throws {
        let result = try CLI.run(["suggest", "example.com", "--config", config], home: home.path)
        #expect(result.status == 0)
        #expect(result.stdout.contains("30.  user-9-with-a-rather-long-name@example.com"))
        #expect(!result.stdout.contains("more (--limit") && !result.stdout.contains("…"))
    }

    @Test(arguments: [
        (["fil", "example.com"], "autofill has no command 'fil'; did you mean 'fill'?"),
        (["sugest", "example.com"], "did you mean 'suggest'?"),
        (["providers", "lsit"], "autofill providers has no command 'lsit'; did you mean 'list'?"),
        (["agent", "stauts"], "did you mean 'status'?"),
    ])
    func aMistypedCommandNamesTheNearestOne(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments, home: home.path)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test(arguments: [
        ["providers", "disable", "org.t.wrok"],
        ["providers", "sync", "org.t.wokr"],
        ["identities", "list", "--provider", "org.t.work2"],
        ["fill", "example.com", "--list", "--provider", "org.t.wor"],
        ["lock", "org.t.wrok"],
    ])
    func aMistypedProviderIdNamesTheNearestOne(arguments: [String]) throws {
        let result = try CLI.run(arguments + ["--config", config], home: home.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("did you mean org.t.work?"), "\(result.stderr)")
    }

    @Test func aMistypedVaultCommandNamesTheNearestOneWithoutRepeatingIt() throws {
        let result = try ChildProcess.run("\(CLI.root)/.build/debug/autofill-vault", ["lsit"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Unexpected argument #1\nautofill-vault has no command #1; did you mean 'list'?\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("lsit"), "an argument could be a secret given by mistake: never repeated")
    }

    @Test func aSlowImportShowsProgressAtTheTerminalAndErasesIt() throws {
        // A vault whose key derivation takes a while (scrypt N=2^17: over a second in a debug build).
        let vault = "\(home.path)/slow.afvault", stores = "\(home.path)/vault-stores"
        let vaultTool = "\(CLI.root)/.build/debug/autofill-vault"
        let created = try ChildProcess.run(vaultTool, ["create", "--password-stdin", "--scrypt-log2n", "17", "--vault", vault, "--identity-stores", stores],
                                           environment: CLI.environment(home: home.path), input: "master password\n")
        #expect(created.status == 0, "\(created.stderr)")
        let csv = try home.file("export.csv", "url,username,password\nhttps://example.com,alice,alice-pw\n")
        let password = try home.file("master.txt", "master password\n")
        let session = try TmuxSession(CLI.shellEnvironment(home: home.path)
            + " \(vaultTool) import \(csv) --password-stdin --vault \(vault) --identity-stores \(stores) < \(password); echo EXIT=$?; sleep 30")
        let during = try session.waitFor("Importing \(csv)… ", timeout: 30)
        #expect(during.contains(" s"), "the time elapsed: \(during)")
        let after = try session.waitFor("EXIT=", timeout: 60)
        #expect(after.contains("Imported 1 login"), "\(after)")
        #expect(!after.contains("Importing \(csv)…"), "the progress line is erased: \(after)")
    }

    @Test func unlockingShowsProgressAfterTheMasterPasswordAndErasesIt() throws {
        // A vault whose key derivation takes a while (scrypt N=2^17), in a folder of its own (the Vault's sandbox).
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        try FileManager.default.createDirectory(atPath: "\(home.path)/vault", withIntermediateDirectories: true)
        let vault = "\(home.path)/vault/vault.afvault"
        let created = try ChildProcess.run("\(CLI.root)/.build/debug/autofill-vault",
                                           ["create", "--password-stdin", "--scrypt-log2n", "17", "--vault", vault, "--identity-stores", "\(home.path)/unused"],
                                           environment: CLI.environment(home: home.path), input: "slow master\n")
        #expect(created.status == 0, "\(created.stderr)")
        let vaultConfig = try home.config(enabled: ["org.autofill.vault"], settings: ["org.autofill.vault": ["VaultFile": vault]])
        try home.trust(["org.autofill.vault"], config: vaultConfig)
        let session = try TmuxSession(CLI.shellEnvironment(home: home.path)
            + " \(CLI.binary) unlock org.autofill.vault --config \(vaultConfig); echo EXIT=$?; sleep 30")
        let prompt = try session.waitFor("master password", timeout: 30)
        #expect(try !session.echoes(), "the echo is off once the prompt shows: keys typed at once are not echoed")
        #expect(!prompt.contains("Unlocking Vault…"), "nothing is drawn over the prompt: \(prompt)")
        try session.send("slow master", "Enter")
        try session.waitFor("Unlocking Vault… ", timeout: 30)
        let after = try session.waitFor("EXIT=", timeout: 60)
        #expect(after.contains("EXIT=0"), "\(after)")
        #expect(!after.contains("Unlocking Vault…"), "the progress line is erased: \(after)")
    }

    @Test func syncStopsItsSpinnerWhileTheApprovalQuestionIsOnTheTerminal() throws {
        // A provider listed by hand, never approved: sync asks at the terminal before running it.
        let other = try TemporaryHome()
        _ = try other.sample("NetrcProvider", as: "org.t.home") { $0["CFBundleDisplayName"] = "Home" }
        let netrc = try other.file("home.netrc", "machine example.org login carol password carol-pw\n")
        let unapproved = try other.config(enabled: ["org.t.home"], settings: ["org.t.home": ["NetrcFile": netrc]])
        let session = try TmuxSession(CLI.shellEnvironment(home: other.path)
            + " \(CLI.binary) providers sync --config \(unapproved); echo EXIT=$?; sleep 30", columns: 120, rows: 40)
        let question = "Approve these files and run Home? [y/n, q cancels]:"
        try session.waitFor(question, timeout: 30)
        // Several of the spinner's half-second thresholds later, the question is still what the line shows.
        Thread.sleep(forTimeInterval: 2)
        let screen = try session.screen()
        #expect(screen.contains(question), "\(screen)")
        #expect(!screen.contains("Syncing providers"), "nothing is drawn over the question: \(screen)")
        try session.send("y", "Enter")
        let after = try session.waitFor("EXIT=", timeout: 60)
        #expect(after.contains("org.t.home: 1 identity") && after.contains("EXIT=0"), "\(after)")
    }

    @Test func progressNeverAppearsOutsideATerminal() throws {
        let result = try CLI.run(["providers", "sync", "--config", config], home: home.path)
        #expect(result.status == 0)
        #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}["))
    }
}
