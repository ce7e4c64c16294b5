import AutofillTestSupport
import Foundation
import Synchronization
import Testing

/// A hundred real `autofill` clients of one provider at once, through the agent, each answered from a
/// thread the provider starts itself, all of them alive together (the fixture's "together": each
/// thread waits until a hundred run). Before, under the helper's 512 MB address-space ceiling, each
/// thread's 8 MB default stack let about forty exist; the next `pthread_create` failed and its
/// request was never answered (33–46 of 50). In the agent's own process (`inProcess`) the same.
@Suite(.enabled(if: CLI.usesAgent))
struct ManyClientsTests {
    let home: TemporaryHome
    static let clients = 100

    init() throws {
        home = try TemporaryHome()
        // The agent holds the user's policy; these requests ask for none, so the user's does too.
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.fixtureProvider(id: "org.t.threads")
        let rows = #"{ "kind": "password", "serviceIdentifier": { "identifier": "threads.test", "type": "domain" }, "user": "together" }"#
        _ = try home.file("ids.json", #"{ "identities": [ \#(rows) ] }"#)
    }

    func config(isolation: String) throws -> String {
        let path = "\(home.path)/\(isolation).plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.t.threads"],
            "ProviderSettings": ["org.t.threads": ["FixtureName": "threads", "FixtureTogether": "\(Self.clients)"]],
            "UserAuthentication": ["Policy": "none"], "NoUIDeadlineSeconds": 300, "ProviderIsolation": ["Default": isolation],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: ["helperProcess", "inProcess"])
    func aHundredClientsOfOneProviderAllGetTheirAnswersFromItsThreads(isolation: String) throws {
        let config = try config(isolation: isolation)
        try home.trust(["org.t.threads"], config: config)
        let saved = try CLI.run(["identities", "save", "--provider", "org.t.threads", "--file", "\(home.path)/ids.json", "--config", config],
                                home: home.path)
        #expect(saved.status == 0, "\(saved.stderr)")
        let clients = try (0..<Self.clients).map { _ in
            try ChildProcess.start(CLI.binary, ["fill", "threads.test", "--user", "together", "--config", config],
                                   environment: CLI.environment(home: home.path))
        }
        let results = clients.map { $0.wait() }
        let answered = results.filter { $0.status == 0 && $0.stdout == "together-\(Self.clients)\n" }
        #expect(answered.count == Self.clients, "\(results.filter { $0.status != 0 }.prefix(3).map(\.stderr))")
        _ = try CLI.run(["agent", "stop"], home: home.path)
    }
}
