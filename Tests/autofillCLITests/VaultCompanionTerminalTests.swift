import Foundation
import Testing

/// autofill-vault's prompts at a real terminal (tmux): `passwd` while autofill holds the vault unlocked
/// (through the agent, or each command in its own process), and `edit --new-password`.
struct VaultCompanionTerminalTests {
    let home: TemporaryHome
    let config: String
    let vault: String
    static let master = "correct horse battery staple"
    static let newMaster = "Otters Sing In Blue 1999!"
    static var companion: String { "\(CLI.root)/.build/debug/autofill-vault" }

    /// The Vault sample enabled on a private copy of the demo vault (an scrypt vault, format version 1).
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        try FileManager.default.createDirectory(atPath: "\(home.path)/vault", withIntermediateDirectories: true)
        vault = "\(home.path)/vault/vault.afvault"
        try FileManager.default.copyItem(atPath: "\(CLI.root)/Config/demo/vault/vault.afvault", toPath: vault)
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.vault"],
            "ProviderSettings": ["org.autofill.vault": ["VaultFile": "./vault/vault.afvault"]],
            "UserAuthentication": ["Policy": "none"],
        ]
        config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.autofill.vault"], config: config)
    }

    func fill(answering script: String) throws -> CLI.Result {
        let path = try home.file("script-\(UUID().uuidString).txt", script)
        return try CLI.run(["fill", "example.com", "--list", "--provider", "org.autofill.vault", "--ui-script", path, "--config", config],
                           home: home.path)
    }

    @Test(.timeLimit(.minutes(10)))  // a guard against a hang; its waits have their own bounds
    func passwdAtATerminalAsksWithoutEchoAndTheUnlockedVaultAsksForTheNewPassword() throws {
        // autofill holds the vault unlocked (the agent's Vault process, when the suite runs through the agent).
        var filled = try fill(answering: "secret \(Self.master)\nchoose 1\n")
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout == "alice-demo-password\n")

        let output = "\(home.path)/passwd.out"
        let command = CLI.shellEnvironment(home: home.path)
            + " \(Self.companion) passwd --vault \(vault) > \(output) 2>&1; echo EXIT=$? >> \(output)"
        let pane = try TmuxSession(command)
        try pane.waitFor("Master password for \(vault):")
        try pane.send("-l", Self.master)
        try pane.send("Enter")
        try pane.waitFor("New master password for \(vault):")
        try pane.send("-l", Self.newMaster)
        try pane.send("Enter")
        try pane.waitFor("Repeat the new master password:")
        try pane.send("-l", Self.newMaster)
        try pane.send("Enter")
        let done = try CLI.waitForFile(output, containing: "EXIT=")
        #expect(done.contains("Changed the master password of \(vault): Argon2id m=64 MiB t=3 p=4 (was scrypt N=2^12 r=8 p=1)."), "\(done)")
        #expect(done.contains("EXIT=0"))
        let screen = try pane.screen()
        #expect(!screen.contains(Self.master) && !screen.contains(Self.newMaster), "nothing typed was echoed: \(screen)")

        // The vault autofill held was unlocked with the old key: it asks again, the old password no longer
        // opens it, and the new one does at the default cost (64 MiB, four threads) in the sandboxed helper.
        filled = try fill(answering: "secret \(Self.master)\nsecret \(Self.master)\nsecret \(Self.master)\n")
        #expect(filled.status == 69, "\(filled.stderr)")
        #expect(filled.stderr.contains("wrong master password (3 attempts)"))
        #expect(filled.stdout.isEmpty)
        filled = try fill(answering: "secret \(Self.newMaster)\nchoose 1\n")
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout == "alice-demo-password\n")
    }

    @Test func editAtATerminalAsksForTheNewPasswordTwiceWithoutEchoAndTheNextFillHasIt() throws {
        let output = "\(home.path)/edit.out"
        let command = CLI.shellEnvironment(home: home.path)
            + " \(Self.companion) edit example.com --user bob --new-password --vault \(vault) > \(output) 2>&1; echo EXIT=$? >> \(output)"
        let pane = try TmuxSession(command)
        try pane.waitFor("Master password for \(vault):")
        // The echo is off before the prompt shows, so keys typed the moment it shows are not echoed
        // (under load they once were, and the echo's later switch then discarded them).
        #expect(try !pane.echoes(), "the echo is off once the prompt shows")
        try pane.send("-l", Self.master)
        try pane.send("Enter")
        try pane.waitFor("New password for bob at example.com:")
        #expect(try !pane.echoes(), "the echo is off once the prompt shows")
        try pane.send("-l", "bobs-new-terminal-pw")
        try pane.send("Enter")
        try pane.waitFor("Repeat it:")
        try pane.send("-l", "bobs-new-terminal-pw")
        try pane.send("Enter")
        let done = try CLI.waitForFile(output, containing: "EXIT=")
        #expect(done.contains("Changed the password of vault-2."), "\(done)")
        #expect(done.contains("EXIT=0"))
        #expect(!(try pane.screen()).contains("bobs-new-terminal-pw"), "nothing typed was echoed")

        let filled = try fill(answering: "secret \(Self.master)\nchoose 2\n")
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout == "bobs-new-terminal-pw\n")
    }
}
