import AutofillTestSupport
import Foundation
import Testing

/// `autofill save`, `generate` and git's `store` with two writable providers, the Vault first and a
/// fixture (the C test provider with the save, generate and report entry points) second: the
/// provider holding the login gets it, else the first writable one in the user's order.
struct SaveRoutingCLITests {
    let home: TemporaryHome
    let config: String
    static let master = "correct horse battery staple"

    init() throws {
        home = try TemporaryHome()
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        try FixturePlugin.bundle(in: "\(home.path)/plugins", name: "Saver", plist: FixturePlugin.plist(id: "org.t.saver", name: "Saver", capabilities: [
            "ProvidesPasswords": true, "SupportsSavePasswordCredentials": true, "SupportsGeneratePasswordCredentials": true,
            "SupportsCredentialUpdate": true,
        ]), defines: ["FIXTURE_IOS26"])
        config = "\(home.path)/config.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.vault", "org.t.saver"],
            "ProviderSettings": ["org.autofill.vault": ["VaultFile": try home.demoVault()], "org.t.saver": ["FixtureName": "saver"]],
            "UserAuthentication": ["Policy": "none"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.autofill.vault", "org.t.saver"], config: config)
        // The fixture's store holds carol's login at example.com (the Vault holds alice's and bob's).
        let identities = try home.file("saver.json", """
            {"identities": [{"kind": "password", "serviceIdentifier": {"identifier": "example.com", "type": "domain"}, "user": "carol"}]}
            """)
        let saved = try autofill(["identities", "save", "--provider", "org.t.saver", "--file", identities])
        #expect(saved.status == 0, "\(saved.stderr)")
        let unlocked = try autofill(["unlock", "org.autofill.vault", "--ui-script", try home.file("unlock.txt", "secret \(Self.master)\n")])
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
    }

    func autofill(_ arguments: [String], input: String = "") throws -> CLI.Result {
        try CLI.run(arguments + ["--config", config], home: home.path, input: input)
    }

    /// `autofill save`, with the master password in a UI script: a command in its own process
    /// (AUTOFILL_AGENT=off) meets a locked Vault; through the agent it is unlocked already.
    func save(_ arguments: [String], input: String) throws -> CLI.Result {
        try autofill(["save"] + arguments + ["--ui-script", "\(home.path)/unlock.txt"], input: input)
    }

    @Test func aSaveGoesToTheProviderHoldingTheLoginElseTheFirstWritableOne() throws {
        let held = try save(["example.com", "--user", "carol"], input: "carol-new\n")
        #expect(held.status == 0, "\(held.stderr)")
        #expect(held.stderr.contains("Saved carol's password for example.com in Saver (org.t.saver)."), "\(held.stderr)")
        let new = try save(["example.com", "--user", "dave"], input: "dave-new\n")
        #expect(new.stderr.contains("Saved dave's password for example.com in Vault (org.autofill.vault)."), "\(new.stderr)")
        let vaults = try save(["example.com", "--user", "alice"], input: "alice-new\n")
        #expect(vaults.stderr.contains("in Vault (org.autofill.vault)."), "\(vaults.stderr)")
        for result in [held, new, vaults] { #expect(!result.stderr.contains("-new")) }
    }

    @Test func gitsStoreGoesToTheProviderHoldingTheLogin() throws {
        let stored = try Git.runHelper(["-v", "store"], home: home.path, config: config, input: Git.description([
            "protocol": "https", "host": "example.com", "username": "carol", "password": "carol-from-git",
        ]))
        #expect(stored.stderr.contains("saved carol's password for https://example.com in Saver"), "\(stored.stderr)")
        #expect(!stored.stderr.contains("carol-from-git"))
    }

    @Test func aGeneratedPasswordForAUserComesFromTheProviderHoldingTheirLogin() throws {
        let carol = try autofill(["generate", "--for", "example.com", "--user", "carol"])
        #expect(carol.status == 0, "\(carol.stderr)")
        #expect(carol.stdout == "Fixture-generated-1\n", "the fixture's fixed answer")
        let anyone = try autofill(["generate", "--for", "example.com"])
        #expect(anyone.status == 0 && anyone.stdout != "Fixture-generated-1\n", "the Vault, first in the user's order: \(anyone.stderr)")
    }
}
