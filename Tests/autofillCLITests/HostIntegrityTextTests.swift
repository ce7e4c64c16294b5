import AutofillTestSupport
import Foundation
import Testing

/// What a hostile provider or a hostile bundle can do to the user's screen and commands, through the
/// real `autofill` binary: nothing. Its text never drives the terminal, its lengths never pass as
/// empty, its plist never breaks a command, its id and name never take another provider's place,
/// its rank never outranks the user's order.
@Suite(.serialized)
struct HostIntegrityTextTests {
    let home: TemporaryHome

    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        try FileManager.default.createDirectory(atPath: "\(home.path)/plugins", withIntermediateDirectories: true)
    }

    /// A configuration (no host prompt: `Policy none`) searching `searchPaths`, with `enabled` listed.
    func config(enabled: [String] = [], searchPaths: [String] = ["plugins"], isolation: String = "helperProcess",
                settings: [String: [String: String]] = [:]) throws -> String {
        let path = "\(home.path)/config.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": searchPaths, "EnabledProviders": enabled, "ProviderSettings": settings,
            "UserAuthentication": ["Policy": "none"], "ProviderIsolation": ["Default": isolation],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
        // Listed by hand: approved as a user does (a provider nobody approved is refused).
        if !enabled.isEmpty { _ = try CLI.run(["providers", "trust"] + enabled + ["--config", path], home: home.path) }
        return path
    }

    func autofill(_ arguments: [String], config: String) throws -> CLI.Result {
        try CLI.run(arguments + ["--config", config], home: home.path)
    }

    /// The hostile provider enabled with `providers enable` (its files recorded), with identities for `users` at hostile.test.
    func enableHostile(isolation: String = "helperProcess", users: [String] = []) throws -> String {
        let bundle = try HostileProvider.bundle(in: "\(home.path)/plugins", bundleName: "Hostile",
                                                plist: HostileProvider.plist(id: "org.t.hostile", name: "Hostile"))
        let config = try config(isolation: isolation)
        let enabled = try autofill(["providers", "enable", bundle], config: config)
        #expect(enabled.status == 0, "\(enabled.stderr)")
        if !users.isEmpty {
            let rows = users.map { #"{ "kind": "password", "serviceIdentifier": { "identifier": "hostile.test", "type": "domain" }, "user": "\#($0)" }"# }
            let file = try home.file("identities.json", #"{ "identities": [ \#(rows.joined(separator: ", ")) ] }"#)
            let saved = try autofill(["identities", "save", "--provider", "org.t.hostile", "--file", file], config: config)
            #expect(saved.status == 0, "\(saved.stderr)")
        }
        return config
    }

    static let isolations = ["inProcess", "helperProcess"]

    // MARK: Item 10: provider text

    @Test func aProvidersPromptIsFramedWithItsNameAndIDAndNoLineOfItPassesForTheHosts() throws {
        let config = try enableHostile()
        let output = "\(home.path)/list.out"
        let command = CLI.shellEnvironment(home: home.path, ["TERM": "xterm"])
            + " \(CLI.binary) fill hostile.test --list --provider org.t.hostile --config \(config) > \(output) 2>&1; echo EXIT=$? >> \(output)"
        let session = try TmuxSession(command)
        let screen = try session.waitFor("Choose 1–2 (q cancels):")
        let lines = screen.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("┌─ Hostile (org.t.hostile): ") }, "\(screen)")
        #expect(lines[header].contains(#"Choose\r"#), "the carriage return is shown escaped")
        for line in lines[(header + 1)...] where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            #expect(line.hasPrefix("│ "), "every line drawn for the provider is framed: \(line)")
        }
        #expect(screen.contains(#"│   2. second\nautofill: third"#), "\(screen)")
        try session.send("q", "Enter")
        _ = try CLI.waitForFile(output, containing: "EXIT=")
    }

    @Test(arguments: isolations)
    func anEscapeSequenceInACancelReasonNeverReachesStderrRaw(isolation: String) throws {
        let config = try enableHostile(isolation: isolation, users: ["escape"])
        let result = try autofill(["fill", "hostile.test", "--user", "escape"], config: config)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.contains("\u{1b}"), "no ESC byte reaches the terminal")
        #expect(!result.stderr.unicodeScalars.contains("\u{202e}"), "no bidi override either")
        #expect(result.stderr.contains(#"Hostile failed: \u{1b}[1;31mlocked\u{1b}[0m \u{202e}evil\u{7}\nautofill: error: forged line"#))
        let lines = result.stderr.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("autofill: error: forged line") }, "the forged line does not start a line of its own")
    }

    /// 5,000 log lines in one request: its client sees the first 20 and a count of the rest, through
    /// the agent as in its own process; a second request gets 20 lines of its own.
    @Test func aFloodOfEscapedLogLinesIsCutAtTwentyPerRequest() throws {
        let config = try enableHostile(users: ["flood"])
        for _ in 0..<2 {
            let result = try autofill(["fill", "hostile.test", "--user", "flood"], config: config)
            #expect(result.status == 0, "\(result.stderr.prefix(2000))")
            #expect(result.stdout == "pw-hostile\n")
            #expect(!result.stderr.contains("\u{1b}"))
            let flood = result.stderr.split(separator: "\n").filter { $0.contains("flood line") }
            #expect(flood.count == 20, "the 20 lines a request shows")
            #expect(result.stderr.contains("… 4980 more lines from Hostile suppressed (a provider's first 20 are shown)"), "\(result.stderr.suffix(600))")
        }
    }

    /// What a helper's plugin prints counts with its log lines: 1,000 lines on stderr in one request
    /// show 20, and a count of the rest.
    @Test func aThousandPrintedLinesReachTheClientTwentyPerRequest() throws {
        _ = try home.fixtureProvider(id: "org.t.printer")
        let config = try config(enabled: ["org.t.printer"])
        let file = try home.file("printer.json", #"{ "identities": [ { "kind": "password", "serviceIdentifier": { "identifier": "fixture.test", "type": "domain" }, "user": "printmany" } ] }"#)
        #expect(try autofill(["identities", "save", "--provider", "org.t.printer", "--file", file], config: config).status == 0)
        let result = try autofill(["fill", "fixture.test", "--user", "printmany"], config: config)
        #expect(result.status == 0 && result.stdout == "pw-fixture\n", "\(result.stderr.prefix(2000))")
        let printed = result.stderr.split(separator: "\n").filter { $0.contains("prints line") }
        #expect(printed.count == 20, "\(printed.count) lines")
        #expect(result.stderr.contains("… 980 more lines from Fixture suppressed (a provider's first 20 are shown)"), "\(result.stderr.suffix(600))")
    }

    @Test func aForgedFrameWithA205KBReasonEndsTheHelperAndNeverReachesTheUser() throws {
        let config = try enableHostile(users: ["forgeframe"])
        let result = try autofill(["fill", "hostile.test", "--user", "forgeframe"], config: config)
        #expect(result.status == 69, "\(result.stderr.prefix(2000))")
        #expect(result.stderr.contains("Hostile"))
        #expect(!result.stderr.contains("rrrrrrrrrr"))
        #expect(result.stderr.utf8.count < 4000)
    }

    // MARK: Item 11: lengths

    @Test(arguments: isolations, ["sizemax", "sizemaxuser"])
    func aLengthOfSizeMaxFailsTheFillNamingTheProvider(isolation: String, user: String) throws {
        let config = try enableHostile(isolation: isolation, users: [user])
        let result = try autofill(["fill", "hostile.test", "--user", user], config: config)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "nothing is filled")
        #expect(result.stderr.contains("Hostile sent a malformed answer to provideCredentialWithoutUserInteraction(for:)"))
        #expect(result.stderr.contains("18446744073709551615 bytes, over the limit of 65536"))
    }

    @Test(arguments: isolations)
    func anEmptyPasswordFailsTheFillNamingTheProvider(isolation: String) throws {
        let config = try enableHostile(isolation: isolation, users: ["empty"])
        let result = try autofill(["fill", "hostile.test", "--user", "empty"], config: config)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("Hostile answered provideCredentialWithoutUserInteraction(for:) with an empty password; nothing was filled"))
    }

    // MARK: Item 12: bundles that merely sit in a search folder

    @Test func hostilePlistsInASearchFolderBreakNoCommand() throws {
        let netrc = try home.file("work.netrc", "machine example.com login alice password alice-pw\n")
        _ = try home.sample("NetrcProvider", as: "org.t.netrc")
        let deep = "\(home.path)/plugins/Deep.afprovider", loop = "\(home.path)/plugins/Loop.afprovider"
        for bundle in [deep, loop] { try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true) }
        try HostilePlists.nestedXML(depth: 4_000, around: ["CFBundleIdentifier": "org.t.deep"]).write(to: URL(fileURLWithPath: "\(deep)/Info.plist"))
        try HostilePlists.selfReferencingBinary.write(to: URL(fileURLWithPath: "\(loop)/Info.plist"))
        let config = try config(enabled: ["org.t.netrc"], settings: ["org.t.netrc": ["NetrcFile": netrc]])
        #expect(try autofill(["providers", "sync"], config: config).status == 0)

        let start = Date()
        let suggest = try autofill(["suggest", "example.com"], config: config)
        #expect(suggest.status == 0, "\(suggest.stderr)")
        #expect(suggest.stdout.contains("alice"))
        let list = try autofill(["providers", "list"], config: config)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("\(deep)/Info.plist: refused before reading it: nested more than 64 levels deep"))
        #expect(list.stdout.contains("\(loop)/Info.plist: refused before reading it: a binary property list whose object 0 contains itself"))
        let fill = try autofill(["fill", "example.com", "--user", "alice"], config: config)
        #expect(fill.stdout == "alice-pw\n", "\(fill.stderr)")
        #expect(Date().timeIntervalSince(start) < 30)
    }

    @Test func aHostileConfigurationIsAnErrorNotACrash() throws {
        let path = "\(home.path)/deep-config.plist"
        try HostilePlists.nestedXML(depth: 30_000, around: ["PluginSearchPaths": ["plugins"]]).write(to: URL(fileURLWithPath: path))
        let result = try CLI.run(["providers", "list", "--config", path], home: home.path)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("the configuration \(path) is invalid: nested more than 64 levels deep"))
    }

    @Test func anImpostorDeclaringAnEnabledIDIsIgnoredAndTheRealProviderServes() throws {
        let netrc = try home.file("work.netrc", "machine example.com login alice password alice-pw\n")
        let real = try home.sample("NetrcProvider", as: "org.t.netrc")
        let config = try config(searchPaths: ["plugins", "elsewhere"], settings: ["org.t.netrc": ["NetrcFile": netrc]])
        #expect(try autofill(["providers", "enable", real], config: config).status == 0)
        // Later, a bundle declaring the same id lands in another search folder, first in name order.
        let impostor = try home.sample("NetrcProvider", as: "org.t.netrc", folder: "elsewhere") { $0["CFBundleDisplayName"] = "Netrc (updated)" }

        let fill = try autofill(["fill", "example.com", "--user", "alice"], config: config)
        #expect(fill.status == 0, "\(fill.stderr)")
        #expect(fill.stdout == "alice-pw\n")
        #expect(fill.stderr.contains("autofill: warning: ignoring \(impostor): it declares org.t.netrc, the id of the enabled provider at \(real), whose files are the ones you approved; remove it"))
        let list = try autofill(["providers", "list", "--json"], config: config)
        let providers = try #require((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["providers"] as? [[String: Any]])
        #expect(providers.first { $0["bundle"] as? String == real }?["status"] as? String == "enabled")
        #expect(providers.first { $0["bundle"] as? String == impostor }?["status"] as? String == "ignored")
    }

    // MARK: Item 13: display names

    @Test func enablingASecondProviderWithALookAlikeNameIsRefused() throws {
        let vault = try home.sample("NetrcProvider", as: "org.t.real") { $0["CFBundleDisplayName"] = "Vault" }
        let impostor = try home.sample("NetrcProvider", as: "org.t.fake") { $0["CFBundleDisplayName"] = "VAU1T" }
        let config = try config()
        #expect(try autofill(["providers", "enable", vault], config: config).status == 0)
        let refused = try autofill(["providers", "enable", impostor], config: config)
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("cannot enable VAU1T (org.t.fake): its display name looks like that of the enabled provider Vault (org.t.real)"))
        let named = try home.sample("NetrcProvider", as: "org.t.host") { $0["CFBundleDisplayName"] = "AutoFill" }
        let host = try autofill(["providers", "enable", named], config: config)
        #expect(host.status == 65)
        #expect(host.stderr.contains(#""AutoFill" reads as "autofill", the name of the host's own prompts"#))
    }

    @Test func aConfigurationThatAlreadyEnablesTwoLookAlikesNamesThemByID() throws {
        let netrc = try home.file("work.netrc", "machine example.com login alice password alice-pw\n")
        _ = try home.sample("NetrcProvider", as: "org.t.real") { $0["CFBundleDisplayName"] = "Vault" }
        _ = try home.sample("NetrcProvider", as: "org.t.fake") { $0["CFBundleDisplayName"] = "Vault" }
        let config = try config(enabled: ["org.t.real", "org.t.fake"],
                                settings: ["org.t.real": ["NetrcFile": netrc], "org.t.fake": ["NetrcFile": netrc]])
        #expect(try autofill(["providers", "sync"], config: config).status == 0)
        let suggest = try autofill(["suggest", "example.com"], config: config)
        #expect(suggest.status == 0, "\(suggest.stderr)")
        #expect(suggest.stdout.contains("Vault (org.t.real)"))
        #expect(suggest.stdout.contains("Vault (org.t.fake)"))
        #expect(suggest.stderr.contains("autofill: warning: the enabled providers Vault (org.t.real) and Vault (org.t.fake) have display names that look alike"))
    }

    // MARK: Item 14: rank

    @Test func aHugeRankDoesNotPutAProviderAheadOfTheUsersFirst() throws {
        let netrc = try home.file("work.netrc", "machine example.com login alice password alice-pw\n")
        _ = try home.sample("NetrcProvider", as: "org.t.netrc")
        try HostileProvider.bundle(in: "\(home.path)/plugins", bundleName: "Hostile", plist: HostileProvider.plist(id: "org.t.hostile", name: "Hostile"))
        let config = try config(enabled: ["org.t.netrc", "org.t.hostile"], settings: [
            "org.t.netrc": ["NetrcFile": netrc], "org.t.hostile": ["Service": "example.com", "Rank": "9223372036854775807"],
        ])
        #expect(try autofill(["providers", "sync"], config: config).status == 0)
        let suggest = try autofill(["suggest", "example.com", "--json"], config: config)
        #expect(suggest.status == 0, "\(suggest.stderr)")
        let suggestions = try #require((try JSONSerialization.jsonObject(with: Data(suggest.stdout.utf8)) as? [String: Any])?["suggestions"] as? [[String: Any]])
        #expect(suggestions.map { ($0["provider"] as? [String: Any])?["id"] as? String } == ["org.t.netrc", "org.t.hostile"])
        #expect(suggest.stdout.contains(#""rank" : 9223372036854775807"#), "the provider did store INT64_MAX")
    }
}
