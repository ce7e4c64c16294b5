import Foundation
import Testing

/// `autofill providers …` run as a user runs it.
struct ProvidersCommandTests {
    let home: TemporaryHome

    init() throws {
        home = try TemporaryHome()
    }

    @Test func listShowsTheThreeDemoProvidersInOrderWithoutLoadingThem() throws {
        let result = try CLI.run(["providers", "list", "--json", "--config", CLI.demoConfig], home: home.path)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let providers = json["providers"] as! [[String: Any]]
        // The KeePassXC, pass and Secret Service samples are built beside them (.build/plugins): found, not enabled.
        #expect(providers.map { $0["id"] as? String }
            == ["org.autofill.vault", "org.autofill.netrc", "org.autofill.authenticator", "org.autofill.keepassxc", "org.autofill.pass",
                "org.autofill.secretservice"])
        #expect(providers.map { $0["status"] as? String } == ["enabled", "enabled", "enabled", "available", "available", "available"])
        #expect(providers.map { $0["position"] as? Int } == [1, 2, 3, nil, nil, nil])
        #expect(providers[2]["capabilities"] as? [String] == ["ProvidesOneTimeCodes"])
        #expect((json["configuration"] as? [String: Any])?["source"] as? String == "option")
    }

    @Test func listFallsBackToTheBuiltInDemoAndSaysSo() throws {
        let result = try CLI.run(["providers", "list"], home: home.path)
        #expect(result.status == 0)
        #expect(result.stdout.contains("(the built-in demo)"))
        #expect(result.stdout.contains("1  org.autofill.vault"))
        #expect(result.stderr.hasPrefix("autofill: note: no configuration at \(home.path)/.config/autofill/config.plist: using the built-in demo"))
    }

    @Test func aFourthProviderIsRefusedWithExit78NamingTheThree() throws {
        for (sample, id) in [("VaultProvider", "org.t.one"), ("NetrcProvider", "org.t.two"), ("AuthenticatorProvider", "org.t.three"),
                             ("NetrcProvider", "org.t.four")] {
            _ = try home.sample(sample, as: id)
        }
        let config = try home.config(enabled: ["org.t.one", "org.t.two", "org.t.three"])
        let result = try CLI.run(["providers", "enable", "org.t.four", "--config", config], home: home.path)
        #expect(result.status == 78)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("cannot enable org.t.four: 3 providers are enabled already (org.t.one, org.t.two, org.t.three)"))
    }

    @Test func enableLoadsTheBundleChecksItAndSavesTheOrder() throws {
        let bundle = try home.sample("NetrcProvider", as: "org.t.netrc", folder: "elsewhere")
        let config = try home.config(enabled: [])
        let enabled = try CLI.run(["providers", "enable", bundle, "--config", config], home: home.path)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        #expect(enabled.stdout.contains("Enabled Netrc (org.t.netrc) as provider 1 of 1."))
        // What it may reach, in plain words, before any of its code runs (docs/SANDBOX.md)…
        #expect(enabled.stdout.hasPrefix("Netrc (org.t.netrc) asks to:\n  read the file named by its NetrcFile setting (now \(home.path)/.netrc)\n"),
                "\(enabled.stdout)")
        #expect(enabled.stdout.contains("  nothing else: no network, no programs\n"))
        // …recorded with its files' SHA-256.
        let records = try String(contentsOfFile: "\(home.path)/.local/state/autofill/trust.json", encoding: .utf8)
        #expect(records.contains("file:setting:NetrcFile:read"), "\(records)")
        let list = try CLI.run(["providers", "list", "--config", config], home: home.path)
        #expect(list.stdout.contains("1  org.t.netrc"))
        #expect(list.stdout.contains("   may: read the file named by its NetrcFile setting"))
        let again = try CLI.run(["providers", "enable", "org.t.netrc", "--config", config], home: home.path)
        #expect(again.stdout.contains("is already enabled"))
    }

    @Test func anInvalidPluginIsNotEnabled() throws {
        let bundle = try home.sample("NetrcProvider", as: "org.t.broken") { $0["AFProviderEntrySymbol"] = "nope_entry" }
        let config = try home.config(enabled: [])
        let result = try CLI.run(["providers", "enable", bundle, "--config", config], home: home.path)
        #expect(result.status == 65)
        #expect(result.stderr.contains("the library exports no function named nope_entry"))
        let list = try CLI.run(["providers", "list", "--json", "--config", config], home: home.path)
        #expect(list.stdout.contains("\"status\" : \"available\""))
    }

    @Test func orderAndDisableChangeTheSavedConfiguration() throws {
        let config = try home.config(enabled: ["org.t.a", "org.t.b", "org.t.c"])
        let order = try CLI.run(["providers", "order", "org.t.c", "org.t.a", "--config", config], home: home.path)
        #expect(order.status == 0)
        #expect(order.stdout.hasPrefix("1. org.t.c\n2. org.t.a\n3. org.t.b\n"))
        let disable = try CLI.run(["providers", "disable", "org.t.a", "--config", config], home: home.path)
        #expect(disable.status == 0)
        let list = try CLI.run(["providers", "list", "--json", "--config", config], home: home.path)
        #expect(!list.stdout.contains("org.t.a\""))
        #expect(list.stdout.contains("\"status\" : \"missing\""))
    }

    @Test func unknownIdsAreUsageErrors() throws {
        let config = try home.config(enabled: [])
        let result = try CLI.run(["providers", "disable", "org.t.none", "--config", config], home: home.path)
        #expect(result.status == 64)
        #expect(result.stderr == "autofill: org.t.none is not enabled; enabled providers: none\n")
    }

    @Test func changesToTheBuiltInDemoGoToTheUsersConfiguration() throws {
        let result = try CLI.run(["providers", "disable", "org.autofill.authenticator"], home: home.path)
        #expect(result.status == 0, "\(result.stderr)")
        let userConfig = "\(home.path)/.config/autofill/config.plist"
        #expect(result.stdout.contains("Saved \(userConfig)"))
        let list = try CLI.run(["providers", "list"], home: home.path)
        #expect(list.stdout.contains("(your configuration)"))
        #expect(list.stdout.contains("-  org.autofill.authenticator"))
        #expect(list.stderr.isEmpty, "no demo notice: the configuration is the user's now")
        // It keeps the demo's own stores: the demo's providers answer for demo data only.
        let saved = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: userConfig)), format: nil) as! [String: Any]
        #expect(saved["IdentityStoreDirectory"] as? String == "\(home.path)/.local/share/autofill/demo-stores")
    }

    @Test func aMissingConfigurationIsExit66() throws {
        let result = try CLI.run(["providers", "list", "--config", "\(home.path)/nope.plist"], home: home.path)
        #expect(result.status == 66)
        #expect(result.stderr.contains("no configuration at \(home.path)/nope.plist (from --config)"))
    }
}
