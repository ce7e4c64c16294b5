import AutofillTestSupport
import Foundation
import Testing

/// The provider sandbox against a provider that attacks on purpose (Fixtures/sandbox_attack_provider.c),
/// through the real `autofill`: each attack is denied and the host finishes the fill unharmed; each has
/// a control, with the permission declared (or, where no permission exists, the same provider named
/// `unsandboxed`), that works, so a denial is the sandbox's doing and not a broken attack.
struct SandboxAttackTests {
    let home: TemporaryHome

    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
    }

    static let id = "org.t.attacker"

    /// Builds the attacker's bundle (with `sandbox` as its AFProviderSandbox, and `settings` besides Attack and Target), a Netrc neighbour
    /// (org.t.netrc, whose file is `home/netrc/netrc`), a configuration, approves both and runs
    /// `autofill fill attack.test`. Returns what the attack reported, and the whole result.
    func attack(_ name: String, target: String = "", sandbox: [String: Any]? = nil, settings: [String: String] = [:], unsandboxed: Bool = false,
                neighbourUnsandboxed: Bool = false, environment: [String: String] = [:], verbose: Bool = false)
        throws -> (outcome: String, result: CLI.Result)
    {
        let bundle = "\(home.path)/plugins/Attacker.afprovider"
        if !FileManager.default.fileExists(atPath: bundle) {
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            let compiled = try ChildProcess.run("/usr/bin/cc", [
                "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden", "-I", FixturePlugin.abiInclude,
                "\(CLI.root)/Tests/AutofillHostTests/Fixtures/sandbox_attack_provider.c", "-o", "\(bundle)/libAttacker.so",
            ])
            try #require(compiled.status == 0, "cc: \(compiled.stderr)")
        }
        var plist = FixturePlugin.plist(id: Self.id, name: "Attacker", executable: "libAttacker.so", entry: "attack_provider_entry")
        if let sandbox { plist["AFProviderSandbox"] = sandbox }
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: "\(bundle)/Info.plist"))
        if !FileManager.default.fileExists(atPath: "\(home.path)/plugins/org.t.netrc.afprovider") {
            _ = try home.sample("NetrcProvider", as: "org.t.netrc")
            try FileManager.default.createDirectory(atPath: "\(home.path)/netrc", withIntermediateDirectories: true)
            try Data("machine example.com login alice password netrc-secret-pw\n".utf8).write(to: URL(fileURLWithPath: "\(home.path)/netrc/netrc"))
        }
        var configuration: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": [Self.id, "org.t.netrc"],
            "ProviderSettings": [Self.id: settings.merging(["Attack": name, "Target": target]) { $1 }, "org.t.netrc": ["NetrcFile": "./netrc/netrc"]],
            "UserAuthentication": ["Policy": "none"],
        ]
        var unsandboxedIDs: [String: String] = [:]
        if unsandboxed { unsandboxedIDs[Self.id] = "unsandboxed" }
        if neighbourUnsandboxed { unsandboxedIDs["org.t.netrc"] = "unsandboxed" }
        if !unsandboxedIDs.isEmpty { configuration["ProviderIsolation"] = ["Providers": unsandboxedIDs] }
        let config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: configuration, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust([Self.id, "org.t.netrc"], config: config)
        // The attacker publishes its identity when it loads.
        // With `verbose`, both commands log (the agent launches the helper for the first) and the result's stderr holds both.
        let synced = try CLI.run(["providers", "sync", "--config", config] + (verbose ? ["-v"] : []), home: home.path, environment: environment)
        guard synced.status == 0 else { return ("", synced) }
        var result = try CLI.run(["fill", "attack.test", "--pick", "1", "--config", config] + (verbose ? ["-v"] : []), home: home.path,
                                 environment: environment)
        if verbose { result = CLI.Result(status: result.status, stdout: result.stdout, stderr: synced.stderr + result.stderr) }
        return (result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), result)
    }

    /// An open the sandbox stopped: Landlock's EACCES, or in namespaces of its own ENOENT (the path is not there).
    static func isDeniedOpen(_ outcome: String) -> Bool {
        outcome == "denied EACCES open" || (NamespaceSandboxTests.userNamespaces && outcome == "denied ENOENT open")
    }

    static func files(_ entries: [(String, String, String)]) -> [String: Any] {
        ["Files": entries.map { kind, value, access in [kind: value, "Access": access] }]
    }

    // MARK: Files

    @Test func anotherProvidersFileIsOutOfReachAndItsOwnDeclaredFileIsNot() throws {
        let netrc = "\(home.path)/netrc/netrc"
        var (outcome, result) = try attack("read-file", target: netrc)
        #expect(result.status == 0, "the host finishes: \(result.stderr)")
        #expect(Self.isDeniedOpen(outcome), "\(outcome)")
        #expect(!result.stdout.contains("netrc-secret-pw") && !result.stderr.contains("netrc-secret-pw"))
        // Control: a file of its own, declared by path, reads.
        try FileManager.default.createDirectory(atPath: "\(home.path)/mine", withIntermediateDirectories: true)
        let mine = "\(home.path)/mine/notes.txt"
        try Data("its own file\n".utf8).write(to: URL(fileURLWithPath: mine))
        (outcome, result) = try attack("read-file", target: mine, sandbox: Self.files([("Path", "\(home.path)/mine", "read")]))
        #expect(outcome == "ok read 13 bytes", "\(result.stderr)")
    }

    /// The unlocked Vault lives in its helper's memory only (under the agent): no file holds it, and
    /// another provider cannot open that process's memory or environment.
    @Test(.enabled(if: CLI.usesAgent)) func theUnlockedVaultIsOutOfReach() throws {
        let vaultFolder = "\(home.path)/vault"
        try FileManager.default.createDirectory(atPath: vaultFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(CLI.root)/Config/demo/vault/vault.afvault", toPath: "\(vaultFolder)/vault.afvault")
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        let vaultConfig = "\(home.path)/vault.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.vault"],
            "ProviderSettings": ["org.autofill.vault": ["VaultFile": "./vault/vault.afvault"]], "UserAuthentication": ["Policy": "none"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: vaultConfig))
        try home.trust(["org.autofill.vault"], config: vaultConfig)
        let script = try home.file("unlock.ui", "secret correct horse battery staple\n")
        let unlocked = try CLI.run(["unlock", "org.autofill.vault", "--ui-script", script, "--config", vaultConfig], home: home.path)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let status = try CLI.run(["agent", "status", "--json"], home: home.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let providers = try #require(object["providers"] as? [[String: Any]])
        let vault = try #require(providers.first { $0["id"] as? String == "org.autofill.vault" }?["helperPID"] as? Int)
        let runtime = "\(home.path)/run/autofill/providers/org.autofill.vault"
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []).isEmpty, "no file holds the unlocked vault")
        for file in ["mem", "environ"] {
            let (outcome, result) = try attack("read-file", target: "/proc/\(vault)/\(file)")
            #expect(Self.isDeniedOpen(outcome), "\(file): \(outcome) \(result.stderr)")
        }
        // Control: outside the sandbox this user (root here) can open the helper's environment.
        #expect(try attack("read-file", target: "/proc/\(vault)/environ", unsandboxed: true).outcome.hasPrefix("ok read"))
    }

    @Test(arguments: ["trust.json", "faults.json", "config.plist", "store"])
    func theHostsOwnFilesCannotBeWritten(file: String) throws {
        let target =
            switch file {
            case "config.plist": "\(home.path)/config.plist"
            case "store": "\(home.path)/.local/share/autofill/stores/org.t.netrc.sqlite"
            default: "\(home.path)/.local/state/autofill/\(file)"
            }
        let (outcome, result) = try attack("write-file", target: target)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.isDeniedOpen(outcome), "\(outcome)")
        if let contents = FileManager.default.contents(atPath: target) {
            #expect(!String(decoding: contents, as: UTF8.self).contains("attacked"))
        }
    }

    @Test func itsOwnDataFolderIsItsToUse() throws {
        #expect(try attack("list-data").outcome.hasPrefix("ok listed"))
        #expect(try attack("write-file", target: "\(home.path)/.local/share/autofill/providers/\(Self.id)/state").outcome == "ok wrote")
    }

    // MARK: Processes

    @Test(arguments: ["ptrace-parent", "read-parent-mem", "signal-parent"])
    func theHostIsOutOfReach(attack name: String) throws {
        let (outcome, result) = try attack(name)
        #expect(result.status == 0, "the host finishes: \(result.stderr)")
        #expect(outcome.hasPrefix("denied"), "\(outcome)")
        // Control: without the sandbox the same call reaches the host (this kernel has no Yama; the
        // host is not dumpable, which stops the ptrace and the read for users who are not root).
        let control = try attack(name, unsandboxed: true)
        #expect(control.result.status == 0)
        if getuid() == 0 || name == "signal-parent" { #expect(control.outcome.hasPrefix("ok"), "\(control.outcome)") }
    }

    @Test func theTerminalIsOutOfReach() throws {
        let (outcome, result) = try attack("open-tty")
        #expect(result.status == 0)
        #expect(outcome.hasPrefix("denied"), "\(outcome)")
    }

    @Test func aForkedDaemonCannotOutliveItsHelper() throws {
        // No programs declared: no new processes at all.
        #expect(try attack("fork-daemon").outcome == "denied EPERM fork")
        // Control, with a program declared: fork works, but the child cannot leave the helper's group
        // (setsid EPERM) and ends with it.
        let (outcome, result) = try attack("fork-daemon", sandbox: ["Executables": ["true"]])
        #expect(result.status == 0, "\(result.stderr)")
        let parts = outcome.split(separator: " ")
        try #require(parts.count == 5 && parts[0] == "ok", "\(outcome)")
        #expect(parts[4] == "EPERM", "setsid is denied")
        let inner = try #require(Int32(parts[2]))
        // In namespaces of its own, the pid it reports is its pid there: find it among this machine's.
        var child = inner
        if NamespaceSandboxTests.userNamespaces {
            guard let found = Self.process(innerPID: inner) else {
                // Without the agent the helper ended with the command, and its pid namespace with it.
                #expect(!CLI.usesAgent, "its child runs while the agent keeps its helper")
                return
            }
            child = found
        }
        // The agent keeps the helper running between commands: locking ends it (without the agent it
        // ended with the command).
        let locked = try CLI.run(["lock"], home: home.path)
        #expect(locked.status == 0, "\(locked.stderr)")
        let deadline = Date().addingTimeInterval(10)
        while ProcessTable.isRunning(child) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!ProcessTable.isRunning(child), "the provider's child outlived its helper")
    }

    /// The process (as this machine numbers it) that a forked helper numbers `innerPID` in its own pid
    /// namespace: in a pid namespace below this one, its innermost pid that, its parent's 2 (the helper).
    static func process(innerPID: Int32) -> Int32? {
        func field(_ status: String, _ name: String) -> [Substring] {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(name):") }) else { return [] }
            return Array(line.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst())
        }
        func status(_ pid: Substring) -> String? { try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) }
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let mine = status(Substring(entry)) else { continue }
            let pids = field(mine, "NSpid")
            // Its parent is the helper that serves, in the same pid namespace.
            guard pids.count > 1, pids.last == Substring("\(innerPID)"), let parent = field(mine, "PPid").first,
                let parentStatus = status(parent), field(parentStatus, "NSpid").count > 1,
                field(parentStatus, "Name").first?.hasPrefix("autofill-provid") == true else { continue }
            return pid
        }
        return nil
    }

    @Test func anUndeclaredProgramCannotRunAndADeclaredOneCan() throws {
        #expect(try attack("exec", target: "/usr/bin/id").outcome == "denied EPERM fork")
        // Declaring another program allows processes, but not this one.
        #expect(try attack("exec", target: "/usr/bin/id", sandbox: ["Executables": ["true"]]).outcome == "denied EACCES execv")
        #expect(try attack("exec", target: "/usr/bin/id", sandbox: ["Executables": ["id"]]).outcome == "ok ran, status 0")
    }

    // MARK: Network

    @Test func noNetworkUnlessAPortIsDeclared() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(bound == 0 && listen(listener, 4) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        #expect(try attack("connect", target: "\(port)").outcome == "denied EACCES socket")
        #expect(try attack("connect", target: "\(port)", sandbox: ["OutboundTCPPorts": [port == 1 ? 2 : port - 1]]).outcome == "denied EACCES connect")
        #expect(try attack("connect", target: "\(port)", sandbox: ["OutboundTCPPorts": [port]]).outcome == "ok connected")
    }

    // MARK: What the user approved

    @Test func anUpdateAskingForMoreIsRefusedUntilApprovedAndTrustSaysWhatIsNew() throws {
        #expect(try attack("list-data").outcome.hasPrefix("ok listed"))
        // The provider's update asks for the network: its files changed, so it is refused (77)…
        let plistPath = "\(home.path)/plugins/Attacker.afprovider/Info.plist"
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: plistPath)), format: nil) as! [String: Any]
        plist["AFProviderSandbox"] = ["OutboundTCPPorts": [443]]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: plistPath))
        let config = "\(home.path)/config.plist"
        let refused = try CLI.run(["providers", "sync", "--config", config], home: home.path)
        #expect(refused.status == 77 || refused.stderr.contains("changed since"), "\(refused.stderr)")
        // …and approving it again shows what is new, in plain words.
        let trusted = try CLI.run(["providers", "trust", Self.id, "--config", config], home: home.path)
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(trusted.stdout.contains("New since you last approved it: connect to the internet on TCP port 443."), "\(trusted.stdout)")
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)
    }

    @Test func aRecordFromBeforeTheSandboxApprovesNoPermission() throws {
        let vaultFolder = "\(home.path)/vault"
        try FileManager.default.createDirectory(atPath: vaultFolder, withIntermediateDirectories: true)
        #expect(try attack("list-data", sandbox: Self.files([("Path", vaultFolder, "read")])).outcome.hasPrefix("ok listed"))
        // The record as an autofill without a sandbox wrote it: no permissions.
        let records = "\(home.path)/.local/state/autofill/trust.json"
        var text = try String(contentsOfFile: records, encoding: .utf8)
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        var providers = object["providers"] as! [String: [String: [String: Any]]]
        for (bundle, var record) in providers[Self.id]! {
            record.removeValue(forKey: "permissions")
            providers[Self.id]![bundle] = record
        }
        var edited = object
        edited["providers"] = providers
        text = String(decoding: try JSONSerialization.data(withJSONObject: edited), as: UTF8.self)
        try text.write(toFile: records, atomically: true, encoding: .utf8)
        let config = "\(home.path)/config.plist"
        let refused = try CLI.run(["fill", "attack.test", "--pick", "1", "--config", config], home: home.path)
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("asks for more than you approved: read \(vaultFolder)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("autofill providers trust \(Self.id)"))
        let listed = try CLI.run(["providers", "list", "--config", config], home: home.path)
        #expect(listed.stdout.contains("newPermissions"), "\(listed.stdout)")
    }

    // MARK: A kernel without Landlock

    @Test func withoutLandlockAProviderIsRefusedUnlessNamedUnsandboxed() throws {
        let (_, refused) = try attack("list-data", environment: ["AUTOFILL_TEST_NO_LANDLOCK": "1"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("this kernel has no Landlock"), "\(refused.stderr)")
        #expect(refused.stderr.contains("ProviderIsolation.Providers.\(Self.id)") && refused.stderr.contains("unsandboxed"))
        let (outcome, result) = try attack("list-data", unsandboxed: true, neighbourUnsandboxed: true,
                                           environment: ["AUTOFILL_TEST_NO_LANDLOCK": "1"])
        #expect(outcome.hasPrefix("ok listed"), "\(result.stderr)")
        #expect(result.stderr.contains("runs without its sandbox"))
    }
}
