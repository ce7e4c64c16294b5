import Foundation
import Testing

/// `autofill suggest` and `autofill identities …` through the built binary and real stores.
struct SuggestCommandTests {
    let home: TemporaryHome
    let config: String

    /// Vault and Netrc enabled (copies of the samples), with a netrc of our own.
    init() throws {
        home = try TemporaryHome()
        // Two copies of the C sample, one shown as "Vault", each with its own file.
        _ = try home.sample("NetrcProvider", as: "org.t.vault") { $0["CFBundleDisplayName"] = "Vault" }
        _ = try home.sample("NetrcProvider", as: "org.t.netrc")
        let vault = try home.file("vault.netrc", """
            machine example.com login alice password a
            machine example.com login bob password b
            machine accounts.example.org login alice@example.org password c

            """)
        let netrc = try home.file("netrc", "machine example.com login carol password pw\nmachine www.example.com login dave password pw2\n")
        config = try home.config(enabled: ["org.t.vault", "org.t.netrc"],
                                 settings: ["org.t.netrc": ["NetrcFile": netrc], "org.t.vault": ["NetrcFile": vault]])
        try home.trust(["org.t.vault", "org.t.netrc"], config: config)
        let sync = try CLI.run(["providers", "sync", "--config", config], home: home.path)
        #expect(sync.stdout == "org.t.vault: 3 identities\norg.t.netrc: 2 identities\n", "\(sync.stderr)")
    }

    func json(_ arguments: [String]) throws -> [String: Any] {
        let result = try CLI.run(arguments + ["--json", "--config", config], home: home.path)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
    }

    @Test func suggestionsComeBestFirstAcrossProviders() throws {
        let report = try json(["suggest", "https://www.example.com/login"])
        let suggestions = report["suggestions"] as! [[String: Any]]
        let rows = suggestions.map { "\($0["user"]!)|\(($0["provider"] as! [String: Any])["displayName"]!)|\(($0["match"] as! [String: Any])["quality"]!)" }
        #expect(rows == ["dave|Netrc|exactHost", "alice|Vault|parentDomain", "bob|Vault|parentDomain", "carol|Netrc|parentDomain"])
        let query = report["query"] as! [String: Any]
        #expect((query["serviceIdentifiers"] as! [[String: Any]]).map { $0["identifier"] as! String }
            == ["https://www.example.com/login", "www.example.com", "example.com"])
    }

    @Test func providersListShowsEachStoresIdentitiesWithoutLoadingAPlugin() throws {
        let (result, loads) = try CLI.runTracingLoads(["providers", "list", "--json", "--config", config], home: home.path)
        #expect(!loads.contains(".afprovider"), "listing must not dlopen a provider, in any process")
        let providers = (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any])["providers"] as! [[String: Any]]
        let stores = providers.compactMap { $0["store"] as? [String: Any] }
        #expect(stores.map { $0["identities"] as? Int } == [3, 2])
        #expect(stores.allSatisfy { $0["supportsIncrementalUpdates"] as? Bool == true })
        let text = try CLI.run(["providers", "list", "--config", config], home: home.path)
        #expect(text.stdout.contains("   3 identities\n"))
    }

    @Test func suggestTakesAKindAndALimit() throws {
        #expect((try json(["suggest", "example.com", "--type", "passkey"])["suggestions"] as! [Any]).isEmpty)
        #expect((try json(["suggest", "example.com", "--limit", "1"])["suggestions"] as! [Any]).count == 1)
        let text = try CLI.run(["suggest", "lookalike-example.com", "--config", config], home: home.path)
        #expect(text.stdout == "No suggestions for lookalike-example.com.\n")
    }

    @Test func suggestNeverLoadsAPlugin() throws {
        let suggest = try CLI.runTracingLoads(["suggest", "example.com", "--config", config], home: home.path)
        #expect(suggest.result.status == 0)
        #expect(suggest.result.stdout.contains("alice"))
        #expect(suggest.loads.contains("file="), "the trace works")
        // A plugin's library is loaded through the descriptor the host hashed: the trace names /proc/self/fd/N.
        #expect(!suggest.loads.contains(".afprovider") && !suggest.loads.contains("file=/proc/self/fd/"),
                "suggest must not dlopen a provider, in any process")
        let sync = try CLI.runTracingLoads(["providers", "sync", "--config", config], home: home.path)
        #expect(sync.loads.contains("file=/proc/self/fd/"), "control: sync does load providers (in their helpers)")
    }

    @Test func aConfigurationMayKeepItsOwnIdentityStores() throws {
        let plist: [String: Any] = ["PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.t.vault"], "IdentityStoreDirectory": "own-stores",
                                    "ProviderSettings": ["org.t.vault": ["NetrcFile": "\(home.path)/vault.netrc"]]]
        let own = "\(home.path)/own.plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: own))
        let sync = try CLI.run(["providers", "sync", "--config", own], home: home.path)
        #expect(sync.stdout == "org.t.vault: 3 identities\n", "\(sync.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(home.path)/own-stores/org.t.vault.sqlite"))
        let disable = try CLI.run(["providers", "disable", "org.t.vault", "--config", own], home: home.path)
        #expect(disable.status == 0)
        let untouched = try json(["identities", "list", "--provider", "org.t.vault"])
        #expect(((untouched["providers"] as! [[String: Any]])[0]["identities"] as! [Any]).count == 3, "the default stores were not wiped")
    }

    @Test func aBadServiceIsADataError() throws {
        let result = try CLI.run(["suggest", "https://exa mple.com/", "--config", config], home: home.path)
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("autofill: "))
        #expect(result.stdout.isEmpty)
    }

    @Test func aBadServiceIsNamedWithoutThePasswordBeforeItsHost() throws {
        let result = try CLI.run(["suggest", "https://alice:hunter2@exa mple.com/", "--config", config], home: home.path)
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix(#"autofill: "https://<REDACTED>@exa mple.com/" is not a valid service name: its host contains a space"#),
                "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"))
    }

    @Test func identitiesCanBeSavedListedReplacedAndRemovedFromAFile() throws {
        let file = try home.file("ids.json", """
            { "identities": [ { "kind": "password", "serviceIdentifier": { "identifier": "new.example.com", "type": "domain" },
                                "user": "erin", "rank": 7 } ] }
            """)
        let save = try CLI.run(["identities", "save", "--provider", "org.t.netrc", "--file", file, "--config", config], home: home.path)
        #expect(save.stdout == "Saved 1 identity for org.t.netrc; the store holds 3.\n", "\(save.stderr)")
        let listed = try json(["identities", "list", "--provider", "org.t.netrc"])
        let provider = (listed["providers"] as! [[String: Any]])[0]
        #expect((provider["identities"] as! [[String: Any]]).map { $0["user"] as? String } == ["carol", "dave", "erin"])
        let top = (try json(["suggest", "new.example.com"])["suggestions"] as! [[String: Any]])[0]
        #expect(top["user"] as? String == "erin")
        let remove = try CLI.run(["identities", "remove", "--provider", "org.t.netrc", "--file", file, "--config", config], home: home.path)
        #expect(remove.stdout.hasSuffix("the store holds 2.\n"))
        let replace = try CLI.run(["identities", "replace", "--provider", "org.t.netrc", "--file", file, "--config", config], home: home.path)
        #expect(replace.stdout == "Replaced with 1 identity for org.t.netrc; the store holds 1.\n")
    }

    @Test func aBadFileIsRefusedWholeNamingLineAndField() throws {
        let file = try home.file("bad.json", """
            { "identities": [
              { "kind": "password", "serviceIdentifier": { "identifier": "a.test", "type": "domain" }, "user": "ok" },
              { "kind": "password", "serviceIdentifier": { "identifier": "b.test", "type": "domain" }, "user": 5 }
            ] }
            """)
        let result = try CLI.run(["identities", "replace", "--provider", "org.t.netrc", "--file", file, "--config", config], home: home.path)
        #expect(result.status == 65)
        #expect(result.stderr == "autofill: \(file) line 3: identities[1].user: expected a string, found a number; nothing was written\n")
        let listed = try json(["identities", "list", "--provider", "org.t.netrc"])
        #expect(((listed["providers"] as! [[String: Any]])[0]["identities"] as! [Any]).count == 2)
    }

    @Test func aDisabledProvidersStoreIsWipedAndTakesNoWrites() throws {
        let disable = try CLI.run(["providers", "disable", "org.t.netrc", "--config", config], home: home.path)
        #expect(disable.stdout.hasPrefix("Disabled org.t.netrc; its identity store was wiped (2 identities)."))
        let file = try home.file("one.json", #"{ "identities": [ { "kind": "password", "serviceIdentifier": { "identifier": "a.test", "type": "domain" }, "user": "x" } ] }"#)
        let save = try CLI.run(["identities", "save", "--provider", "org.t.netrc", "--file", file, "--config", config], home: home.path)
        #expect(save.status == 78)
        #expect(save.stderr.contains("the identity store of org.t.netrc is disabled"))
        let suggestions = try json(["suggest", "www.example.com"])["suggestions"] as! [[String: Any]]
        #expect(suggestions.allSatisfy { ($0["provider"] as! [String: Any])["id"] as? String == "org.t.vault" })
    }
}
