import AutofillTestSupport
import Foundation
import Testing

/// Runs the built `autofill` binary, as a user would.
enum CLI {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // autofillCLITests, Tests, repo
        return url.path
    }()

    static var binary: String { "\(root)/.build/debug/autofill" }
    static var demoConfig: String { "\(root)/Config/config.plist" }
    static var builtBundles: String { "\(root)/.build/plugins" }

    typealias Result = ChildProcess.Result

    /// How the suite runs commands: through the agent (the default, as users run them), or each in
    /// its own process when the test process has `AUTOFILL_TEST_AGENT=off` (`Scripts/test` runs the
    /// CLI tests both ways).
    static let agentSetting = ProcessInfo.processInfo.environment["AUTOFILL_TEST_AGENT"] == "off" ? "off" : "on"

    /// Whether commands run through the agent in this run of the suite.
    static var usesAgent: Bool { agentSetting == "on" }

    /// The environment of a command run for `home`: its HOME and XDG folders, PATH, the suite's agent
    /// setting. The agent a command starts lives in `home`'s runtime folder and ends when the home is
    /// removed.
    static func environment(home: String) -> [String: String] {
        [
            "HOME": home, "XDG_CONFIG_HOME": "\(home)/.config", "XDG_DATA_HOME": "\(home)/.local/share",
            "XDG_STATE_HOME": "\(home)/.local/state", "XDG_RUNTIME_DIR": "\(home)/run",
            "PATH": "/usr/bin:/bin", "AUTOFILL_AGENT": agentSetting,
        ]
    }

    /// ``environment(home:)`` (with `extra`) as the `env -i TERM="$TERM" NAME='value' …` prefix of a
    /// shell command, for commands run in a tmux pane: nothing else of the test process's environment
    /// (which the tmux server inherited), and the pane's own TERM.
    static func shellEnvironment(home: String, _ extra: [String: String] = [:]) -> String {
        #"env -i TERM="$TERM" "# + environment(home: home).merging(extra) { $1 }.sorted { $0.key < $1.key }
            .map { "\($0.key)='\($0.value.replacingOccurrences(of: "'", with: "'\\''"))'" }.joined(separator: " ")
    }

    /// Runs `autofill arguments` with a clean environment whose HOME and XDG folders are `home`, and
    /// `input` on stdin.
    static func run(_ arguments: [String], home: String, environment extra: [String: String] = [:], input: String = "") throws -> Result {
        let environment = environment(home: home).merging(["COLUMNS": "100"]) { $1 }.merging(extra) { $1 }
        return try ChildProcess.run(binary, arguments, environment: environment, input: input)
    }
}

extension CLI {
    /// Waits (up to 10 s) until the file at `path` contains `text` (what a command in a tmux pane wrote
    /// to it); returns its contents.
    static func waitForFile(_ path: String, containing text: String) throws -> String {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let contents = try? String(contentsOfFile: path, encoding: .utf8), contents.contains(text) { return contents }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TmuxTimeout(expected: text, screen: (try? String(contentsOfFile: path, encoding: .utf8)) ?? "(no output)")
    }

    /// Runs `autofill arguments` with the dynamic loader's trace (`LD_DEBUG=files`) written to files,
    /// one per process, and returns the result with every process's trace: autofill's own and its
    /// provider helpers' (whose stderr is not autofill's).
    static func runTracingLoads(_ arguments: [String], home: String) throws -> (result: Result, loads: String) {
        let folder = "\(home)/ld-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let result = try run(arguments, home: home, environment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": "\(folder)/trace"])
        var loads = ""
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            loads += (try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)) ?? ""
        }
        return (result, loads)
    }
}

/// A temporary home folder (with a private XDG_RUNTIME_DIR), removed afterwards.
final class TemporaryHome: Sendable {
    private let folder: TemporaryFolder
    var path: String { folder.path }

    init() throws {
        folder = try TemporaryFolder("cli")
        try FileManager.default.createDirectory(atPath: "\(folder.path)/run", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    /// Writes `text` to `name` in the home folder and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        try folder.file(name, text)
    }

    /// A copy of a built sample bundle with its provider id (and optionally other keys) changed.
    func sample(_ name: String, as id: String, folder: String = "plugins", edit: (inout [String: Any]) -> Void = { _ in }) throws -> String {
        let target = "\(path)/\(folder)/\(id).afprovider"
        try FileManager.default.createDirectory(atPath: "\(path)/\(folder)", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(CLI.builtBundles)/\(name).afprovider", toPath: target)
        let plistPath = "\(target)/Info.plist"
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: plistPath)), format: nil) as! [String: Any]
        plist["CFBundleIdentifier"] = id
        edit(&plist)
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: plistPath))
        return target
    }

    /// Copies built sample bundles into the home's default plugin folder, `~/.local/lib/autofill/providers`
    /// (where `Scripts/install` puts them), mode 0755; returns the folder.
    @discardableResult
    func installSamples(_ names: [String]) throws -> String {
        let folder = "\(path)/.local/lib/autofill/providers"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        for name in names {
            try FileManager.default.copyItem(atPath: "\(CLI.builtBundles)/\(name).afprovider", toPath: "\(folder)/\(name).afprovider")
        }
        return folder
    }

    /// The Vault sample (`org.autofill.vault`) with a private copy of the demo vault (alice and bob at
    /// example.com) in a folder of its own (the Vault's sandbox may change files in its vault's folder,
    /// docs/SANDBOX.md), and one configuration `<name>.plist` per entry of `policies` (its
    /// `UserAuthentication`), all enabling the Vault alone; the bundle is approved (they share it).
    func demoVault(policies: [(name: String, policy: [String: String])]) throws {
        _ = try sample("VaultProvider", as: "org.autofill.vault")
        let vaultFile = try demoVault()
        for (name, policy) in policies {
            let plist: [String: Any] = [
                "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.vault"],
                "ProviderSettings": ["org.autofill.vault": ["VaultFile": vaultFile]],
                "UserAuthentication": policy,
            ]
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
                .write(to: URL(fileURLWithPath: "\(path)/\(name).plist"))
        }
        if let first = policies.first { try trust(["org.autofill.vault"], config: "\(path)/\(first.name).plist") }
    }

    /// `autofill ARGS` in a real terminal (tmux): for each answer, waits until the pane shows its
    /// prompt and types its keys. Standard output and error go to files; the result, and the pane as
    /// it was last (what the terminal showed).
    func atTerminal(_ arguments: [String], answers: [(prompt: String, keys: String)]) throws -> (result: CLI.Result, screen: String) {
        let run = "\(path)/run-\(UUID().uuidString)"
        let quoted = ([CLI.binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let session = try TmuxSession("\(CLI.shellEnvironment(home: path)) \(quoted) > \(run).out 2> \(run).err; echo $? > \(run).status")
        var screen = ""
        for answer in answers {
            screen = try session.waitFor(answer.prompt)
            try session.send("-l", answer.keys)
            try session.send("Enter")
        }
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, (try? String(contentsOfFile: "\(run).status", encoding: .utf8))?.hasSuffix("\n") != true {
            Thread.sleep(forTimeInterval: 0.05)
        }
        screen += (try? session.screen()) ?? ""
        let read = { (suffix: String) in (try? String(contentsOfFile: "\(run).\(suffix)", encoding: .utf8)) ?? "" }
        return (CLI.Result(status: Int32(read("status").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1,
                           stdout: read("out"), stderr: read("err")), screen)
    }

    /// Writes the user's own configuration, `$XDG_CONFIG_HOME/autofill/config.plist`, from `plist`, and
    /// returns its path. The agent takes its authentication policy from this file when it starts, and
    /// refuses requests whose `--config` asks for less (docs/AGENT.md, "Whose policy"): a test whose
    /// configurations ask for `none` (or name PAM services of their own) writes `["UserAuthentication":
    /// ["Policy": "none"]]` here before its first command. Relative paths in it are relative to its folder.
    @discardableResult
    func userConfiguration(_ plist: [String: Any]) throws -> String {
        let folder = "\(path)/.config/autofill"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: "\(folder)/config.plist"))
        return "\(folder)/config.plist"
    }

    /// A PAM configuration folder of the tests' own (`PAMConfigurationDirectory`) with three services:
    /// `autofill-permit` (pam_permit: asks nothing, accepts: unattended on purpose), `autofill-deny`
    /// (pam_deny: refuses everyone) and `autofill-ask` (pam_unix: asks for the user's password
    /// through the conversation, which needs the controlling terminal).
    func pamFolder() throws -> String {
        let folder = "\(path)/pam.d"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        for (service, module) in [("autofill-permit", "pam_permit.so"), ("autofill-deny", "pam_deny.so"), ("autofill-ask", "pam_unix.so")] {
            try Data("auth required \(module)\naccount required pam_permit.so\n".utf8)
                .write(to: URL(fileURLWithPath: "\(folder)/\(service)"))
        }
        return folder
    }

    /// The `UserAuthentication` policy `pam` with the service that asks nothing (``pamFolder()``'s
    /// `autofill-permit`): unattended on purpose.
    func permitPolicy() throws -> [String: String] {
        ["Policy": "pam", "PAMService": "autofill-permit", "PAMConfigurationDirectory": try pamFolder()]
    }

    /// A private copy of the demo vault (master password "correct horse battery staple", alice and bob
    /// at example.com) in a folder of its own, `vault/`: the Vault's sandbox may change files in its
    /// vault's folder (docs/SANDBOX.md). Returns the `VaultFile` setting that names it.
    func demoVault() throws -> String {
        try FileManager.default.createDirectory(atPath: "\(path)/vault", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(CLI.root)/Config/demo/vault/vault.afvault", toPath: "\(path)/vault/vault.afvault")
        return "./vault/vault.afvault"
    }

    /// Approves the files of providers listed in `config` by hand, as a user does (a provider nobody
    /// approved is refused, exit 77): `autofill providers trust ID…`. The records go to this home's
    /// `.local/state/autofill`.
    func trust(_ ids: [String], config: String) throws {
        let result = try CLI.run(["providers", "trust"] + ids + ["--config", config], home: path)
        #expect(result.status == 0, "providers trust: \(result.stderr)")
    }

    /// Compiles the host tests' C fixture (Tests/AutofillHostTests/Fixtures/fixture_provider.c, display
    /// name "Fixture", ProvidesPasswords) into `plugins/<id>.afprovider` with `defines`; returns the bundle.
    func fixtureProvider(id: String, entry: String = "fixture_faults_entry", defines: [String] = []) throws -> String {
        let bundle = "\(path)/plugins/\(id).afprovider"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        let plist: [String: Any] = [
            "CFBundleIdentifier": id, "CFBundleDisplayName": "Fixture", "CFBundleExecutable": "libFixture.so",
            "AFProviderABIVersion": 1, "AFProviderEntrySymbol": entry,
            "NSExtension": [
                "NSExtensionPointIdentifier": "com.apple.authentication-services-credential-provider-ui",
                "NSExtensionAttributes": ["ASCredentialProviderExtensionCapabilities": ["ProvidesPasswords": true]],
            ],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: "\(bundle)/Info.plist"))
        let source = "\(CLI.root)/Tests/AutofillHostTests/Fixtures/fixture_provider.c"
        let compiled = try ChildProcess.run("/usr/bin/cc", [
            "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden", "-pthread",
            "-I", "\(CLI.root)/Sources/CAutofillProvider/include", source, "-o", "\(bundle)/libFixture.so",
        ] + defines.map { "-D\($0)" })
        guard compiled.status == 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "cc failed: \(compiled.stderr)"]) }
        return bundle
    }

    /// A configuration file searching `plugins/` with these providers enabled.
    func config(enabled: [String], settings: [String: [String: String]] = [:]) throws -> String {
        let path = "\(self.path)/config.plist"
        let plist: [String: Any] = ["PluginSearchPaths": ["plugins"], "EnabledProviders": enabled, "ProviderSettings": settings]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
        return path
    }
}
