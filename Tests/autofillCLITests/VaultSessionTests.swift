import Foundation
import Testing

/// The vault, the text command and provider configuration through the CLI, as users run them.
struct VaultSessionTests {
    let home: TemporaryHome
    let config: String
    static let master = "correct horse battery staple"

    /// The Vault sample with a private copy of the demo vault, and a Netrc copy (not yet enabled).
    init() throws {
        home = try TemporaryHome()
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        _ = try home.sample("NetrcProvider", as: "org.t.netrc")
        // In a folder of its own: the Vault's sandbox may change files in its vault's folder (docs/SANDBOX.md).
        try FileManager.default.createDirectory(atPath: "\(home.path)/vault", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(CLI.root)/Config/demo/vault/vault.afvault", toPath: "\(home.path)/vault/vault.afvault")
        _ = try home.file("netrc", "machine example.com login carol password netrc-pw\n")
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.vault"],
            "ProviderSettings": ["org.autofill.vault": ["VaultFile": "./vault/vault.afvault"], "org.t.netrc": ["NetrcFile": "./netrc"]],
            "UserAuthentication": ["Policy": "confirm"],
        ]
        config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.autofill.vault"], config: config)
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)
    }

    func run(_ arguments: [String], script: String) throws -> CLI.Result {
        let path = try home.file("script-\(UUID().uuidString).txt", script)
        return try CLI.run(arguments + ["--ui-script", path, "--config", config], home: home.path)
    }

    @Test func aLockedVaultAsksItsMasterPasswordThroughTheUIEntryPoint() throws {
        let result = try run(["fill", "example.com", "--list", "--provider", "org.autofill.vault"],
                             script: "secret \(Self.master)\nchoose 1\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "alice-demo-password\n")
        #expect(!result.stderr.contains(Self.master))
    }

    @Test func threeWrongMasterPasswordsFillNothing() throws {
        let result = try run(["fill", "example.com", "--list", "--provider", "org.autofill.vault"],
                             script: "secret wrong-1\nsecret wrong-2\nsecret wrong-3\n")
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("Vault failed: wrong master password (3 attempts)"))
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.contains("wrong-1"))
    }

    @Test func textToInsertComesFromTheVault() throws {
        let result = try run(["text"], script: "secret \(Self.master)\nchoose 1\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "1 Infinite Loop, Cupertino\n")
    }

    @Test func enablingRunsTheProvidersConfigurationAndCancellingItEnablesNothing() throws {
        let cancelled = try run(["providers", "enable", "org.t.netrc"], script: "cancel\n")
        #expect(cancelled.status == 20, "\(cancelled.stderr)")
        #expect(cancelled.stderr == "autofill: Netrc was not enabled: Netrc's configuration was cancelled.\n", "one message: \(cancelled.stderr)")
        #expect(!(try CLI.run(["providers", "list", "--config", config], home: home.path)).stdout.contains("2  org.t.netrc"))
        let enabled = try run(["providers", "enable", "org.t.netrc"], script: "ack\n")
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect(enabled.stdout.contains("Enabled Netrc (org.t.netrc) as provider 2 of 2."))
        let suggest = try CLI.run(["suggest", "example.com", "--config", config], home: home.path)
        #expect(suggest.stdout.contains("carol"), "the configuration wrote Netrc's identities")
    }

    @Test func anUnknownProviderIsAUsageError() throws {
        let result = try run(["fill", "example.com", "--list", "--provider", "org.nope"], script: "")
        #expect(result.status == 64)
        #expect(result.stderr.contains("org.nope is not an enabled provider with ProvidesPasswords"))
    }
}
