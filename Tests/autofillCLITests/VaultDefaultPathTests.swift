import AutofillTestSupport
import Foundation
import Testing

/// The Vault has one default path: `autofill-vault create` makes the vault in the provider's own data
/// folder, and the provider, its sandbox and the docs read it there while `VaultFile` is unset.
@Suite(.serialized)
struct VaultDefaultPathTests {
    let home: TemporaryHome
    let config: String
    static let master = "a long enough master password"

    /// The Vault enabled without any setting.
    init() throws {
        home = try TemporaryHome()
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        config = try home.config(enabled: ["org.autofill.vault"])
        try home.trust(["org.autofill.vault"], config: config)
    }

    var defaultVault: String { "\(home.path)/.local/share/autofill/providers/org.autofill.vault/vault.afvault" }

    func vault(_ arguments: [String], input: String = "") throws -> CLI.Result {
        try ChildProcess.run("\(CLI.root)/.build/debug/autofill-vault", arguments, environment: CLI.environment(home: home.path), input: input)
    }

    func autofill(_ arguments: [String], script: String? = nil) throws -> CLI.Result {
        var options = ["--config", config]
        if let script { options += ["--ui-script", try home.file("script-\(UUID().uuidString).ui", script)] }
        return try CLI.run(arguments + options, home: home.path)
    }

    @Test func aVaultCreatedWithoutVaultIsTheOneTheProviderServesWithoutASetting() throws {
        let created = try vault(["create", "--password-stdin"], input: "\(Self.master)\n")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("Created the vault \(defaultVault)"), "\(created.stdout)")
        #expect(!created.stderr.contains("warning"), "the default needs no warning: \(created.stderr)")
        let added = try vault(["add-password", "--service", "example.com", "--user", "alice", "--password-stdin"],
                              input: "\(Self.master)\nalice-pw\n")
        #expect(added.status == 0, "\(added.stderr)")
        // What it may reach names the default, and the fill reads the vault there.
        let listed = try autofill(["providers", "list"])
        #expect(listed.stdout.contains("(now \(defaultVault))"), "\(listed.stdout)")
        let fill = try autofill(["fill", "example.com", "--list", "--provider", "org.autofill.vault"], script: "secret \(Self.master)\nchoose 1\n")
        #expect(fill.status == 0 && fill.stdout == "alice-pw\n", "\(fill.stderr)")
    }

    @Test func aVaultCreatedElsewhereWarnsWhereTheProviderLooksAndHowToPointItThere() throws {
        let elsewhere = "\(home.path)/vaults/work.afvault"
        let created = try vault(["create", "--password-stdin", "--vault", elsewhere], input: "\(Self.master)\n")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stderr.contains("the Vault provider reads \(defaultVault) unless its VaultFile setting names another file"), "\(created.stderr)")
        #expect(created.stderr.contains("autofill providers set org.autofill.vault VaultFile \(elsewhere)"), "\(created.stderr)")
        #expect(!created.stderr.contains("home folder"), "\(created.stderr)")
        // Directly in the home folder: also that autofill would refuse the folder.
        let inHome = try vault(["create", "--password-stdin", "--vault", "\(home.path)/vault.afvault"], input: "\(Self.master)\n")
        #expect(inHome.status == 0, "\(inHome.stderr)")
        #expect(inHome.stderr.contains("is directly in your home folder"), "\(inHome.stderr)")
    }

    @Test func aVaultFileDirectlyInTheHomeFolderIsRefusedOnce() throws {
        let fresh = try TemporaryHome()
        _ = try fresh.sample("VaultProvider", as: "org.autofill.vault")
        let config = try fresh.config(enabled: [], settings: ["org.autofill.vault": ["VaultFile": "\(fresh.path)/vault.afvault"]])
        let enable = try CLI.run(["providers", "enable", "org.autofill.vault", "--config", config], home: fresh.path)
        #expect(enable.status == 78, "\(enable.stderr)")
        let output = enable.stdout + enable.stderr
        #expect(output.components(separatedBy: "which is your home folder").count == 2, "said once: \(output)")
    }
}
