import AutofillTestSupport
import Foundation
import Testing

/// A provider answering the user is busy, not hung (docs/AGENT.md, "Turns"): while one client types
/// the Vault's master password at its prompt, another client's fill of the same provider waits for
/// its turn (or is told the Vault is busy), nobody's deadline kills the Vault mid-prompt, no fault is
/// recorded, and the user's unlock goes through. Through the agent only: without it each command has
/// a Vault of its own.
@Suite(.enabled(if: CLI.usesAgent))
struct BusyProviderTests {
    let home: TemporaryHome
    static let master = "correct horse battery staple"

    init() throws {
        home = try TemporaryHome()
        // The agent holds the user's policy; these requests ask for none, so the user's does too.
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        let vaultFile = try home.demoVault()
        // The other client's no-UI deadline: short (it is told "busy"), or long (it waits for the unlock).
        for (name, deadline) in [("short", 2), ("long", 120)] {
            let plist: [String: Any] = [
                "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.vault"],
                "ProviderSettings": ["org.autofill.vault": ["VaultFile": vaultFile]],
                "UserAuthentication": ["Policy": "none"], "NoUIDeadlineSeconds": deadline,
            ]
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
                .write(to: URL(fileURLWithPath: "\(home.path)/\(name).plist"))
        }
        try home.trust(["org.autofill.vault"], config: "\(home.path)/short.plist")
        // What the Vault publishes when it is unlocked: alice at example.com.
        let file = try home.file("alice.json", #"{ "identities": [ { "kind": "password", "serviceIdentifier": { "identifier": "example.com", "type": "domain" }, "user": "alice" } ] }"#)
        let saved = try CLI.run(["identities", "save", "--provider", "org.autofill.vault", "--file", file, "--config", "\(home.path)/short.plist"],
                                home: home.path)
        #expect(saved.status == 0, "\(saved.stderr)")
    }

    func fill(_ config: String) throws -> ChildProcess.Running {
        try ChildProcess.start(CLI.binary, ["fill", "example.com", "--user", "alice", "--config", "\(home.path)/\(config).plist"],
                               environment: CLI.environment(home: home.path))
    }

    /// `autofill unlock org.autofill.vault` in a real terminal, waiting at the Vault's prompt; its output file.
    func unlockAtTerminal(_ config: String) throws -> (TmuxSession, output: String) {
        let output = "\(home.path)/unlock-\(UUID().uuidString).txt"
        let session = try TmuxSession(
            "\(CLI.shellEnvironment(home: home.path)) \(CLI.binary) unlock org.autofill.vault --config \(home.path)/\(config).plist > \(output) 2>&1; echo EXIT=$? >> \(output)")
        try session.waitFor("Enter the master password", timeout: 60)
        return (session, output)
    }

    /// The faults recorded for any provider (the ledger's text), empty when none.
    var faults: String {
        (try? String(contentsOfFile: "\(home.path)/.local/state/autofill/faults.json", encoding: .utf8)) ?? ""
    }

    @Test func anotherClientIsToldTheVaultIsBusyAndThePromptSurvives() throws {
        let (session, output) = try unlockAtTerminal("short")
        // Several rounds: three kills would have quarantined the Vault.
        for _ in 0..<3 {
            let other = try fill("short").wait()
            #expect(other.status != 0 && other.stdout.isEmpty)
            #expect(other.stderr.contains("Vault is busy with another request that may be asking the user something"), "\(other.stderr)")
            #expect(other.stderr.contains("after waiting 2 s this request was not sent to it"), "\(other.stderr)")
        }
        #expect(try session.screen().contains("Enter the master password"), "the prompt is still there")
        try session.send("-l", Self.master)
        try session.send("Enter")
        let unlocked = try CLI.waitForFile(output, containing: "EXIT=")
        #expect(unlocked.hasSuffix("EXIT=0\n"), "\(unlocked)")
        #expect(!faults.contains("org.autofill.vault"), "no fault recorded: \(faults)")
        let listed = try CLI.run(["providers", "list", "--config", "\(home.path)/short.plist"], home: home.path)
        #expect(!listed.stdout.contains("quarantined"), "\(listed.stdout)")
        // Its turn now: the Vault the user unlocked answers.
        let after = try fill("short").wait()
        #expect(after.status == 0 && after.stdout == "alice-demo-password\n", "\(after.stderr)")
    }

    @Test func anotherClientWaitsForTheUnlockAndGetsItsAnswerAfterwards() throws {
        let (session, output) = try unlockAtTerminal("long")
        let other = try fill("long")
        // Time for the other fill to reach the agent and wait for its turn.
        Thread.sleep(forTimeInterval: 3)
        #expect(other.isRunning, "it waits for its turn")
        try session.send("-l", Self.master)
        try session.send("Enter")
        #expect(try CLI.waitForFile(output, containing: "EXIT=").hasSuffix("EXIT=0\n"))
        let answered = other.wait()
        #expect(answered.status == 0 && answered.stdout == "alice-demo-password\n", "\(answered.stderr)")
        #expect(!faults.contains("org.autofill.vault"), "no fault recorded: \(faults)")
    }
}
