import AutofillTestSupport
import Foundation
import Testing

/// A provider whose configured file does not exist has nothing to unlock: `unlock` and `enable` fail
/// with one message and a non-zero exit, and nothing claims success. The control: the same provider
/// with a database that exists gets as far as asking its master password.
struct ProviderMissingFileTests {
    let home: TemporaryHome

    init() throws {
        home = try TemporaryHome()
        _ = try home.sample("KeePassProvider", as: "org.autofill.keepassxc")
    }

    var missing: String { "\(home.path)/keepass/missing.kdbx" }

    @Test func unlockingAKeePassDatabaseThatDoesNotExistFailsOnce() throws {
        let config = try home.config(enabled: ["org.autofill.keepassxc"], settings: ["org.autofill.keepassxc": ["DatabaseFile": missing]])
        try home.trust(["org.autofill.keepassxc"], config: config)
        let unlock = try CLI.run(["unlock", "org.autofill.keepassxc", "--config", config], home: home.path)
        #expect(unlock.status != 0, "\(unlock.stdout)")
        #expect(!unlock.stdout.contains("Unlocked"), "\(unlock.stdout)")
        let problem = "the database \(missing) does not exist"
        #expect(unlock.stderr.components(separatedBy: problem).count == 2, "said once: \(unlock.stderr)")
        #expect(unlock.stderr.contains("autofill providers set org.autofill.keepassxc DatabaseFile PATH"), "\(unlock.stderr)")
    }

    @Test func enablingAKeePassProviderWithoutItsDatabaseFailsOnceAndLeavesItDisabled() throws {
        let config = try home.config(enabled: [], settings: ["org.autofill.keepassxc": ["DatabaseFile": missing]])
        let enable = try CLI.run(["providers", "enable", "org.autofill.keepassxc", "--config", config], home: home.path)
        #expect(enable.status != 0, "\(enable.stdout)")
        #expect(!enable.stdout.contains("Enabled"), "\(enable.stdout)")
        #expect(enable.stderr.components(separatedBy: "does not exist").count == 2, "said once: \(enable.stderr)")
        let listed = try CLI.run(["providers", "list", "--json", "--config", config], home: home.path)
        #expect(!listed.stdout.contains("\"position\""), "not enabled: \(listed.stdout)")
    }

    @Test(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
    func theControlADatabaseThatExistsAsksItsMasterPassword() throws {
        try FileManager.default.createDirectory(atPath: "\(home.path)/keepass", withIntermediateDirectories: true)
        let database = "\(home.path)/keepass/passwords.kdbx"
        try KeePassXC.importXML(try home.file("import.xml", KeePassXML(entries: []).text), to: database, key: KeePassXC.Key(password: "pw"))
        let config = try home.config(enabled: ["org.autofill.keepassxc"], settings: ["org.autofill.keepassxc": ["DatabaseFile": database]])
        try home.trust(["org.autofill.keepassxc"], config: config)
        let script = try home.file("unlock.ui", "secret pw\n")
        let unlock = try CLI.run(["unlock", "org.autofill.keepassxc", "--config", config, "--ui-script", script], home: home.path)
        #expect(unlock.status == 0, "\(unlock.stderr)")
    }

    @Test func withoutAVaultUnlockAndEnableFailWithOneMessageSayingHowToMakeOne() throws {
        // The Vault without a setting: its default, in its own data folder, which nobody created yet.
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        let config = try home.config(enabled: ["org.autofill.vault"])
        try home.trust(["org.autofill.vault"], config: config)
        let unlock = try CLI.run(["unlock", "org.autofill.vault", "--config", config], home: home.path)
        #expect(unlock.status != 0, "\(unlock.stdout)")
        #expect(!unlock.stdout.contains("Unlocked"), "nothing claims success: \(unlock.stdout)")
        let problem = "the vault file \(home.path)/.local/share/autofill/providers/org.autofill.vault/vault.afvault does not exist"
        #expect(unlock.stderr.components(separatedBy: problem).count == 2, "said once: \(unlock.stderr)")
        #expect(unlock.stderr.contains("autofill-vault create"), "\(unlock.stderr)")

        let fresh = try TemporaryHome()
        _ = try fresh.sample("VaultProvider", as: "org.autofill.vault")
        let empty = try fresh.config(enabled: [])
        let enable = try CLI.run(["providers", "enable", "org.autofill.vault", "--config", empty], home: fresh.path)
        #expect(enable.status != 0, "\(enable.stdout)")
        #expect(!enable.stdout.contains("Enabled Vault"), "\(enable.stdout)")
        #expect(enable.stderr.components(separatedBy: "does not exist").count == 2, "said once: \(enable.stderr)")
    }
}
