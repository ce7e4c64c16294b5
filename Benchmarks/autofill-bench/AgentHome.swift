internal import Foundation
internal import Glibc

/// One user's world for the agent benchmark: a home with its XDG folders and runtime folder (so an
/// agent of its own), a configuration enabling the Vault sample with `UserAuthentication` `none`, a
/// vault of `count` generated logins made with `autofill-vault create` and `import`, and the same
/// logins in a KeePass database made with `keepassxc-cli import` (when KeePassXC is installed).
final class AgentHome {
    /// The master password of both the vault and the KeePass database.
    static let masterPassword = "bench master password 7"
    /// The vault's key derivation: the default of `autofill-vault create`, as users' vaults have it (a
    /// release build refuses the cheap costs of tests and demos). An unlock is not in any figure but
    /// `AUTOFILL_AGENT=off`'s, which says so.
    static let keyDerivation = "Argon2id m=64 MiB t=3 p=4"

    let count: Int
    let root: String
    let bin: String
    let logins: [GeneratedLogin]
    /// The logins the figures fill: five spread over the vault.
    let targets: [GeneratedLogin]
    /// What setting up took, for the report (seconds): the vault import, the unlock, the KeePass import.
    var vaultImportSeconds = 0.0, unlockSeconds = 0.0, keePassImportSeconds = 0.0

    var home: String { "\(root)/home" }
    var runtime: String { "\(root)/run" }
    var vault: String { "\(root)/vault/vault.afvault" }
    /// The user's own configuration (`$XDG_CONFIG_HOME/autofill/config.plist`): the agent takes its
    /// policy and idle time from it, never from a request's (docs/AGENT.md); `AUTOFILL_CONFIG` names it too.
    var config: String { "\(home)/.config/autofill/config.plist" }
    /// In a folder of its own: a provider saving into it is granted its folder (docs/SANDBOX.md).
    var keePassDatabase: String { "\(root)/keepass/keepass.kdbx" }
    /// The master password on one line: standard input of `autofill-vault` and `keepassxc-cli show`.
    var passwordFile: String { "\(root)/password.txt" }
    /// The `--ui-script` that answers the Vault's unlock prompt.
    var unlockScript: String { "\(root)/unlock.ui" }

    /// The environment of every command: HOME and the XDG folders inside this home, the configuration.
    var environment: [String] {
        ["HOME=\(home)", "XDG_CONFIG_HOME=\(home)/.config", "XDG_DATA_HOME=\(home)/.local/share", "XDG_STATE_HOME=\(home)/.local/state",
         "XDG_CACHE_HOME=\(home)/.cache", "XDG_RUNTIME_DIR=\(runtime)", "AUTOFILL_CONFIG=\(config)", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"]
    }

    /// Writes the folders, the configuration and the generated logins under `parent`/n`count`.
    init(count: Int, parent: String, bin: String, plugins: String, seed: UInt64) throws {
        self.count = count
        self.bin = bin
        root = "\(parent)/n\(count)"
        let logins = LoginGenerator.logins(count: count, seed: seed ^ UInt64(count))
        self.logins = logins
        targets = (1...5).map { logins[min(count - 1, count * $0 / 6)] }
        let files = FileManager.default
        for folder in [home, "\(root)/vault"] { try files.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try files.createDirectory(atPath: "\(home)/.config/autofill", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try files.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let plist: [String: Any] = [
            "PluginSearchPaths": [plugins],
            "EnabledProviders": ["org.autofill.vault"],
            "ProviderSettings": ["org.autofill.vault": ["VaultFile": vault, "UnlockTimeoutSeconds": "86400"]],
            "UserAuthentication": ["Policy": "none"],
            // The agents of the other sizes wait while one size is set up or measured.
            "AgentIdleTimeoutSeconds": 3600,
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try "\(Self.masterPassword)\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        try "\(Self.masterPassword)\n\(Self.masterPassword)\n".write(toFile: "\(root)/password-twice.txt", atomically: true, encoding: .utf8)
        try "secret \(Self.masterPassword)\n".write(toFile: unlockScript, atomically: true, encoding: .utf8)
        try LoginGenerator.bitwardenCSV(logins).write(toFile: "\(root)/bitwarden.csv", atomically: true, encoding: .utf8)
    }

    /// `autofill ARGUMENTS` in this home (through its agent unless `agent` is false: `AUTOFILL_AGENT=off`).
    func autofill(_ arguments: [String], agent: Bool = true) -> Subprocess {
        Subprocess(path: "\(bin)/autofill", arguments: arguments, environment: environment + (agent ? [] : ["AUTOFILL_AGENT=off"]))
    }

    /// `autofill fill` of `login`'s page and user.
    func fill(_ login: GeneratedLogin, agent: Bool = true) -> Subprocess {
        autofill(["fill", login.uri, "--user", login.user] + (agent ? [] : ["--ui-script", unlockScript]), agent: agent)
    }

    /// `keepassxc-cli show` of `login`'s entry, its password only, the master password on standard input.
    func keePassShow(_ login: GeneratedLogin, keepassxc: String) -> Subprocess {
        Subprocess(path: keepassxc, arguments: ["show", "-q", "-s", "-a", "Password", keePassDatabase, login.title],
                   environment: environment, input: passwordFile)
    }

    /// Trusts and syncs the Vault, creates and imports the vault, unlocks it in a new agent (which
    /// writes its identities) and checks every target fills through the agent.
    func setUpVault() throws {
        try check(autofill(["providers", "trust", "org.autofill.vault"]), "trusting the Vault sample")
        try check(autofill(["providers", "sync"]), "syncing the providers")
        let vaultTool = "\(bin)/autofill-vault"
        try check(Subprocess(path: vaultTool, arguments: ["create", "--vault", vault, "--password-stdin"],
                             environment: environment, input: passwordFile), "creating the vault")
        vaultImportSeconds = try check(Subprocess(path: vaultTool, arguments: ["import", "--vault", vault, "--password-stdin", "\(root)/bitwarden.csv"],
                                                  environment: environment, input: passwordFile), "importing \(count) logins").elapsed.milliseconds / 1000
        unlockSeconds = try unlock().milliseconds / 1000
        for target in targets {
            let filled = try fill(target).run(captureOutput: true, errorFile: "\(root)/check.err")
            guard filled.status == 0, filled.output == target.password + "\n" else {
                throw BenchmarkError("autofill fill \(target.uri) --user \(target.user) (\(count) entries) gave status \(filled.status), "
                    + "\(filled.output.isEmpty ? "no" : "another") password: \(errors("check.err"))")
            }
        }
        // Through the agent, not in this process: -v says when a command runs here instead.
        _ = try autofill(["fill", targets[0].uri, "--user", targets[0].user, "-v"]).run(errorFile: "\(root)/verbose.err")
        let said = (try? String(contentsOfFile: "\(root)/verbose.err", encoding: .utf8)) ?? ""
        guard !said.contains("running in this process") else { throw BenchmarkError("autofill fill ran without the agent: \(errors("verbose.err"))") }
    }

    /// Unlocks the vault in the agent (`autofill unlock org.autofill.vault --ui-script`), starting
    /// one if none runs; how long it took.
    @discardableResult
    func unlock() throws -> Duration {
        try check(autofill(["unlock", "org.autofill.vault", "--ui-script", unlockScript]), "unlocking the vault in the agent").elapsed
    }

    /// Imports the logins into a new KeePass database (password on stdin, twice) and checks every target shows.
    func setUpKeePass(keepassxc: String) throws -> String {
        try LoginGenerator.keePassXML(logins).write(toFile: "\(root)/keepass.xml", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: "\(root)/keepass", withIntermediateDirectories: true)
        keePassImportSeconds = try check(Subprocess(path: keepassxc, arguments: ["import", "-q", "-p", "\(root)/keepass.xml", keePassDatabase],
                                                    environment: environment, input: "\(root)/password-twice.txt"),
                                         "keepassxc-cli import of \(count) entries").elapsed.milliseconds / 1000
        for target in targets.prefix(1) {
            let shown = try keePassShow(target, keepassxc: keepassxc).run(captureOutput: true, errorFile: "\(root)/check.err")
            guard shown.status == 0, shown.output == target.password + "\n" else {
                throw BenchmarkError("keepassxc-cli show \"\(target.title)\" gave status \(shown.status): \(errors("check.err"))")
            }
        }
        let info = try Subprocess(path: keepassxc, arguments: ["db-info", "-q", keePassDatabase], environment: environment, input: passwordFile)
            .run(captureOutput: true)
        return info.output.split(separator: "\n").first { $0.hasPrefix("KDF:") }.map { $0.dropFirst(4).trimmingCharacters(in: .whitespaces) } ?? "?"
    }

    /// `autofill agent status --json`: the agent's pid and its Vault helper's, or nil when none runs.
    func agentStatus() throws -> (agent: Int32, helper: Int32?)? {
        let outcome = try autofill(["agent", "status", "--json"]).run(captureOutput: true)
        guard outcome.status == 0, let object = try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any],
              let pid = object["pid"] as? Int else { return nil }
        let helper = (object["providers"] as? [[String: Any]])?.first { $0["id"] as? String == "org.autofill.vault" }?["helperPID"] as? Int
        return (Int32(pid), helper.map(Int32.init))
    }

    /// Stops this home's agent, if one runs (best effort: for the end of the run).
    func stopAgent() {
        _ = try? autofill(["agent", "stop"]).run()
    }

    /// Runs `process` and fails with its stderr unless it exits 0.
    @discardableResult
    func check(_ process: Subprocess, _ what: String) throws -> Subprocess.Outcome {
        let outcome = try process.run(errorFile: "\(root)/setup.err")
        guard outcome.status == 0 else { throw BenchmarkError("\(what) failed (status \(outcome.status)): \(errors("setup.err"))") }
        return outcome
    }

    /// The last lines of an error file in this home.
    func errors(_ name: String) -> String {
        let text = (try? String(contentsOfFile: "\(root)/\(name)", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(4).joined(separator: " | ")
    }
}

/// A process's resident memory now and at its peak (`VmRSS`, `VmHWM` in /proc/PID/status), in megabytes.
func residentMemory(of pid: Int32) -> (now: Double, peak: Double)? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    func field(_ name: String) -> Double? {
        status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
            .flatMap { Double($0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") }
            .map { $0 / 1024 }
    }
    guard let now = field("VmRSS"), let peak = field("VmHWM") else { return nil }
    return (now, peak)
}

/// Whether process `pid` exists and has not ended (a zombie has ended).
func processIsRunning(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
    return !stat[close...].hasPrefix(") Z")
}
