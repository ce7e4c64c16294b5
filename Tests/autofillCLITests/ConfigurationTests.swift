import AutofillCore
import AutofillStore
import Foundation
import Glibc
import Testing

/// The host configuration as autofill finds and trusts it: the built-in demo kept off the user's stores,
/// files other users could change refused, keys checked as capability keys are.
struct ConfigurationTests {
    let home: TemporaryHome

    init() throws {
        home = try TemporaryHome()
    }

    var userStores: IdentityStoreDirectory { IdentityStoreDirectory(path: "\(home.path)/.local/share/autofill/stores") }

    /// Writes `plist` as the configuration `name` in the home folder and returns its path.
    func write(_ plist: [String: Any], as name: String = "config.plist") throws -> String {
        let path = "\(home.path)/\(name)"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: The built-in demo

    @Test func theBuiltInDemoNeverTouchesTheUsersStores() throws {
        // The user's real Netrc store, with an identity the demo's netrc file does not have; no config.plist.
        let real = try SQLiteIdentityStore.open(providerID: "org.autofill.netrc", in: userStores)
        try real.setEnabled(true)
        try real.save([.password(.init(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: "real-user"))])
        #expect(try CLI.run(["providers", "trust", "org.autofill.netrc"], home: home.path).status == 0)

        let fill = try CLI.run(["fill", "example.com", "--user", "real-user"], home: home.path)
        let notice = "autofill: note: no configuration at \(home.path)/.config/autofill/config.plist: using the built-in demo (\(CLI.demoConfig)), with identity stores of its own in \(home.path)/.local/share/autofill/demo-stores; your stores are not touched."
        #expect(fill.stderr.hasPrefix(notice), "\(fill.stderr)")
        #expect(fill.status == 1, "the demo's stores hold no real-user: nothing to fill")
        #expect(fill.stdout.isEmpty)
        let after = try #require(try SQLiteIdentityStore.openIfExists(providerID: "org.autofill.netrc", in: userStores))
        #expect(try after.count() == 1, "the user's Netrc store is intact")
        #expect(try after.state().isEnabled)

        // The demo works on its own stores.
        let sync = try CLI.run(["providers", "sync", "org.autofill.netrc"], home: home.path)
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(home.path)/.local/share/autofill/demo-stores/org.autofill.netrc.sqlite"))
        #expect(try after.count() == 1)
    }

    @Test func aConfigurationOfTheUsersOwnSaysNothingAboutTheDemo() throws {
        let config = try write(["PluginSearchPaths": [String](), "EnabledProviders": [String]()])
        let list = try CLI.run(["providers", "list", "--config", config], home: home.path)
        #expect(list.status == 0)
        #expect(list.stderr.isEmpty)
        // It lists no folders: the default ones are searched (docs/CONFIGURATION.md).
        #expect(list.stdout.contains(
            "No providers: put .afprovider bundles in \(home.path)/.local/lib/autofill/providers, /usr/local/lib/autofill/providers, /usr/lib/autofill/providers or run `autofill providers enable PATH`."))
    }

    // MARK: Files other users could change

    @Test func aConfigurationOthersCanWriteIsRefusedNamingTheFix() throws {
        let config = try write(["PluginSearchPaths": [String](), "EnabledProviders": [String]()])
        chmod(config, 0o666)
        let list = try CLI.run(["providers", "list", "--config", config], home: home.path)
        #expect(list.status == 77)
        #expect(list.stdout.isEmpty)
        #expect(list.stderr.contains("autofill: autofill does not use the configuration \(config): users other than you could change it:\n"))
        #expect(list.stderr.contains("\(config): the configuration is writable by every user (mode 0666): users other than you could change the configuration"))
        #expect(list.stderr.contains("fix: `chmod go-w \(config)`"))
        chmod(config, 0o644)
        #expect(try CLI.run(["providers", "list", "--config", config], home: home.path).status == 0)
        // The folder holding it: anyone could put another configuration in its place.
        try FileManager.default.createDirectory(atPath: "\(home.path)/shared", withIntermediateDirectories: true)
        chmod("\(home.path)/shared", 0o777)
        let shared = try write(["EnabledProviders": [String]()], as: "shared/config.plist")
        let refused = try CLI.run(["providers", "list", "--config", shared], home: home.path)
        #expect(refused.status == 77)
        #expect(refused.stderr.contains("\(home.path)/shared: a folder above the configuration is writable by every user (mode 0777)"))
    }

    @Test(.enabled(if: getuid() == 0, "giving a file to another user needs root"))
    func aConfigurationOfAnotherUserIsRefused() throws {
        let config = try write(["EnabledProviders": [String]()])
        #expect(chown(config, 65534, 65534) == 0)  // nobody
        let list = try CLI.run(["providers", "list", "--config", config], home: home.path)
        #expect(list.status == 77)
        #expect(list.stderr.contains("\(config): the configuration belongs to the user nobody (uid 65534), not to you or root"))
    }

    @Test func anIdentityStoreFolderOthersCanWriteIsRefused() throws {
        try FileManager.default.createDirectory(atPath: "\(home.path)/open-stores", withIntermediateDirectories: true)
        chmod("\(home.path)/open-stores", 0o1777)
        let config = try write(["EnabledProviders": [String](), "IdentityStoreDirectory": "open-stores"])
        let suggest = try CLI.run(["suggest", "example.com", "--config", config], home: home.path)
        #expect(suggest.status == 77)
        #expect(suggest.stderr.contains("autofill: autofill does not use the identity stores in \(home.path)/open-stores: users other than you could change them:"))
        #expect(suggest.stderr.contains("\(home.path)/open-stores: the identity-store folder is writable by every user (mode 01777)"))
        #expect(suggest.stderr.contains("fix: use a folder only you can write (`mkdir -m 700 FOLDER`) instead"), "sticky is no excuse for a folder of one's own")
    }

    @Test func aPAMFolderOthersCanWriteIsRefusedBeforeAnythingRuns() throws {
        // The configuration names a PAM service of its own: the user's policy must allow that (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("NetrcProvider", as: "org.t.net")
        let netrc = try home.file("net.netrc", "machine example.com login alice password alice-pw\n")
        let pam = "\(home.path)/pam.d", marker = "\(home.path)/pam-exec-ran"
        try FileManager.default.createDirectory(atPath: pam, withIntermediateDirectories: true)
        try Data("auth required pam_exec.so /usr/bin/touch \(marker)\nauth required pam_permit.so\naccount required pam_permit.so\n".utf8)
            .write(to: URL(fileURLWithPath: "\(pam)/autofill-exec"))
        let config = try write([
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.t.net"], "ProviderSettings": ["org.t.net": ["NetrcFile": netrc]],
            "UserAuthentication": ["Policy": "pam", "PAMService": "autofill-exec", "PAMConfigurationDirectory": "pam.d"],
        ])
        try home.trust(["org.t.net"], config: config)
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)

        chmod(pam, 0o777)
        let fill = try CLI.run(["fill", "example.com", "--pick", "1", "--format", "json", "--config", config], home: home.path)
        #expect(fill.status == 77)
        #expect(fill.stdout.isEmpty, "nothing filled")
        #expect(fill.stderr.contains("autofill: autofill does not use the configuration \(config): its PAMConfigurationDirectory \(pam) could be changed by users other than you:"))
        #expect(fill.stderr.contains("\(pam): the PAM configuration folder is writable by every user (mode 0777)"))
        #expect(!FileManager.default.fileExists(atPath: marker), "pam_exec never ran")

        chmod(pam, 0o755)
        chmod("\(pam)/autofill-exec", 0o646)
        let file = try CLI.run(["fill", "example.com", "--pick", "1", "--config", config], home: home.path)
        #expect(file.status == 77)
        #expect(file.stderr.contains("\(pam)/autofill-exec: this file in the PAM configuration folder is writable by every user (mode 0646)"))
        #expect(!FileManager.default.fileExists(atPath: marker))

        chmod("\(pam)/autofill-exec", 0o644)
        let filled = try CLI.run(["fill", "example.com", "--pick", "1", "--format", "json", "--config", config], home: home.path)
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout.contains("\"password\" : \"alice-pw\""))
        #expect(FileManager.default.fileExists(atPath: marker), "control: the same PAM service runs once only the user can change it")
    }

    // MARK: Keys

    @Test(arguments: [
        ("EnabledProvider", "EnabledProvider is not a configuration key; did you mean EnabledProviders? As written it is ignored: spell it EnabledProviders"),
        ("pluginSearchPaths", "pluginSearchPaths is not a configuration key; did you mean PluginSearchPaths? As written it is ignored: spell it PluginSearchPaths"),
    ])
    func aNearMissOfAKnownKeyIsAnErrorNamingTheFix(key: String, message: String) throws {
        let config = try write([key: ["org.t.net"]])
        let list = try CLI.run(["providers", "list", "--config", config], home: home.path)
        #expect(list.status == 78)
        #expect(list.stdout.isEmpty)
        #expect(list.stderr == "autofill: the configuration \(config) is invalid: \(message)\n")
    }

    @Test func aNearMissInsideADictionaryIsAnErrorToo() throws {
        let config = try write(["UserAuthentication": ["Policy": "none", "Polcy": "pam"]])
        let list = try CLI.run(["providers", "list", "--config", config], home: home.path)
        #expect(list.status == 78)
        #expect(list.stderr.contains("UserAuthentication.Polcy is not a key of UserAuthentication; did you mean UserAuthentication.Policy? As written it is ignored: spell it Policy"))
    }

    @Test func aPolicyThatIsNoneOfTheThreeNamesTheValidOnes() throws {
        let config = try write(["UserAuthentication": ["Policy": "nope"]])
        let list = try CLI.run(["providers", "list", "--config", config], home: home.path)
        #expect(list.status == 78)
        #expect(list.stderr.contains("UserAuthentication.Policy: \"nope\" is not a policy; write one of pam, confirm, none"), "\(list.stderr)")
        #expect(!list.stderr.contains("Cannot initialize"), "not Swift's decoding text: \(list.stderr)")
    }

    @Test func otherUnknownKeysAreWarningsAndIgnored() throws {
        let config = try write(["EnabledProviders": [String](), "Colour": "blue", "Quarantine": ["Forever": true]])
        let list = try CLI.run(["providers", "list", "--config", config], home: home.path)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stderr.contains("autofill: warning: the configuration \(config): Colour is not a configuration key; ignored (the keys are PluginSearchPaths, EnabledProviders, "))
        #expect(list.stderr.contains("autofill: warning: the configuration \(config): Quarantine.Forever is not a key of Quarantine; ignored (the keys are FaultCount, WindowMinutes)"))
    }
}
