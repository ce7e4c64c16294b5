internal import Foundation
internal import Glibc

/// Saving into the KeePassXC provider's database against `keepassxc-cli`, on two copies of the same
/// database of 10,000 logins `keepassxc-cli import` made (KeePassXC's default AES-KDF rounds), one
/// each (another program's save into the provider's file makes its next save a changed-on-disk
/// refusal: docs/SANDBOX.md, "replace-file"), interleaved so drift hits both alike:
///
/// 1. a new login: `autofill save URL --user U` (the password on standard input; the agent warm,
///    the database unlocked once) against `keepassxc-cli add -p -u U --url URL DB TITLE` (the master
///    password and the entry's on standard input);
/// 2. a new password for a stored login: `autofill save` of a stored login's site and user against
///    `keepassxc-cli edit -p DB TITLE` of the same entry (each run a password other than the last).
///
/// Both read the whole file, derive the key (autofill twice: the read and the new seed), rewrite it
/// and replace it; each side grows its copy by one entry a round in part 1.
struct KeePassSaveBenchmark {
    let bin: String
    let runs: Int
    static let entries = 10_000

    func run() throws -> String {
        guard let keepassxc = Subprocess.find("keepassxc-cli") else {
            throw BenchmarkError("keepassxc-cli is missing (Debian package keepassxc; `Scripts/bootstrap bench` installs it)")
        }
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("autofill-kp-save-bench-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let plugins = "\(repositoryRoot)/.build/plugins"
        let home = try AgentHome(count: Self.entries, parent: parent, bin: bin, plugins: plugins, seed: 0x4B44_4258)
        progress("keepass save: keepassxc-cli import of \(Self.entries) entries")
        let kdf = try home.setUpKeePass(keepassxc: keepassxc)
        let peer = "\(home.root)/keepass/peer.kdbx"
        try FileManager.default.copyItem(atPath: home.keePassDatabase, toPath: peer)
        let plist: [String: Any] = [
            "PluginSearchPaths": [plugins], "EnabledProviders": ["org.autofill.keepassxc"],
            "ProviderSettings": ["org.autofill.keepassxc": ["WritableDatabaseFile": home.keePassDatabase, "UnlockTimeoutSeconds": "86400"]],
            "UserAuthentication": ["Policy": "none"], "AgentIdleTimeoutSeconds": 3600,
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: home.config))
        // home.config is the user's own configuration ($XDG_CONFIG_HOME/autofill/config.plist): its `none`
        // policy is the one the agent holds (docs/AGENT.md, "Whose policy"); writing it again would drop the provider.
        for arguments in [["providers", "trust", "org.autofill.keepassxc"], ["providers", "sync"]] {
            guard try home.autofill(arguments).run(keepStderr: true).status == 0 else { throw BenchmarkError("autofill \(arguments.joined(separator: " ")) failed") }
        }
        defer { _ = try? home.autofill(["agent", "stop"]).run() }
        waitUntilPluginsSettle(in: plugins)
        guard try home.autofill(["unlock", "org.autofill.keepassxc", "--ui-script", home.unlockScript]).run(keepStderr: true).status == 0 else {
            throw BenchmarkError("autofill unlock through the agent failed")
        }
        // Standard input: the entry's password (autofill); the master password, then the entry's (keepassxc-cli).
        var inputs: [String] = []
        for name in ["a", "b"] {
            let entry = "\(home.root)/entry-\(name).txt", both = "\(home.root)/master-entry-\(name).txt"
            try "saved-\(name)-password\n".write(toFile: entry, atomically: true, encoding: .utf8)
            try "\(AgentHome.masterPassword)\nsaved-\(name)-password\n".write(toFile: both, atomically: true, encoding: .utf8)
            inputs += [entry, both]
        }

        progress("keepass save: \(runs) rounds of autofill save and keepassxc-cli add (new logins)")
        var saves: [Duration] = [], adds: [Duration] = []
        for round in 0..<runs {
            let site = "https://save-\(round).bench.example/login"
            saves.append(try timed(withInput(home.autofill(["save", site, "--user", "autofill-\(round)"]), inputs[0]), "autofill save"))
            adds.append(try timed(Subprocess(path: keepassxc, arguments: ["add", "-q", "-p", "-u", "cli-\(round)", "--url", site, peer, "cli \(round)"],
                                             environment: home.environment, input: inputs[1]), "keepassxc-cli add"))
        }
        progress("keepass save: \(runs) rounds of autofill save and keepassxc-cli edit -p (new passwords)")
        let target = home.targets[2]
        var updates: [Duration] = [], edits: [Duration] = []
        for round in 0..<runs {
            let (entry, both) = round % 2 == 0 ? (inputs[0], inputs[1]) : (inputs[2], inputs[3])
            updates.append(try timed(withInput(home.autofill(["save", target.uri, "--user", target.user]), entry), "autofill save (update)"))
            edits.append(try timed(Subprocess(path: keepassxc, arguments: ["edit", "-q", "-p", peer, target.title],
                                              environment: home.environment, input: both), "keepassxc-cli edit"))
        }
        let shown = try home.keePassShow(target, keepassxc: keepassxc).run(captureOutput: true)
        guard shown.output == "saved-\(runs % 2 == 0 ? "b" : "a")-password\n" else {
            throw BenchmarkError("keepassxc-cli show did not read the last password saved (status \(shown.status))")
        }
        let s = Samples(saves), a = Samples(adds), u = Samples(updates), e = Samples(edits)
        func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
        return """
            KeePassXC saving: a database of \(Self.entries) logins made by keepassxc-cli import (KDF: \(kdf)), \(runs) rounds each
              new login: autofill save                  median \(ms(s.median))  p99 \(ms(s.p99))
              peer: keepassxc-cli add                   median \(ms(a.median))  p99 \(ms(a.p99))  (add ÷ save \(String(format: "%.2f", a.median / s.median))×)
              new password: autofill save               median \(ms(u.median))  p99 \(ms(u.p99))
              peer: keepassxc-cli edit -p               median \(ms(e.median))  p99 \(ms(e.p99))  (edit ÷ save \(String(format: "%.2f", e.median / u.median))×)
            """
    }

    private func withInput(_ program: Subprocess, _ file: String) -> Subprocess {
        var program = program
        program.input = file
        return program
    }

    private func timed(_ program: Subprocess, _ name: String) throws -> Duration {
        let outcome = try program.run(keepStderr: true)
        guard outcome.status == 0 else { throw BenchmarkError("\(name) failed (status \(outcome.status))") }
        return outcome.elapsed
    }
}
