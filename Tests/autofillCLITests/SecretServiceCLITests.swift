import AutofillTestSupport
import Foundation
import Testing

/// The Secret Service provider through the real `autofill` (through the agent and without it, as the
/// suite runs), against a real GNOME Keyring on a private session bus whose address is in the
/// command's environment, as a desktop session's is.
struct SecretServiceCLITests {
    let home: TemporaryHome
    let keyring: PrivateKeyring

    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        keyring = try PrivateKeyring()
    }

    /// A configuration with the sample enabled (running as `isolation`), its files approved.
    func config(isolation: String = "helperProcess") throws -> String {
        _ = try home.sample("SecretServiceProvider", as: "org.autofill.secretservice")
        let path = "\(home.path)/config.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.secretservice"],
            "UserAuthentication": ["Policy": "none"], "ProviderIsolation": ["Providers": ["org.autofill.secretservice": isolation]],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
        try home.trust(["org.autofill.secretservice"], config: path)
        return path
    }

    func autofill(_ arguments: [String], config: String, bus: String? = nil) throws -> CLI.Result {
        try CLI.run(arguments + ["--config", config], home: home.path,
                    environment: ["DBUS_SESSION_BUS_ADDRESS": bus ?? keyring.address].filter { !$0.value.isEmpty })
    }

    /// In its sandboxed helper (the default), and loaded into autofill itself.
    @Test(arguments: ["helperProcess", "inProcess"])
    func fillFromTheKeyringOfTheSessionBus(isolation: String) throws {
        defer { keyring.stop() }
        try keyring.store(label: "git", [("xdg:schema", "org.git.Password"), ("protocol", "https"), ("server", "example.com"),
                                         ("user", "alice")], secret: "git-pw")
        try keyring.store(label: "web", [("xdg:schema", "org.epiphany.FormPassword"), ("uri", "https://web.example.org"),
                                         ("username", "bob")], secret: "web-pw")
        let config = try config(isolation: isolation)
        let synced = try autofill(["providers", "sync", "org.autofill.secretservice"], config: config)
        #expect(synced.status == 0 && synced.stdout == "org.autofill.secretservice: 2 identities\n", "\(synced.stderr)")
        let git = try autofill(["fill", "https://example.com/org/repo.git"], config: config)
        #expect(git.status == 0 && git.stdout == "git-pw\n", "\(git.stderr)")
        let web = try autofill(["fill", "web.example.org", "--format", "env"], config: config)
        #expect(web.stdout == "AUTOFILL_USER='bob'\nAUTOFILL_PASSWORD='web-pw'\nAUTOFILL_PROVIDER='org.autofill.secretservice'\n", "\(web.stderr)")
        #expect(!(git.stderr + web.stderr).contains("-pw"))
    }

    @Test func aLockedKeyringWithoutADesktopSaysHowToUnlockItAndFillsOnceItIs() throws {
        defer { keyring.stop() }
        try keyring.store(label: "git", [("xdg:schema", "org.git.Password"), ("protocol", "https"), ("server", "example.com"),
                                         ("user", "alice")], secret: "git-pw")
        let config = try config()
        #expect(try autofill(["providers", "sync", "org.autofill.secretservice"], config: config).status == 0)
        try keyring.lock()
        let locked = try autofill(["fill", "example.com"], config: config)
        #expect(locked.status != 0 && locked.stdout.isEmpty)
        #expect(locked.stderr.contains("Secret Service failed: the collection \"Login\" is locked, and GNOME Keyring cannot ask for its password here"),
                "\(locked.stderr)")
        #expect(locked.stderr.contains("gnome-keyring-daemon --replace --unlock --components=secrets"))
        try keyring.startKeyring(unlocking: true)
        let filled = try autofill(["fill", "example.com"], config: config)
        #expect(filled.status == 0 && filled.stdout == "git-pw\n", "\(filled.stderr)")
    }

    @Test func withoutASessionBusTheMessageSaysSo() throws {
        defer { keyring.stop() }
        let config = try config()
        let result = try autofill(["fill", "--list", "example.com"], config: config, bus: "")
        #expect(result.status != 0)
        #expect(result.stderr.contains("there is no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set"), "\(result.stderr)")
    }

    /// The agent keeps the provider's helper, connected to the bus of the request that launched it; a
    /// client on another bus is served by a helper launched on its bus (the bus address is part of
    /// how a helper is launched), and the first bus's client gets one on its own again.
    @Test(.enabled(if: CLI.usesAgent))
    func theAgentServesEachClientTheSecretServiceOfItsOwnBus() throws {
        defer { keyring.stop() }
        let other = try PrivateKeyring()
        defer { other.stop() }
        try keyring.store(label: "one", [("url", "https://example.com"), ("username", "alice")], secret: "first-pw")
        try other.store(label: "two", [("url", "https://example.com"), ("username", "alice")], secret: "second-pw")
        let config = try config()
        #expect(try autofill(["providers", "sync", "org.autofill.secretservice"], config: config).status == 0)
        #expect(try autofill(["fill", "example.com"], config: config).stdout == "first-pw\n")
        let elsewhere = try autofill(["fill", "example.com", "-v"], config: config, bus: other.address)
        #expect(elsewhere.stdout == "second-pw\n", "\(elsewhere.stderr)")
        #expect(!elsewhere.stderr.contains("running in this process"), "the agent served it: \(elsewhere.stderr)")
        #expect(try autofill(["fill", "example.com"], config: config).stdout == "first-pw\n")
    }
}
