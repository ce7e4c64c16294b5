import AutofillTestSupport
import Foundation
import Testing

/// The plugin folders searched when a configuration lists none (docs/CONFIGURATION.md).
struct DefaultPluginFoldersTests {
    let home: TemporaryHome
    let config: String

    init() throws {
        home = try TemporaryHome()
        config = try home.file("config.plist", "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>\n")
    }

    func listing() throws -> (result: CLI.Result, json: [String: Any]) {
        let result = try CLI.run(["providers", "list", "--json", "--config", config], home: home.path)
        return (result, try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any])
    }

    @Test func aConfigurationListingNoFoldersFindsProvidersInTheDefaultFolders() throws {
        let folder = try home.installSamples(["NetrcProvider"])
        let (result, json) = try listing()
        #expect(result.status == 0, "\(result.stderr)")
        let searched = (json["configuration"] as? [String: Any])?["searchPaths"] as? [String]
        #expect(searched == [folder, "/usr/local/lib/autofill/providers", "/usr/lib/autofill/providers"])
        let providers = json["providers"] as? [[String: Any]] ?? []
        #expect(providers.contains { $0["id"] as? String == "org.autofill.netrc" && $0["bundle"] as? String == "\(folder)/NetrcProvider.afprovider" })
        // Enabled from there, by id, and it runs.
        let enabled = try CLI.run(["providers", "enable", "org.autofill.netrc", "--config", config], home: home.path)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect(try String(contentsOfFile: config, encoding: .utf8).contains("<key>PluginSearchPaths</key>\n\t<array/>"))
    }

    @Test func aDefaultFolderOthersCouldWriteIsNotSearched() throws {
        let folder = try home.installSamples(["NetrcProvider"])
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder)
        let (result, json) = try listing()
        #expect(result.status == 0)
        #expect((json["providers"] as? [[String: Any]] ?? []).isEmpty, "\(result.stdout)")
        #expect(result.stderr.contains(
            "autofill: warning: not searching the default plugin folder \(folder), since users other than you could add plugins to it: \(folder): the default plugin folder is writable by every user (mode 0777)"))
        #expect(result.stderr.contains("fix: `chmod go-w \(folder)`"))
        let enable = try CLI.run(["providers", "enable", "org.autofill.netrc", "--config", config], home: home.path)
        #expect(enable.status == 64)
        #expect(enable.stderr.contains("no plugin with id org.autofill.netrc"))
    }

    @Test func enablingABundleFromAnotherFolderKeepsTheDefaultFoldersSearched() throws {
        let folder = try home.installSamples(["NetrcProvider"])
        let elsewhere = try home.sample("AuthenticatorProvider", as: "org.t.otp", folder: "elsewhere")
        let enabled = try CLI.run(["providers", "enable", elsewhere, "--config", config], home: home.path)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        let (_, json) = try listing()
        let searched = (json["configuration"] as? [String: Any])?["searchPaths"] as? [String]
        #expect(searched == [folder, "/usr/local/lib/autofill/providers", "/usr/lib/autofill/providers", "\(home.path)/elsewhere"])
        #expect((json["providers"] as? [[String: Any]] ?? []).contains { $0["id"] as? String == "org.autofill.netrc" })
    }

    /// A default plugin folder that is a link (a dotfile manager's, into `~/dotfiles`): its bundles are
    /// known by their real path, which their sandbox grants, so one enabled there loads in its helper
    /// and fills (before, the helper looked for the bundle through the link, which its sandbox lacks).
    @Test func aPluginFolderReachedThroughALinkLoadsInItsSandbox() throws {
        let folder = try home.installSamples(["NetrcProvider"])
        let real = "\(home.path)/dotfiles/providers"
        try FileManager.default.createDirectory(atPath: "\(home.path)/dotfiles", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.moveItem(atPath: folder, toPath: real)
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: real)
        _ = try home.file(".netrc", "machine example.com login alice password n3trc-pass\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: "\(home.path)/.netrc")
        let (result, json) = try listing()
        #expect(result.status == 0, "\(result.stderr)")
        let providers = json["providers"] as? [[String: Any]] ?? []
        #expect(providers.contains { $0["id"] as? String == "org.autofill.netrc" && $0["bundle"] as? String == "\(real)/NetrcProvider.afprovider" }, "\(result.stdout)")
        let enabled = try CLI.run(["providers", "enable", "org.autofill.netrc", "--config", config], home: home.path)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        try home.trust(["org.autofill.netrc"], config: config)
        // Unattended on purpose, in both the user's configuration and this one.
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: config)), format: nil) as! [String: Any]
        plist["UserAuthentication"] = ["Policy": "none"]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        let filled = try CLI.run(["fill", "example.com", "--user", "alice", "--config", config], home: home.path)
        #expect(filled.status == 0 && filled.stdout == "n3trc-pass\n", "\(filled.stderr)")
    }
}
