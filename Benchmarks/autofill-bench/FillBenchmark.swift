internal import Foundation
internal import Glibc

/// Issue C's figure: `autofill fill` end to end, whole process, with an unlocked vault (aim: median
/// ≤ 40 ms), against `autofill suggest` for the same site (the suggestion part alone) and
/// `/bin/true` (the process floor), measured in the same run.
///
/// Setup, in a temporary home: the demo configuration (three providers), the demo vault unlocked in
/// the agent (`autofill unlock org.autofill.vault --ui-script`, which also writes its identities),
/// the `none` authentication policy (a benchmark cannot answer a prompt). Each fill goes through the
/// agent, which keeps the Vault's helper running and unlocked: it asks the Vault without UI and
/// prints the password. The agent is stopped at the end.
struct FillBenchmark {
    let autofill: String
    let runs: Int

    func run() throws -> String {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("autofill-fill-bench-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let runtime = "\(home)/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let config = "\(home)/config.plist"
        // In a folder of its own: the Vault's sandbox may change files in its vault's folder (docs/SANDBOX.md).
        let vault = "\(home)/vault/vault.afvault"
        try FileManager.default.createDirectory(atPath: "\(home)/vault", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/Config/demo/vault/vault.afvault", toPath: vault)
        let plist: [String: Any] = [
            "PluginSearchPaths": ["\(repositoryRoot)/.build/plugins"],
            "EnabledProviders": ["org.autofill.vault", "org.autofill.netrc", "org.autofill.authenticator"],
            "ProviderSettings": [
                "org.autofill.vault": ["VaultFile": vault],
                "org.autofill.netrc": ["NetrcFile": "\(repositoryRoot)/Config/demo/netrc/netrc"],
                "org.autofill.authenticator": ["OTPAuthFile": "\(repositoryRoot)/Config/demo/authenticator/otpauth.txt"],
            ],
            "UserAuthentication": ["Policy": "none"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        let environment = ["HOME=\(home)", "XDG_CONFIG_HOME=\(home)/.config", "XDG_DATA_HOME=\(home)/.local/share",
                           "XDG_RUNTIME_DIR=\(runtime)", "AUTOFILL_CONFIG=\(config)", "PATH=/usr/bin:/bin"]

        // The configuration lists the samples by hand: approve their files first, as a user would.
        try shell("\(autofill) providers trust org.autofill.vault org.autofill.netrc org.autofill.authenticator", environment)
        try shell("\(autofill) providers sync", environment)
        let unlockScript = "\(home)/unlock.ui"
        try "secret correct horse battery staple\n".write(toFile: unlockScript, atomically: true, encoding: .utf8)
        defer { _ = try? Subprocess(path: autofill, arguments: ["agent", "stop"], environment: environment).run() }
        try shell("\(autofill) unlock org.autofill.vault --ui-script \(unlockScript)", environment)

        waitUntilPluginsSettle(in: "\(repositoryRoot)/.build/plugins")
        let fill = Subprocess(path: autofill, arguments: ["fill", "https://www.example.com/login", "--user", "alice"], environment: environment)
        let check = try fill.run(captureOutput: true, keepStderr: true)
        guard check.status == 0, check.output == "alice-demo-password\n" else {
            throw BenchmarkError("the fill did not print alice's password (status \(check.status)); is the vault unlocked in the agent?")
        }
        let suggest = Subprocess(path: autofill, arguments: ["suggest", "https://www.example.com/login"], environment: environment)
        let floor = Subprocess(path: "/bin/true", arguments: [], environment: environment)
        var fills: [Duration] = [], suggests: [Duration] = [], floors: [Duration] = []
        for _ in 0..<runs {  // interleaved, so drift hits all three alike
            fills.append(try fill.run().elapsed)
            suggests.append(try suggest.run().elapsed)
            floors.append(try floor.run().elapsed)
        }
        let f = Samples(fills), s = Samples(suggests), t = Samples(floors)
        func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
        return """
            Fill end to end, whole process, through the agent, vault unlocked (\(runs) runs each, interleaved)
              autofill fill (aim: median ≤ 40 ms)   median \(ms(f.median))  p90 \(ms(f.p90))  \(f.median <= 40 ? "met" : "NOT met")
              peer: autofill suggest                median \(ms(s.median))  p90 \(ms(s.p90))  (fill / suggest = \(String(format: "%.2f", f.median / s.median))×)
              peer: /bin/true                       median \(ms(t.median))  (fill / floor = \(String(format: "%.1f", f.median / t.median))×)
              the fill's own cost over suggest: \(ms(f.median - s.median)) (admission, the no-UI request to the running Vault)
            """
    }

    private func shell(_ command: String, _ environment: [String]) throws {
        let outcome = try Subprocess(path: "/bin/sh", arguments: ["-c", command], environment: environment).run(keepStderr: true)
        guard outcome.status == 0 else { throw BenchmarkError("setup failed (\(outcome.status)): \(command)") }
    }
}
