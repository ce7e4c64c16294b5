import AutofillHost
import AutofillStore
import Foundation
import Glibc
import Testing

/// Trust, permissions and quarantine as users meet them: `providers enable|trust|list`, `fill`, `plugin validate`.
struct TrustCommandTests {
    let home: TemporaryHome
    let bundle: String
    let config: String

    /// A copy of the Netrc sample ("Net", org.t.net) in `plugins/`, not enabled yet, with alice's password.
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        bundle = try home.sample("NetrcProvider", as: "org.t.net") { $0["CFBundleDisplayName"] = "Net" }
        let netrc = try home.file("net.netrc", "machine example.com login alice password alice-pw\n")
        config = "\(home.path)/config.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": [String](),
            "ProviderSettings": ["org.t.net": ["NetrcFile": netrc]], "UserAuthentication": ["Policy": "none"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
    }

    var library: String { "\(bundle)/libNetrcProvider.so" }
    var stores: String { "\(home.path)/.local/share/autofill/stores" }
    /// The user's trust and fault records: `$XDG_STATE_HOME/autofill` (here, HOME/.local/state/autofill).
    var records: String { "\(home.path)/.local/state/autofill" }

    /// With `loads`, the dynamic loader's trace of every process (autofill's and its provider
    /// helpers') is appended to the result's stderr.
    func autofill(_ arguments: [String], loads: Bool = false) throws -> CLI.Result {
        guard loads else { return try CLI.run(arguments + ["--config", config], home: home.path) }
        let (result, trace) = try CLI.runTracingLoads(arguments + ["--config", config], home: home.path)
        return CLI.Result(status: result.status, stdout: result.stdout, stderr: result.stderr + trace)
    }

    /// Whether the loader's trace shows the plugin's library opened, in any process.
    /// The host loads a plugin's library through the descriptor it hashed (`/proc/self/fd/N`), so the
    /// trace names that rather than the file; nothing else of autofill's is loaded so.
    func loaded(_ result: CLI.Result) -> Bool {
        result.stderr.contains("file=\(bundle)/libNetrcProvider.so") || result.stderr.contains("file=/proc/self/fd/")
    }

    func enable() throws {
        let enabled = try autofill(["providers", "enable", "org.t.net"])
        #expect(enabled.status == 0, "\(enabled.stderr)")
    }

    func listJSON() throws -> [String: Any] {
        let list = try autofill(["providers", "list", "--json"], loads: true)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(!loaded(list), "listing must not load a plugin")
        let providers = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as! [String: Any])["providers"] as! [[String: Any]]
        return try #require(providers.first { $0["id"] as? String == "org.t.net" }?["trust"] as? [String: Any])
    }

    static func append(_ byte: UInt8, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([byte]))
        try handle.close()
    }

    /// Faults recorded the way the transport records them: the user's ledger, the files as they are.
    func recordFaults(_ count: Int) throws {
        let manifest = try #require(ManifestReader.read(bundle: bundle).manifest)
        let ledger = FaultLedger(folder: HostRecords(path: records))
        for index in 1...count {
            try ledger.record(fault: .crashed, message: "SIGSEGV #\(index)", fingerprint: try PluginFingerprint(of: manifest),
                              for: "org.t.net", bundle: bundle)
        }
    }

    /// Alice's identity in Net's store, written as a companion program writes it: no plugin code runs.
    func saveAlice() throws {
        let file = try home.file("alice.json", """
            { "identities": [ { "kind": "password", "serviceIdentifier": { "identifier": "example.com", "type": "domain" }, "user": "alice" } ] }
            """)
        let saved = try autofill(["identities", "save", "--provider", "org.t.net", "--file", file])
        #expect(saved.status == 0, "\(saved.stderr)")
    }

    /// Rewrites the configuration with `change` applied.
    func editConfiguration(_ change: (inout [String: Any]) -> Void) throws {
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: config)), format: nil) as! [String: Any]
        change(&plist)
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
    }

    @Test func aChangedLibraryIsRefusedWithExit77AndNotLoadedUntilTrusted() throws {
        try enable()
        #expect(try autofill(["fill", "example.com", "--pick", "1"]).stdout == "alice-pw\n")
        try Self.append(0, to: library)

        let refused = try autofill(["fill", "example.com", "--pick", "1"], loads: true)
        #expect(refused.status == 77)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains(
            "autofill: Net (org.t.net) changed since you enabled it: libNetrcProvider.so differs; run `autofill providers trust org.t.net` after checking it\n"))
        #expect(!loaded(refused), "nothing of a changed provider runs")
        let sync = try autofill(["providers", "sync"], loads: true)
        #expect(sync.status == 77)
        #expect(!loaded(sync))

        let trust = try listJSON()
        #expect(trust["state"] as? String == "changed")
        #expect(trust["changedFiles"] as? [String] == ["libNetrcProvider.so"])
        #expect(trust["origin"] as? String == "enabled")
        #expect((trust["reason"] as? String)?.contains("run `autofill providers trust org.t.net`") == true)
        let text = try autofill(["providers", "list"])
        #expect(text.stdout.contains("enabled  changed"))
        #expect(text.stdout.contains("   ! Net (org.t.net) changed since you enabled it: libNetrcProvider.so differs;"))

        let trusted = try autofill(["providers", "trust", "org.t.net"], loads: true)
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(!loaded(trusted), "trusting runs none of the provider's code")
        #expect(trusted.stdout.contains("  libNetrcProvider.so  changed: SHA-256 "))
        #expect(trusted.stdout.contains("  Info.plist           unchanged\n"))
        #expect(trusted.stdout.hasSuffix("Trusted Net as it is now.\n"))
        #expect(try listJSON()["state"] as? String == "trusted")
        let filled = try autofill(["fill", "example.com", "--pick", "1"], loads: true)
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout == "alice-pw\n")
        #expect(loaded(filled), "control: LD_DEBUG shows a provider that is loaded")
    }

    @Test func aChangedPluginIsRefusedWhenEnabledAgainButNotWhenEnabledAfresh() throws {
        try enable()
        try Self.append(0, to: "\(bundle)/Info.plist")
        let again = try autofill(["providers", "enable", "org.t.net"])
        #expect(again.status == 77)
        #expect(again.stderr.contains("Info.plist differs"))
        #expect(try autofill(["providers", "disable", "org.t.net"]).status == 0)
        #expect(try autofill(["providers", "enable", "org.t.net"]).status == 0, "enabling approves the files as they are")
        #expect(try listJSON()["state"] as? String == "trusted")
    }

    @Test func aSearchFolderOthersCanWriteIsRefusedNamingTheFix() throws {
        chmod("\(home.path)/plugins", 0o777)
        let enable = try autofill(["providers", "enable", "org.t.net"], loads: true)
        #expect(enable.status == 77)
        #expect(!loaded(enable))
        #expect(enable.stderr.contains("autofill: Net (org.t.net) is not loaded: users other than you could change its files:\n"))
        #expect(enable.stderr.contains("\(home.path)/plugins: the folder holding the plugin bundle is writable by every user (mode 0777)"))
        #expect(enable.stderr.contains("fix: `chmod go-w \(home.path)/plugins`"))
        #expect(!(try autofill(["providers", "list"])).stdout.contains("1  org.t.net"), "not enabled")
    }

    @Test(.enabled(if: getuid() == 0, "giving a file to a group you are not in needs root"))
    func aGroupWritableBundleIsRefusedByFillAndValidate() throws {
        try enable()
        chmod(library, 0o775)
        #expect(chown(library, 0, 100) == 0)  // the shared group `users`
        let fill = try autofill(["fill", "example.com", "--pick", "1"], loads: true)
        #expect(fill.status == 77)
        #expect(!loaded(fill))
        #expect(fill.stderr.contains("\(library): this file of the plugin is writable by the group users (gid 100) (mode 0775)"))
        #expect(fill.stderr.contains("fix: `chmod go-w \(library)`"))
        let validate = try autofill(["plugin", "validate", bundle], loads: true)
        #expect(validate.status == 77)
        #expect(!loaded(validate), "validate reads nothing else of an unsafe bundle")
        #expect(validate.stdout.contains("error: \(library): this file of the plugin is writable by the group users"))
        #expect(try listJSON()["state"] as? String == "unsafe")
        chmod(library, 0o755)
        #expect(try autofill(["fill", "example.com", "--pick", "1"]).status == 0)
    }

    @Test func quarantineIsListedAndLiftedByReEnablingAndByAFileChange() throws {
        try enable()
        try recordFaults(2)
        #expect(try listJSON()["state"] as? String == "trusted", "two faults are not enough")
        try recordFaults(1)

        let trust = try listJSON()
        #expect(trust["state"] as? String == "quarantined")
        #expect(trust["quarantinedSince"] is String)
        let reason = try #require(trust["reason"] as? String)
        #expect(reason.contains("Net (org.t.net) is quarantined since "))
        #expect(reason.contains("it crashed or was killed 3 times within 10 minutes; the last time it crashed: SIGSEGV #1"))
        #expect(reason.contains("run `autofill providers enable org.t.net` to lift the quarantine"))
        let text = try autofill(["providers", "list"])
        #expect(text.stdout.contains("enabled  quarantined"))
        let fill = try autofill(["fill", "example.com", "--pick", "1"], loads: true)
        #expect(fill.status == 77)
        #expect(!loaded(fill))
        #expect(fill.stderr.contains("is quarantined since"))

        let reEnabled = try autofill(["providers", "enable", "org.t.net"])
        #expect(reEnabled.status == 0, "\(reEnabled.stderr)")
        #expect(reEnabled.stdout.contains("already enabled"))
        #expect(try listJSON()["state"] as? String == "trusted")
        #expect(try autofill(["fill", "example.com", "--pick", "1"]).stdout == "alice-pw\n")

        try recordFaults(3)
        #expect(try listJSON()["state"] as? String == "quarantined")
        try Self.append(0, to: library)
        #expect(try listJSON()["state"] as? String == "changed", "new files lift the quarantine; the trust check applies")
        let trusted = try autofill(["providers", "trust", "org.t.net"])
        #expect(!trusted.stdout.contains("Lifted the quarantine"), "it was of the old files")
        #expect(try autofill(["fill", "example.com", "--pick", "1"]).stdout == "alice-pw\n")

        try recordFaults(3)
        let lifted = try autofill(["providers", "trust", "org.t.net"])
        #expect(lifted.stdout.contains("Lifted the quarantine (since "))
        #expect(lifted.stdout.hasSuffix("Nothing changed; trusted Net again.\n"))
    }

    @Test func aProviderListedByHandIsRefusedWithoutATerminalNamingTheCommand() throws {
        try editConfiguration { $0["EnabledProviders"] = ["org.t.net"] }
        let trust = try listJSON()
        #expect(trust["state"] as? String == "notRecorded")
        #expect((trust["reason"] as? String)?.contains("run `autofill providers trust org.t.net`") == true)
        let refusal = "autofill: Net (org.t.net) is enabled, but you have not approved its files (\(bundle)): run `autofill providers trust org.t.net` to see their SHA-256 and approve them, or run autofill in a terminal to be asked\n"
        let sync = try autofill(["providers", "sync"], loads: true)
        #expect(sync.status == 77)
        #expect(sync.stderr.contains("autofill: org.t.net: " + refusal.dropFirst("autofill: ".count)))
        #expect(!loaded(sync), "nothing of a provider nobody approved runs")
        // A UI script answers providers' questions, never this one.
        try saveAlice()
        let script = try home.file("yes.ui", "confirm yes\nconfirm yes\n")
        let fill = try autofill(["fill", "example.com", "--pick", "1", "--ui-script", script], loads: true)
        #expect(fill.status == 77)
        #expect(fill.stderr.contains(refusal))
        #expect(!loaded(fill))
        #expect(!FileManager.default.fileExists(atPath: "\(records)/trust.json"), "nothing was recorded")

        let approved = try autofill(["providers", "trust", "org.t.net"], loads: true)
        #expect(approved.status == 0, "\(approved.stderr)")
        #expect(!loaded(approved))
        #expect(approved.stdout.contains("  libNetrcProvider.so  SHA-256 "))
        #expect(approved.stdout.contains(" (no earlier record)\n"))
        #expect(try listJSON()["origin"] as? String == "trusted")
        #expect(try autofill(["fill", "example.com", "--pick", "1"]).stdout == "alice-pw\n")
    }

    @Test func aProviderListedByHandIsApprovedOnlyByAnswerAtTheTerminal() throws {
        try editConfiguration { $0["EnabledProviders"] = ["org.t.net"] }
        try saveAlice()
        let script = try home.file("no.ui", "confirm no\n")
        let output = "\(home.path)/fill.out"
        let command = CLI.shellEnvironment(home: home.path)
            + " \(CLI.binary) fill example.com --pick 1 --ui-script \(script) --config \(config) > \(output) 2>&1; echo EXIT=$? >> \(output)"
        // No: refused, nothing recorded; the UI script's "confirm no" was not what answered.
        let refused = try TmuxSession(command)
        let question = try refused.waitFor("Approve these files and run Net? [y/n, q cancels]:")
        #expect(question.contains("autofill ▶ Approve a provider"))
        #expect(question.contains("Net (org.t.net) is enabled in /"), "the configuration's path follows (the pane wraps it)")
        #expect(question.contains("  libNetrcProvider.so  SHA-256 "))
        try refused.send("n", "Enter")
        let no = try Self.waitForFile(output, containing: "EXIT=")
        #expect(no.contains("autofill: Net (org.t.net) was not run: you did not approve its files; `autofill providers trust org.t.net` approves them"))
        #expect(no.contains("EXIT=77"))
        #expect(try listJSON()["state"] as? String == "notRecorded")
        try FileManager.default.removeItem(atPath: output)

        let approving = try TmuxSession(command)
        try approving.waitFor("Approve these files and run Net?")
        try approving.send("y", "Enter")
        let yes = try Self.waitForFile(output, containing: "EXIT=")
        #expect(yes.hasPrefix("alice-pw\n"), "\(yes)")
        #expect(yes.contains("EXIT=0"))
        let trust = try listJSON()
        #expect(trust["state"] as? String == "trusted")
        #expect(trust["origin"] as? String == "confirmed")
        try Self.append(0, to: library)
        #expect(try autofill(["fill", "example.com", "--pick", "1"]).stderr.contains("Net (org.t.net) changed since you approved it"))
    }

    static func waitForFile(_ path: String, containing text: String) throws -> String {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let contents = try? String(contentsOfFile: path, encoding: .utf8), contents.contains(text) { return contents }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TmuxTimeout(expected: text, screen: (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }

    @Test func aConfigurationWithItsOwnStoresMeetsTheUsersRecords() throws {
        try enable()
        try Self.append(0, to: library)
        // Pointing IdentityStoreDirectory at a new folder does not make the changed library trusted.
        try editConfiguration { $0["IdentityStoreDirectory"] = "own-stores" }
        let sync = try autofill(["providers", "sync"], loads: true)
        #expect(sync.status == 77)
        #expect(sync.stderr.contains("Net (org.t.net) changed since you enabled it: libNetrcProvider.so differs"))
        #expect(!loaded(sync))
        #expect(FileManager.default.fileExists(atPath: "\(records)/trust.json"))
        #expect(!FileManager.default.fileExists(atPath: "\(home.path)/own-stores/trust.json"), "records never live with a configuration's stores")
        #expect(!FileManager.default.fileExists(atPath: "\(stores)/trust.json"))
    }

    @Test func aQuarantineHoldsWhateverStoreFolderTheConfigurationNames() throws {
        try enable()
        try recordFaults(3)
        try editConfiguration { $0["IdentityStoreDirectory"] = "fresh-stores" }
        let sync = try autofill(["providers", "sync"], loads: true)
        #expect(sync.status == 77)
        #expect(sync.stderr.contains("Net (org.t.net) is quarantined since"))
        #expect(!loaded(sync))
    }

    @Test func recordsOthersCouldChangeAreRefused() throws {
        try enable()
        chmod(records, 0o777)
        let fill = try autofill(["fill", "example.com", "--pick", "1"], loads: true)
        #expect(fill.status == 77)
        #expect(!loaded(fill))
        #expect(fill.stderr.contains("\(records): the folder of autofill's records is writable by every user (mode 0777): users other than you could add or replace files in it"))
        #expect(fill.stderr.contains("fix: `chmod go-w \(records)`"))
        chmod(records, 0o700)
        #expect(try autofill(["fill", "example.com", "--pick", "1"]).stdout == "alice-pw\n")
    }

    @Test func badQuarantineSettingsAreAConfigurationError() throws {
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: config)), format: nil) as! [String: Any]
        plist["Quarantine"] = ["FaultCount": 0]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        let list = try autofill(["providers", "list"])
        #expect(list.status == 78)
        #expect(list.stderr.contains("Quarantine.FaultCount is 0; give a number of faults from 1 to 1000"))
    }

    @Test func aRefusedProviderFallsBackToTheNextWithFallback() throws {
        let other = try home.sample("NetrcProvider", as: "org.t.other") { $0["CFBundleDisplayName"] = "Other" }
        let netrc = try home.file("other.netrc", "machine example.com login alice password other-pw\n")
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: config)), format: nil) as! [String: Any]
        plist["ProviderSettings"] = (plist["ProviderSettings"] as! [String: Any]).merging(["org.t.other": ["NetrcFile": netrc]]) { $1 }
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try enable()
        #expect(try autofill(["providers", "enable", other]).status == 0)
        try Self.append(0, to: library)
        // Without --fallback the next is not tried: the router says so, the CLI names the flag.
        let alone = try autofill(["fill", "example.com", "--pick", "1"])
        #expect(alone.status == 77, "\(alone.stderr)")
        #expect(alone.stderr.contains("No other suggestion was tried; pass --fallback to try the next suggestion automatically."), "\(alone.stderr)")
        let fill = try autofill(["fill", "example.com", "--pick", "1", "--fallback"])
        #expect(fill.status == 0, "\(fill.stderr)")
        #expect(fill.stdout == "other-pw\n")
        #expect(fill.stderr.contains("Net (org.t.net) changed since you enabled it"))
        #expect(fill.stderr.contains("Trying the next suggestion: alice — password — Other"))
    }
}
