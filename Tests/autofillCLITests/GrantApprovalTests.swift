import AutofillTestSupport
import Foundation
import Testing

/// What a provider may reach through its settings is part of what the user approves (issues L and M):
/// `providers set` that widens it is a new approval, and settings that name each other in a cycle are
/// refused, naming them, instead of hanging the host.
struct GrantApprovalTests {
    let home: TemporaryHome
    let config: String
    let netrc: String

    /// The Netrc sample (org.t.net), its file `net.netrc`, enabled (approved) with it.
    init() throws {
        home = try TemporaryHome()
        _ = try home.sample("NetrcProvider", as: "org.t.net")
        netrc = try home.file("net.netrc", "machine example.com login alice password alice-pw\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: netrc)
        config = "\(home.path)/config.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": [String](),
            "ProviderSettings": ["org.t.net": ["NetrcFile": netrc]], "UserAuthentication": ["Policy": "none"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
    }

    func autofill(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(arguments + ["--config", config], home: home.path)
    }

    func enable() throws {
        let enabled = try autofill(["providers", "enable", "org.t.net"])
        #expect(enabled.status == 0, "\(enabled.stderr)")
    }

    @Test func aSettingThatReachesAnotherFileIsANewApproval() throws {
        try enable()
        let key = try home.file("id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
        let set = try autofill(["providers", "set", "org.t.net", "NetrcFile", key])
        #expect(set.status == 77, "refused without a terminal: \(set.stderr)")
        #expect(set.stderr.contains("lets Netrc (org.t.net) reach more than you approved: read \(key)"), "\(set.stderr)")
        #expect(set.stderr.contains("`autofill providers trust org.t.net`"))
        // It does not run with the wider grant until approved.
        let sync = try autofill(["providers", "sync"])
        #expect(sync.status == 77, "\(sync.stderr)")
        #expect(sync.stderr.contains("asks for more than you approved: read \(key)"), "\(sync.stderr)")
        // Control: approving it is what lets it run.
        let trusted = try autofill(["providers", "trust", "org.t.net"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(trusted.stdout.contains("read the file named by its NetrcFile setting (now \(key))"), "\(trusted.stdout)")
        #expect(trusted.stdout.contains("New since you last approved it: read \(key)."), "\(trusted.stdout)")
        #expect(trusted.stdout.hasSuffix("Its files are unchanged; trusted Netrc again, with what its settings now let it reach.\n"),
                "it records the new grant, so it does not say nothing changed: \(trusted.stdout)")
        #expect(try autofill(["providers", "sync"]).status == 0)
    }

    /// At a terminal (tmux), the question lists the new resolved paths; no puts the old value back, yes
    /// records them.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func atATerminalTheQuestionListsTheNewResolvedPaths() throws {
        try enable()
        try FileManager.default.createDirectory(atPath: "\(home.path)/keys", withIntermediateDirectories: true)
        let key = try home.file("keys/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        try FileManager.default.createSymbolicLink(atPath: "\(home.path)/innocent.netrc", withDestinationPath: key)
        let output = "\(home.path)/set.out"
        let command = CLI.shellEnvironment(home: home.path)
            + " \(CLI.binary) providers set org.t.net NetrcFile \(home.path)/innocent.netrc --config \(config) > \(output) 2>&1; echo EXIT=$? >> \(output)"
        let refusing = try TmuxSession(command)
        let question = try refusing.waitFor("Approve and let Netrc reach it?", timeout: 60)
        #expect(question.contains("Setting NetrcFile lets Netrc (org.t.net) reach more than you approved:"), "\(question)")
        #expect(question.contains("read \(key)"), "the resolved path, not the link: \(question)")
        try refusing.send("n", "Enter")
        let no = try CLI.waitForFile(output, containing: "EXIT=")
        #expect(no.contains("NetrcFile of org.t.net was not changed"), "\(no)")
        #expect(no.contains("EXIT=77"))
        #expect(try String(contentsOfFile: config, encoding: .utf8).contains(netrc), "the old value is back")
        #expect(try autofill(["providers", "sync"]).status == 0, "still runs as approved")
        try FileManager.default.removeItem(atPath: output)

        let approving = try TmuxSession(command)
        try approving.waitFor("Approve and let Netrc reach it?", timeout: 60)
        try approving.send("y", "Enter")
        let yes = try CLI.waitForFile(output, containing: "EXIT=")
        #expect(yes.contains("Set NetrcFile of org.t.net to \(home.path)/innocent.netrc."), "\(yes)")
        #expect(yes.contains("EXIT=0"))
        let sync = try autofill(["providers", "sync"])
        #expect(sync.status == 0, "approved at the terminal: \(sync.stderr)")
    }

    @Test func theSameFileThroughALinkOrASettingThatIsNoPathNeedsNoApproval() throws {
        try enable()
        let alias = "\(home.path)/alias.netrc"
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: netrc)
        let same = try autofill(["providers", "set", "org.t.net", "NetrcFile", alias])
        #expect(same.status == 0, "resolved, it is the file approved: \(same.stderr)")
        #expect(try autofill(["providers", "set", "org.t.net", "Colour", "blue"]).status == 0)
        let sync = try autofill(["providers", "sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout == "org.t.net: 1 identity\n")
    }

    @Test func removingASettingWhoseDefaultReachesAnotherFileIsANewApproval() throws {
        try enable()
        let unset = try autofill(["providers", "unset", "org.t.net", "NetrcFile"])
        #expect(unset.status == 77, "its default, ~/.netrc, was not approved: \(unset.stderr)")
        #expect(unset.stderr.contains("removed NetrcFile of org.t.net, which lets Netrc (org.t.net) reach more than you approved: read \(home.path)/.netrc"),
                "\(unset.stderr)")
        // Control: removing a setting that names no file asks nothing.
        #expect(try autofill(["providers", "set", "org.t.net", "Colour", "blue"]).status == 0)
        #expect(try autofill(["providers", "unset", "org.t.net", "Colour"]).status == 0)
    }

    @Test func aSettingOfAProviderNotYetApprovedAsksNothing() throws {
        // Not enabled: there is nothing approved to widen (enabling shows and records it).
        let key = try home.file("other.netrc", "machine example.org login bob password bob-pw\n")
        #expect(try autofill(["providers", "set", "org.t.net", "NetrcFile", key]).status == 0)
    }

    @Test func settingsThatNameThemselvesAreRefusedNamingTheCycle() throws {
        // A default naming its own setting, and a value naming itself through another setting's default.
        _ = try home.sample("NetrcProvider", as: "org.t.loop") { plist in
            plist["CFBundleDisplayName"] = "Loop"
            plist["AFProviderSandbox"] = ["Files": [["Setting": "NetrcFile", "Default": "~/x/${NetrcFile}", "Access": "read"]]]
        }
        _ = try home.sample("AuthenticatorProvider", as: "org.t.otp") { $0["CFBundleDisplayName"] = "OTP" }
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.t.loop", "org.t.otp"],
            "ProviderSettings": ["org.t.otp": ["OTPAuthFile": "\(home.path)/otp/${OTPAuthFile}"]], "UserAuthentication": ["Policy": "none"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        // Bounded, in case it loops again: `timeout` ends it after a minute (exit 124).
        func bounded(_ arguments: [String]) throws -> CLI.Result {
            try ChildProcess.run("/usr/bin/timeout", ["120", CLI.binary] + arguments + ["--config", config],
                                 environment: CLI.environment(home: home.path))
        }
        let trusted = try bounded(["providers", "trust", "org.t.loop", "org.t.otp"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(trusted.stdout.contains("name each other in a cycle (NetrcFile → NetrcFile)"), "\(trusted.stdout)")
        #expect(trusted.stdout.contains("name each other in a cycle (StateFile → OTPAuthFile → OTPAuthFile)")
                || trusted.stdout.contains("name each other in a cycle (OTPAuthFile → OTPAuthFile)"), "\(trusted.stdout)")
        let listed = try bounded(["providers", "list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let synced = try bounded(["providers", "sync"])
        #expect(synced.status != 0 && synced.status != 124, "refused, not hung: \(synced.status)")
        #expect(synced.stderr.contains("name each other in a cycle"), "\(synced.stderr)")
        // Control: the sample's own default, which names no setting, resolves.
        let usual = try bounded(["providers", "list"])
        #expect(usual.stdout.contains("Loop") && usual.stdout.contains("OTP"))
    }
}
