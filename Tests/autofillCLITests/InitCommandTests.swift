import AutofillTestSupport
import Foundation
import Testing

/// `autofill init`: the user's own configuration from the providers installed in the default folders.
struct InitCommandTests {
    let home: TemporaryHome
    var configPath: String { "\(home.path)/.config/autofill/config.plist" }

    init() throws {
        home = try TemporaryHome()
        try home.installSamples(["AuthenticatorProvider", "NetrcProvider"])
    }

    func autofill(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(arguments, home: home.path)
    }

    func written() throws -> [String: Any] {
        try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: configPath)), format: nil) as! [String: Any]
    }

    @Test func initEnablesTheNamedInstalledProvidersInTheUsersConfiguration() throws {
        let result = try autofill(["init", "--provider", "org.autofill.netrc", "--provider", "org.autofill.authenticator"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Enabled Netrc (org.autofill.netrc) as provider 1 of 1."))
        #expect(result.stdout.contains("Enabled Authenticator (org.autofill.authenticator) as provider 2 of 2."))
        #expect(result.stdout.contains("Wrote \(configPath)\n"))
        #expect(result.stdout.contains("Netrc (org.autofill.netrc) reads the settings NetrcFile: `autofill providers set org.autofill.netrc NetrcFile VALUE`"))
        let plist = try written()
        #expect(plist["EnabledProviders"] as? [String] == ["org.autofill.netrc", "org.autofill.authenticator"])
        #expect((plist["PluginSearchPaths"] as? [String] ?? []).isEmpty, "the default folders, not a copy of them")
        #expect(try FileManager.default.attributesOfItem(atPath: configPath)[.posixPermissions] as? Int == 0o600)
        // It is the configuration every command reads now: no demo, the providers approved.
        let list = try autofill(["providers", "list"])
        #expect(!list.stderr.contains("built-in demo"), "\(list.stderr)")
        #expect(list.stdout.contains("1  org.autofill.netrc"), "\(list.stdout)")
        #expect(list.stdout.contains("trusted"))
    }

    @Test func aProviderThatCannotBeEnabledYetIsLeftOutAndTheOthersAreEnabled() throws {
        // The Vault, whose vault nobody created yet, then Netrc: Netrc is enabled and the file written.
        try home.installSamples(["VaultProvider"])
        let result = try autofill(["init", "--provider", "org.autofill.vault", "--provider", "org.autofill.netrc"])
        #expect(result.status != 0, "\(result.stdout)")
        #expect(result.stderr.components(separatedBy: "does not exist").count == 2, "said once: \(result.stderr)")
        #expect(result.stderr.contains("not enabled: org.autofill.vault (above); once that is fixed: `autofill providers enable org.autofill.vault`"),
                "\(result.stderr)")
        #expect(result.stdout.contains("Enabled Netrc (org.autofill.netrc) as provider 1 of 1."), "\(result.stdout)")
        #expect(result.stdout.contains("Wrote \(configPath)\n"))
        #expect(try written()["EnabledProviders"] as? [String] == ["org.autofill.netrc"])
    }

    @Test func anExistingConfigurationIsReplacedOnlyWithForceAndKeptAsABackup() throws {
        let mine = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict><key>NoUIDeadlineSeconds</key><real>5</real></dict></plist>\n"
        try FileManager.default.createDirectory(atPath: "\(home.path)/.config/autofill", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try Data(mine.utf8).write(to: URL(fileURLWithPath: configPath))
        let refused = try autofill(["init", "--provider", "org.autofill.netrc"])
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("\(configPath) exists already, and init does not replace it"))
        #expect(refused.stdout.isEmpty)
        #expect(try String(contentsOfFile: configPath, encoding: .utf8) == mine)

        let forced = try autofill(["init", "--force", "--provider", "org.autofill.netrc"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let folder = "\(home.path)/.config/autofill"
        let backups = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("config.plist.bak-") }
        #expect(backups.count == 1)
        let backup = "\(folder)/\(backups.first ?? "")"
        #expect(try String(contentsOfFile: backup, encoding: .utf8) == mine)
        #expect(forced.stdout.hasPrefix("Kept the configuration you had as \(backup)\n"))
        #expect(try written()["EnabledProviders"] as? [String] == ["org.autofill.netrc"])
        // A second --force keeps both earlier files.
        #expect(try autofill(["init", "--force", "--yes"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("config.plist.bak-") }.count == 2)
    }

    @Test func withoutATerminalInitNeedsProvidersOrYes() throws {
        let asked = try autofill(["init"])
        #expect(asked.status == 64)
        #expect(asked.stderr.contains("there is no terminal to ask which providers to enable: name them with --provider ID (installed: org.autofill.authenticator, org.autofill.netrc)"))
        #expect(!FileManager.default.fileExists(atPath: configPath))
        let unknown = try autofill(["init", "--provider", "org.autofill.nope"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no installed provider has the id org.autofill.nope (installed: org.autofill.authenticator, org.autofill.netrc)"))
        let none = try autofill(["init", "--yes"])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(try written()["EnabledProviders"] as? [String] == [])
    }

    @Test func atATerminalInitAsksAboutEachProviderThenBeforeWriting() throws {
        let output = "\(home.path)/init-output.txt"
        let session = try TmuxSession(CLI.shellEnvironment(home: home.path) + " \(CLI.binary) init > \(output) 2>&1; echo EXIT=$? >> \(output)")
        let first = try Self.waitFor("[y/n, q cancels]:", in: session)
        #expect(first.contains("autofill ▶ Set up autofill"))
        #expect(first.contains("Enable Authenticator (org.autofill.authenticator), installed in \(home.path)/.local/lib/autofill/providers"))
        try session.send("y", "Enter")
        try Self.waitFor("Enable Netrc (org.autofill.netrc), installed in", in: session)
        try session.send("n", "Enter")
        try Self.waitFor("Write \(configPath), enabling Authenticator (org.autofill.authenticator)? [y/n", in: session)
        try session.send("y", "Enter")
        let result = try CLI.waitForFile(output, containing: "EXIT=")
        #expect(result.contains("EXIT=0"), "\(result)")
        #expect(result.contains("Enabled Authenticator (org.autofill.authenticator) as provider 1 of 1."))
        #expect(try written()["EnabledProviders"] as? [String] == ["org.autofill.authenticator"])
    }

    /// Waits until the pane shows `text`, lines joined (the 120-column pane wraps long paths); returns them.
    @discardableResult
    static func waitFor(_ text: String, in session: TmuxSession) throws -> String {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let shown = try session.screen().replacingOccurrences(of: "\n", with: "")
            if shown.contains(text) { return shown }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TmuxTimeout(expected: text, screen: try session.screen())
    }
}
