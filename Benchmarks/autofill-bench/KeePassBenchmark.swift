internal import Foundation
internal import Glibc

/// The KeePassXC provider's figures, on a database of 10,000 logins that `keepassxc-cli import` made
/// (KeePassXC's default AES-KDF rounds), in the same run as `keepassxc-cli`:
///
/// 1. unlock: `autofill unlock org.autofill.keepassxc` in its own process (`AUTOFILL_AGENT=off`: the
///    helper starts, derives the key, decrypts and parses the database, publishes every identity)
///    against `keepassxc-cli open` of the same database (derive, decrypt, parse; the shell then ends
///    at the end of its input);
/// 2. a fill with the agent warm (unlocked once, the helper kept): `autofill fill` of one login,
///    whole process, against `keepassxc-cli show` of the same entry (which pays the KDF every time)
///    and `/bin/true`, interleaved.
struct KeePassBenchmark {
    let bin: String
    let runs: Int
    static let entries = 10_000
    static let unlockRuns = 5

    func run() throws -> String {
        guard let keepassxc = Subprocess.find("keepassxc-cli") else {
            throw BenchmarkError("keepassxc-cli is missing (Debian package keepassxc; `Scripts/bootstrap bench` installs it)")
        }
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("autofill-kp-bench-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let plugins = "\(repositoryRoot)/.build/plugins"
        let home = try AgentHome(count: Self.entries, parent: parent, bin: bin, plugins: plugins, seed: 0x4B44_4258)
        progress("keepass: keepassxc-cli import of \(Self.entries) entries")
        let kdf = try home.setUpKeePass(keepassxc: keepassxc)
        let plist: [String: Any] = [
            "PluginSearchPaths": [plugins], "EnabledProviders": ["org.autofill.keepassxc"],
            "ProviderSettings": ["org.autofill.keepassxc": ["DatabaseFile": home.keePassDatabase, "UnlockTimeoutSeconds": "86400"]],
            "UserAuthentication": ["Policy": "none"], "AgentIdleTimeoutSeconds": 3600,
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: home.config))
        for arguments in [["providers", "trust", "org.autofill.keepassxc"], ["providers", "sync"]] {
            guard try home.autofill(arguments).run(keepStderr: true).status == 0 else { throw BenchmarkError("autofill \(arguments.joined(separator: " ")) failed") }
        }
        defer { _ = try? home.autofill(["agent", "stop"]).run() }
        waitUntilPluginsSettle(in: plugins)

        progress("keepass: \(Self.unlockRuns) unlocks each, autofill and keepassxc-cli open")
        let unlock = home.autofill(["unlock", "org.autofill.keepassxc", "--ui-script", home.unlockScript], agent: false)
        let open = Subprocess(path: keepassxc, arguments: ["open", "-q", home.keePassDatabase], environment: home.environment, input: home.passwordFile)
        var unlocks: [Duration] = [], opens: [Duration] = []
        for _ in 0..<Self.unlockRuns {
            let outcome = try unlock.run(keepStderr: true)
            guard outcome.status == 0 else { throw BenchmarkError("autofill unlock failed (status \(outcome.status))") }
            unlocks.append(outcome.elapsed)
            opens.append(try open.run().elapsed)
        }

        // The agent, unlocked once; then every fill is served from the helper's memory.
        guard try home.autofill(["unlock", "org.autofill.keepassxc", "--ui-script", home.unlockScript]).run(keepStderr: true).status == 0 else {
            throw BenchmarkError("autofill unlock through the agent failed")
        }
        let target = home.targets[2]
        let fill = home.fill(target)
        let show = home.keePassShow(target, keepassxc: keepassxc)
        for (name, program) in [("autofill fill", fill), ("keepassxc-cli show", show)] {
            let check = try program.run(captureOutput: true, keepStderr: true)
            guard check.status == 0, check.output == target.password + "\n" else {
                throw BenchmarkError("\(name) did not print the password of \"\(target.title)\" (status \(check.status))")
            }
        }
        progress("keepass: \(runs) rounds of autofill fill (agent), keepassxc-cli show, /bin/true")
        let floor = Subprocess(path: "/bin/true", arguments: [], environment: home.environment)
        var fills: [Duration] = [], shows: [Duration] = [], floors: [Duration] = []
        for _ in 0..<runs {  // interleaved, so drift hits all three alike
            fills.append(try fill.run().elapsed)
            shows.append(try show.run().elapsed)
            floors.append(try floor.run().elapsed)
        }
        let u = Samples(unlocks), o = Samples(opens), f = Samples(fills), s = Samples(shows), t = Samples(floors)
        func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
        return """
            KeePassXC: a database of \(Self.entries) logins made by keepassxc-cli import (KDF: \(kdf))
              unlock: autofill unlock, own process      median \(ms(u.median))  (\(Self.unlockRuns) runs; KDF, decrypt, parse, publish)
              peer: keepassxc-cli open                  median \(ms(o.median))  (\(Self.unlockRuns) runs)
              fill, agent warm: autofill fill           median \(ms(f.median))  p90 \(ms(f.p90))  (\(runs) runs)
              peer: keepassxc-cli show                  median \(ms(s.median))  p90 \(ms(s.p90))
              peer: /bin/true                           median \(ms(t.median))
            """
    }
}
