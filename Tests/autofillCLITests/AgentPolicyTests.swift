import AutofillTestSupport
import Foundation
import Testing

/// The agent holds the user's authentication policy, not the request's (docs/AGENT.md, "Whose
/// policy"): a copy of the user's configuration with a weaker policy, named by `--config` or
/// `$AUTOFILL_CONFIG`, gets nothing from the Vault the user unlocked; a stronger one gets what it asks;
/// a provider never answers below the strongest policy it served. And `providers disable` and
/// `providers set` end the provider's helper in the agent. Through the real CLI, agent and Vault, with
/// the tests' PAM services (`autofill-deny`: pam_deny; `autofill-permit`: pam_permit).
@Suite(.enabled(if: CLI.usesAgent))
struct AgentPolicyTests {
    let home: TemporaryHome
    let pam: String
    static let master = "correct horse battery staple"
    static let alice = "alice-demo-password"

    /// The Vault (a private copy of the demo vault: alice and bob at example.com), approved, and a
    /// PAM folder of the tests' own; no configuration yet.
    init() throws {
        home = try TemporaryHome()
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        _ = try home.demoVault()
        pam = try home.pamFolder()
    }

    /// A configuration enabling the Vault alone with `policy`, all paths absolute (the same helper
    /// whatever folder the file is in): at the user's own path when `name` is nil.
    @discardableResult
    func configuration(_ name: String?, policy: [String: String]) throws -> String {
        let plist: [String: Any] = [
            "PluginSearchPaths": ["\(home.path)/plugins"], "EnabledProviders": ["org.autofill.vault"],
            "ProviderSettings": ["org.autofill.vault": ["VaultFile": "\(home.path)/vault/vault.afvault"]],
            "UserAuthentication": policy,
        ]
        guard let name else { return try home.userConfiguration(plist) }
        let path = "\(home.path)/\(name).plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
        return path
    }

    func pam(_ service: String) -> [String: String] {
        ["Policy": "pam", "PAMService": service, "PAMConfigurationDirectory": pam]
    }

    /// `autofill ARGS` (with `--config NAME.plist` unless `name` is nil: the user's own configuration).
    func autofill(_ arguments: [String], config name: String? = nil, environment: [String: String] = [:], script: String? = nil) throws -> CLI.Result {
        var extra: [String] = []
        if let name { extra += ["--config", "\(home.path)/\(name).plist"] }
        if let script { extra += ["--ui-script", try home.file("script-\(UUID().uuidString).txt", script)] }
        return try CLI.run(arguments + extra, home: home.path, environment: environment)
    }

    /// Approves the Vault and unlocks it in the agent under configuration `name` (nil: the user's).
    func unlockVault(config name: String? = nil) throws {
        try home.trust(["org.autofill.vault"], config: name.map { "\(home.path)/\($0).plist" } ?? "\(home.path)/.config/autofill/config.plist")
        let unlocked = try autofill(["unlock", "org.autofill.vault"], config: name, script: "secret \(Self.master)\n")
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
    }

    /// The helper pid of each provider the agent runs (`agent status --json`), and the policy it holds.
    func status() throws -> (helpers: [String: Int32], policy: String?) {
        let result = try CLI.run(["agent", "status", "--json"], home: home.path)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        var helpers: [String: Int32] = [:]
        for provider in object["providers"] as? [[String: Any]] ?? [] {
            if let id = provider["id"] as? String, let pid = provider["helperPID"] as? Int { helpers[id] = Int32(pid) }
        }
        return (helpers, object["userAuthentication"] as? String)
    }

    // MARK: A request cannot weaken the user's policy

    @Test func aCopyOfTheUsersConfigurationWithAWeakerPolicyGetsNothingFromTheUnlockedVault() throws {
        try configuration(nil, policy: pam("autofill-deny"))  // the user's: PAM refuses everyone
        try configuration("evil", policy: ["Policy": "none"])
        try configuration("evil-confirm", policy: ["Policy": "confirm"])
        try configuration("evil-pam", policy: pam("autofill-permit"))  // pam, but a service that accepts anyone
        try unlockVault()
        #expect(try status().policy == "pam")

        for (arguments, environment) in [
            (["--config", "\(home.path)/evil.plist"], [String: String]()),
            ([], ["AUTOFILL_CONFIG": "\(home.path)/evil.plist"]),
            (["--config", "\(home.path)/evil-confirm.plist"], [:]),
        ] {
            let result = try CLI.run(["fill", "example.com", "--user", "alice"] + arguments, home: home.path, environment: environment)
            #expect(result.status == 77, "\(arguments) \(environment): \(result.stderr)")
            #expect(result.stdout.isEmpty, "printed a secret")
            #expect(!result.stderr.contains(Self.alice))
            #expect(result.stderr.contains("weaker than the policy the agent holds: pam"), "\(result.stderr)")
            #expect(result.stderr.contains("takes effect when the agent restarts"), "\(result.stderr)")
        }
        let permit = try autofill(["fill", "example.com", "--user", "alice"], config: "evil-pam")
        #expect(permit.status == 77, "\(permit.stderr)")
        #expect(permit.stdout.isEmpty)
        #expect(permit.stderr.contains("which counts as none"), "\(permit.stderr)")
        // Nor can it unlock, suggest or run anything else under the weaker policy.
        #expect(try autofill(["text", "--provider", "org.autofill.vault"], config: "evil", script: "choose 1\n").status == 77)

        // The control: the same fill under the user's own configuration reaches PAM, which refuses. The
        // Vault answered without asking its master password: it is unlocked, and only the policy stood between.
        let control = try autofill(["fill", "example.com", "--user", "alice"])
        #expect(control.status == 22, "\(control.stderr)")
        #expect(control.stdout.isEmpty)
        #expect(control.stderr.contains("you were not authenticated"), "\(control.stderr)")
    }

    @Test func aRequestMayAskForAStrongerPolicyAndGetsWhatThatPolicySays() throws {
        // The user's policy is confirm; their PAM service (the one that counts as pam) accepts.
        try configuration(nil, policy: ["Policy": "confirm", "PAMService": "autofill-permit", "PAMConfigurationDirectory": pam])
        try configuration("strong", policy: pam("autofill-permit"))
        try configuration("deny", policy: pam("autofill-deny"))
        try unlockVault()
        #expect(try status().policy == "confirm")

        // Control: the user's own confirm needs the terminal, which this command has not.
        let confirm = try autofill(["fill", "example.com", "--user", "alice"])
        #expect(confirm.status == 21, "\(confirm.stderr)")
        #expect(confirm.stdout.isEmpty)

        let strong = try autofill(["fill", "example.com", "--user", "alice", "--json"], config: "strong")
        #expect(strong.status == 0, "\(strong.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(strong.stdout.utf8)) as? [String: Any]
        #expect(object?["password"] as? String == Self.alice)
        #expect((object?["authentication"] as? [String: Any])?["method"] as? String == "pam")

        // Another PAM service is not the user's: it may accept anyone, so it counts as none, below confirm.
        let deny = try autofill(["fill", "example.com", "--user", "alice"], config: "deny")
        #expect(deny.status == 77, "\(deny.stderr)")
        #expect(deny.stdout.isEmpty)
    }

    @Test func aUserConfigurationTheAgentCannotUseMakesItHoldPAM() throws {
        // A misspelt key makes the user's file invalid: the agent holds pam (the safe side), not none.
        let user = try configuration(nil, policy: ["Policy": "none", "PAMServce": "x"])
        try configuration("none", policy: ["Policy": "none"])
        try home.trust(["org.autofill.vault"], config: "\(home.path)/none.plist")
        let refused = try autofill(["fill", "example.com", "--user", "alice"], config: "none")
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("the safe default (your configuration \(user) cannot be used)"), "\(refused.stderr)")
        #expect(try status().policy == "pam")
    }

    // MARK: A provider never answers below what it served

    @Test func aVaultUnlockedUnderPAMNeverAnswersAWeakerRequestEvenWhenTheUserHoldsNone() throws {
        try configuration(nil, policy: ["Policy": "none", "PAMService": "autofill-permit", "PAMConfigurationDirectory": pam])
        try configuration("none", policy: ["Policy": "none"])
        try configuration("pam", policy: pam("autofill-permit"))
        try unlockVault(config: "pam")

        let weaker = try autofill(["fill", "example.com", "--user", "alice"], config: "none")
        #expect(weaker.status == 77, "\(weaker.stderr)")
        #expect(weaker.stdout.isEmpty, "printed a secret")
        #expect(weaker.stderr.contains("has served requests under pam"), "\(weaker.stderr)")
        // The user's own configuration asks none too: the same.
        #expect(try autofill(["fill", "example.com", "--user", "alice"]).status == 77)

        // Control: under pam it answers.
        let strong = try autofill(["fill", "example.com", "--user", "alice"], config: "pam")
        #expect(strong.status == 0, "\(strong.stderr)")
        #expect(strong.stdout == Self.alice + "\n")

        // Locked, it starts afresh under the next request: locked, so it needs its master password again.
        #expect(try autofill(["lock", "org.autofill.vault"]).status == 0)
        let relaunched = try autofill(["fill", "example.com", "--user", "alice"], config: "none")
        #expect(relaunched.status != 0 && relaunched.status != 77, "\(relaunched.stderr)")
        #expect(relaunched.stdout.isEmpty)
        let unlocked = try autofill(["fill", "example.com", "--user", "alice"], config: "none", script: "secret \(Self.master)\n")
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        #expect(unlocked.stdout == Self.alice + "\n")
    }

    // MARK: providers disable and set end the provider's helper

    @Test func providersDisableEndsTheProvidersHelperAndWhatItUnlocked() throws {
        let config = try configuration("mine", policy: ["Policy": "none"])
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        try unlockVault(config: "mine")
        let helper = try #require(try status().helpers["org.autofill.vault"])

        // providers set: the helper ends, so the next request launches it with the new setting.
        let set = try CLI.run(["providers", "set", "org.autofill.vault", "UnlockTimeoutSeconds", "600", "--config", config], home: home.path)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("Locked org.autofill.vault."), "\(set.stdout)")
        #expect(waitUntil { !ProcessTable.isRunning(helper) }, "the helper ended")
        #expect(try status().helpers["org.autofill.vault"] == nil)
        let locked = try autofill(["fill", "example.com", "--user", "alice"], config: "mine")
        #expect(locked.status != 0 && locked.stdout.isEmpty, "what it unlocked ended with it: \(locked.stderr)")

        let unlocked = try autofill(["unlock", "org.autofill.vault"], config: "mine", script: "secret \(Self.master)\n")
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let again = try #require(try status().helpers["org.autofill.vault"])

        let disabled = try CLI.run(["providers", "disable", "org.autofill.vault", "--config", config], home: home.path)
        #expect(disabled.status == 0, "\(disabled.stderr)")
        #expect(disabled.stdout.contains("Locked org.autofill.vault."), "\(disabled.stdout)")
        #expect(waitUntil { !ProcessTable.isRunning(again) }, "the helper ended")
        #expect(try status().helpers.isEmpty)
        let fill = try autofill(["fill", "example.com", "--list", "--provider", "org.autofill.vault"], config: "mine", script: "choose 1\n")
        #expect(fill.status != 0, "\(fill.stdout)")
        #expect(fill.stdout.isEmpty)
        #expect(fill.stderr.contains("org.autofill.vault is not an enabled provider"), "\(fill.stderr)")
        #expect(try status().helpers.isEmpty, "nothing launched it again")

        // With no agent running there is nothing to end, and nothing is said about it.
        #expect(try CLI.run(["agent", "stop"], home: home.path).status == 0)
        let quiet = try CLI.run(["providers", "set", "org.autofill.vault", "UnlockTimeoutSeconds", "300", "--config", config], home: home.path)
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(!quiet.stdout.contains("Locked") && !quiet.stderr.contains("agent"), "\(quiet.stdout)\(quiet.stderr)")
    }
}
