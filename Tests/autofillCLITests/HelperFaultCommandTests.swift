import AutofillTestSupport
import Foundation
import Testing

/// Faults of provider helpers as users meet them, one `autofill` process per command: each fault is
/// in the ledger before the command exits (so quarantine works across commands), what the user reads
/// comes from what the host saw, the entry symbol is checked by the host itself, and a provider UI
/// that returns without completing fails the fill after `UIIdleTimeoutSeconds`.
struct HelperFaultCommandTests {
    let home: TemporaryHome

    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
    }

    /// Compiles the host tests' C fixture into `plugins/<id>.afprovider` (display name "Fixture"),
    /// with `FixtureFault` = `fault` in a configuration that enables nothing yet; returns the config's path.
    func fixture(id: String = "org.t.fixture", fault: String, entry: String = "fixture_faults_entry", defines: [String] = [],
                 extra: [String: Any] = [:]) throws -> (config: String, bundle: String) {
        let bundle = try home.fixtureProvider(id: id, entry: entry, defines: defines)
        let config = "\(home.path)/config.plist"
        let settings: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": [String](), "UserAuthentication": ["Policy": "none"],
            "ProviderSettings": [id: ["FixtureFault": fault]],
        ].merging(extra) { $1 }
        try PropertyListSerialization.data(fromPropertyList: settings, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        return (config, bundle)
    }

    /// Runs `autofill arguments --config config`, killed after 60 s (status 137) so a hang fails the test.
    func autofill(_ arguments: [String], config: String) throws -> CLI.Result {
        try ChildProcess.run("/usr/bin/timeout", ["-s", "KILL", "60", CLI.binary] + arguments + ["--config", config],
                             environment: CLI.environment(home: home.path))
    }

    /// The trust state `providers list --json` gives provider `id`.
    func trustState(_ id: String, config: String) throws -> String? {
        let list = try autofill(["providers", "list", "--json"], config: config)
        let providers = (try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["providers"] as? [[String: Any]]
        return (providers?.first { $0["id"] as? String == id }?["trust"] as? [String: Any])?["state"] as? String
    }

    /// Files anywhere under the home folder whose name contains `part`.
    func files(containing part: String) -> [String] {
        let all = FileManager.default.enumerator(atPath: home.path)?.compactMap { $0 as? String } ?? []
        return all.filter { ($0 as NSString).lastPathComponent.contains(part) }
    }

    @Test func aProviderThatCrashesOnEveryFillIsQuarantinedAfterAsManyCommands() throws {
        let (config, _) = try fixture(fault: "crash")
        let enabled = try autofill(["providers", "enable", "org.t.fixture"], config: config)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        // Three fills, three processes, three crashes: the default quarantine count.
        for attempt in 1...3 {
            let fill = try autofill(["fill", "fixture.test", "--pick", "1"], config: config)
            #expect(fill.status == 69, "fill \(attempt): \(fill.stderr)")
            #expect(fill.stdout.isEmpty)
            #expect(fill.stderr.contains("Fixture crashed (SIGSEGV) while answering provideCredentialWithoutUserInteraction(for:)"),
                    "fill \(attempt): \(fill.stderr)")
        }
        #expect(try trustState("org.t.fixture", config: config) == "quarantined")
        let refused = try autofill(["fill", "fixture.test", "--pick", "1"], config: config)
        #expect(refused.status == 77)
        #expect(refused.stderr.contains("Fixture (org.t.fixture) is quarantined since"), "\(refused.stderr)")
        #expect(refused.stderr.contains("it crashed or was killed 3 times within 10 minutes; the last time it crashed: Fixture crashed (SIGSEGV)"),
                "\(refused.stderr)")
        #expect(files(containing: ".tmp").isEmpty, "a ledger write was cut short: \(files(containing: ".tmp"))")
    }

    @Test func aForkThenCrashEndsTheFillAtOnceAsACrash() throws {
        // The forked child sleeps an hour holding the helper's socket; the fill does not wait for it.
        let (config, _) = try fixture(fault: "fork-crash", extra: ["NoUIDeadlineSeconds": 30])
        #expect(try autofill(["providers", "enable", "org.t.fixture"], config: config).status == 0)
        let start = ContinuousClock.now
        let fill = try autofill(["fill", "fixture.test", "--pick", "1"], config: config)
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(fill.status == 69)
        #expect(fill.stderr.contains("Fixture crashed (SIGSEGV) while answering provideCredentialWithoutUserInteraction(for:)"), "\(fill.stderr)")
        #expect(!fill.stderr.contains("did not answer"))
    }

    @Test func validateAndEnableCheckTheEntrySymbolThemselvesWhateverThePluginSays() throws {
        // The library lacks the entry symbol its plist names, and forges a `loaded` frame saying all is well.
        let (config, bundle) = try fixture(fault: "", entry: "missing_entry", defines: ["FIXTURE_FORGE_LOADED"])
        let validate = try autofill(["plugin", "validate", bundle], config: config)
        #expect(validate.status == 65, "\(validate.stdout)")
        #expect(validate.stdout.contains("error: \(bundle)/libFixture.so: AFProviderEntrySymbol: the library exports no function named missing_entry"),
                "\(validate.stdout)")
        #expect(validate.stdout.hasSuffix("invalid: 1 problem\n"))

        let enable = try autofill(["providers", "enable", bundle], config: config)
        #expect(enable.status == 65, "\(enable.stderr)")
        #expect(enable.stderr.contains("the library exports no function named missing_entry"), "\(enable.stderr)")
        #expect(try trustState("org.t.fixture", config: config) == nil, "not enabled")
    }

    @Test func aFillWhoseProviderUIReturnsWithoutCompletingFailsAfterTheIdleTime() throws {
        let (config, _) = try fixture(fault: "ui-returns", extra: ["UIIdleTimeoutSeconds": 1])
        #expect(try autofill(["providers", "enable", "org.t.fixture"], config: config).status == 0)
        let script = try home.file("nothing.ui", "# the provider asks nothing\n")
        let start = ContinuousClock.now
        let fill = try autofill(["fill", "fixture.test", "--pick", "1", "--ui-script", script], config: config)
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(fill.status == 69, "\(fill.stderr)")
        #expect(fill.stderr.contains(
            "Fixture returned from prepareInterfaceToProvideCredential(for:) without completing the request and showed nothing for 1 s; gave up"),
                "\(fill.stderr)")
    }

    /// A crash (in flight) or a kill at the deadline that the fault ledger cannot record (here its lock
    /// file cannot be opened; a full disk does the same) is told to the client that met it, through
    /// the agent too, not only in the agent's log. Control: the same fault is recorded when it can be.
    @Test(arguments: [("crash", "ok", "crashed"), ("", "hang", "was killed after missing its deadline")])
    func aFaultTheLedgerCannotRecordIsToldToTheClient(fault: String, user: String, sentence: String) throws {
        let (config, _) = try fixture(fault: fault, extra: ["NoUIDeadlineSeconds": 2])
        #expect(try autofill(["providers", "enable", "org.t.fixture"], config: config).status == 0)
        let ids = try home.file("ids.json", #"{ "identities": [ { "kind": "password", "serviceIdentifier": { "identifier": "fixture.test", "type": "domain" }, "user": "hang" } ] }"#)
        #expect(try autofill(["identities", "save", "--provider", "org.t.fixture", "--file", ids], config: config).status == 0)
        let records = "\(home.path)/.local/state/autofill"
        try FileManager.default.createDirectory(atPath: "\(records)/faults.json.lock", withIntermediateDirectories: true)
        let fill = try autofill(["fill", "fixture.test", "--user", user], config: config)
        #expect(fill.status == 69 && fill.stdout.isEmpty, "\(fill.stderr)")
        #expect(fill.stderr.contains("cannot record a fault of Fixture (org.t.fixture) (\(sentence): "), "\(fill.stderr)")
        #expect(fill.stderr.contains("quarantine cannot count it until the ledger can be written again"), "\(fill.stderr)")
        #expect(!files(containing: "faults.json").contains { $0.hasSuffix("faults.json") })
        // Control: a ledger that can be written records it, and says nothing.
        try FileManager.default.removeItem(atPath: "\(records)/faults.json.lock")
        let recorded = try autofill(["fill", "fixture.test", "--user", user], config: config)
        #expect(recorded.status == 69 && !recorded.stderr.contains("cannot record"), "\(recorded.stderr)")
        #expect(try String(contentsOfFile: "\(records)/faults.json", encoding: .utf8).contains("org.t.fixture"))
    }
}
