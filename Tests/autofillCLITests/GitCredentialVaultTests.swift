import AutofillTestSupport
import Foundation
import Testing

/// git's credential helper with the Vault: a `get` runs in the warm agent, where the vault was
/// unlocked ahead of time, and a locked vault without a terminal leaves git to its own prompt;
/// `store` and `erase` reach the Vault through `autofill save` and `autofill report unused-password`.
@Suite(.serialized)
struct GitCredentialVaultTests {
    let home: TemporaryHome
    let config: String
    static let master = "correct horse battery staple"

    /// The Vault sample on a private copy of the demo vault (alice and bob at example.com); the `pam`
    /// policy with a service that asks nothing.
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.vault"],
            "ProviderSettings": ["org.autofill.vault": ["VaultFile": try home.demoVault()]],
            "UserAuthentication": try home.permitPolicy(),
        ]
        config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.autofill.vault"], config: config)
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)
    }

    /// `autofill unlock org.autofill.vault` with the master password from a UI script: the agent's
    /// Vault stays unlocked.
    func unlock() throws {
        let script = try home.file("unlock.txt", "secret \(Self.master)\n")
        let result = try CLI.run(["unlock", "org.autofill.vault", "--ui-script", script, "--config", config], home: home.path)
        #expect(result.status == 0, "\(result.stderr)")
    }

    func fill(_ pairs: KeyValuePairs<String, String>) throws -> CLI.Result {
        try Git.run(["credential", "fill"], home: home.path, config: config, input: Git.description(pairs))
    }

    /// git puts its exec folder in front of PATH, which does not matter to the agent: the request is
    /// served there (in its own process the Vault would be locked).
    @Test(.enabled(if: CLI.usesAgent, "the agent keeps the unlocked Vault between commands"))
    func aGetFromGitRunsInTheAgentWhereTheVaultIsUnlocked() throws {
        try unlock()
        let result = try fill(["protocol": "https", "host": "example.com", "username": "alice"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "protocol=https\nhost=example.com\nusername=alice\npassword=alice-demo-password\n")
        #expect(!result.stderr.contains(Self.master) && !result.stderr.contains("alice-demo-password"))
    }

    @Test func aLockedVaultWithoutATerminalLeavesGitToItsOwnPrompt() throws {
        let result = try fill(["protocol": "https", "host": "example.com", "username": "alice"])
        #expect(result.status == 128)
        #expect(result.stderr.contains("terminal prompts disabled"), "\(result.stderr)")
        #expect(!result.stderr.contains("autofill"), "quiet: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test(.enabled(if: CLI.usesAgent, "the agent keeps the unlocked Vault between commands"))
    func gitCredentialApproveSavesThePasswordInTheVault() throws {
        try unlock()
        let approved = try Git.run(["credential", "approve"], home: home.path, config: config, input: Git.description([
            "protocol": "https", "host": "git.example.com", "path": "team/app.git", "username": "dave", "password": "dave-git-pw",
        ]))
        #expect(approved.status == 0 && approved.stdout.isEmpty && approved.stderr.isEmpty, "\(approved.stderr)")
        let filled = try fill(["protocol": "https", "host": "git.example.com", "username": "dave"])
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout.hasSuffix("username=dave\npassword=dave-git-pw\n"))
    }

    @Test(.enabled(if: CLI.usesAgent, "the agent keeps the unlocked Vault between commands"))
    func shortLivedTokensAreNotSaved() throws {
        try unlock()
        // As git ≥ 2.41 sends an OAuth token (older git does not pass the expiry on).
        let approved = try Git.runHelper(["store"], home: home.path, config: config, input: Git.description([
            "protocol": "https", "host": "git.example.com", "username": "erin", "password": "token",
            "password_expiry_utc": "4102444800",
        ]))
        #expect(approved.status == 0 && approved.stderr.isEmpty, "\(approved.stderr)")
        #expect(try fill(["protocol": "https", "host": "git.example.com", "username": "erin"]).stdout.isEmpty)
    }

    @Test(.enabled(if: CLI.usesAgent, "the agent keeps the unlocked Vault between commands"))
    func gitCredentialRejectReportsTheUnusedPasswordToTheVault() throws {
        try unlock()
        let credential = Git.description(["protocol": "https", "host": "example.com", "username": "alice", "password": "alice-demo-password"])
        let rejected = try Git.run(["credential", "reject"], home: home.path, config: config, input: credential)
        #expect(rejected.status == 0 && rejected.stdout.isEmpty && rejected.stderr.isEmpty, "\(rejected.stderr)")
        let verbose = try Git.runHelper(["-v", "erase"], home: home.path, config: config, input: credential)
        #expect(verbose.stdout.isEmpty)
        #expect(verbose.stderr.contains("autofill: git-credential: reported the "), "\(verbose.stderr)")
        #expect(!verbose.stderr.contains("alice-demo-password"))
    }

    /// git stores every password that worked, autofill's own too: the one `get` just gave is not
    /// saved again (a replace would ask the user after every fetch); another password for that user is.
    @Test(.enabled(if: CLI.usesAgent, "the agent remembers what it gave git"))
    func gitStoringThePasswordAutofillGaveItSavesNothing() throws {
        try unlock()
        let given = try fill(["protocol": "https", "host": "example.com", "username": "alice"])
        #expect(given.stdout.hasSuffix("password=alice-demo-password\n"), "\(given.stderr)")
        let same = try Git.runHelper(["-v", "store"], home: home.path, config: config, input: Git.description([
            "protocol": "https", "host": "example.com", "username": "alice", "password": "alice-demo-password",
        ]))
        #expect(same.stdout.isEmpty && same.stderr.contains("gives back the password autofill gave it"), "\(same.stderr)")
        #expect(!same.stderr.contains("alice-demo-password"))
        let changed = try Git.runHelper(["-v", "store"], home: home.path, config: config, input: Git.description([
            "protocol": "https", "host": "example.com", "username": "alice", "password": "alice-new-password",
        ]))
        #expect(changed.stdout.isEmpty && changed.stderr.contains("saved alice's password for https://example.com"), "\(changed.stderr)")
        #expect(!changed.stderr.contains("alice-new-password"))
        #expect(try fill(["protocol": "https", "host": "example.com", "username": "alice"]).stdout.hasSuffix("password=alice-new-password\n"))
    }
}
