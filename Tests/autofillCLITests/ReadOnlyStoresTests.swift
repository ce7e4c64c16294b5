import AutofillTestSupport
import Foundation
import Testing

/// With only read-only providers (two copies of the Netrc sample): nothing is saved without a word,
/// `autofill save` asks nothing it cannot use, and identities are found by name.
struct ReadOnlyStoresTests {
    let home: TemporaryHome
    let config: String

    init() throws {
        home = try TemporaryHome()
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("NetrcProvider", as: "org.t.work") { $0["CFBundleDisplayName"] = "Work" }
        _ = try home.sample("NetrcProvider", as: "org.t.home") { $0["CFBundleDisplayName"] = "Home" }
        let work = try home.file("work.netrc", "machine mail.fastmail.com login alice password work-secret\nmachine git.example.org login builder password b\n")
        let personal = try home.file("home.netrc", "machine example.com login fastmail-fan password home-secret\n")
        config = "\(home.path)/config.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.t.home", "org.t.work"],
            "ProviderSettings": ["org.t.work": ["NetrcFile": work], "org.t.home": ["NetrcFile": personal]],
            "UserAuthentication": ["Policy": "none"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.t.work", "org.t.home"], config: config)
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)
    }

    func autofill(_ arguments: [String], input: String = "") throws -> CLI.Result {
        try CLI.run(arguments + ["--config", config], home: home.path, input: input)
    }

    @Test func saveWithNoWritableProviderFailsBeforeReadingThePassword() throws {
        let saved = try autofill(["save", "example.com", "--user", "alice"], input: "never-read\n")
        #expect(saved.status == 1, "\(saved.stderr)")
        #expect(saved.stderr.contains("No enabled provider declares SupportsSavePasswordCredentials; nothing was saved."))
        #expect(!saved.stderr.contains("never-read"))
        // The control: a bad password on stdin is what a save with a writable provider complains about first.
        #expect(!saved.stderr.contains("password is empty"))
    }

    @Test func atATerminalSaveWithNoWritableProviderAsksForNoPassword() throws {
        let saved = try home.atTerminal(["save", "example.com", "--user", "alice", "--config", config], answers: [])
        #expect(saved.result.status == 1, "\(saved.result.stderr)")
        #expect(!saved.screen.contains("New password"), "\(saved.screen)")
        #expect(saved.result.stderr.contains("nothing was saved"))
    }

    @Test func gitsStoreThatSavesNowhereSaysSoInOneLineWithoutThePassword() throws {
        let description = Git.description(["protocol": "https", "host": "example.com", "username": "alice", "password": "git-store-secret"])
        let quiet = try Git.runHelper(["store"], home: home.path, config: config, input: description)
        #expect(quiet.status == 0 && quiet.stdout.isEmpty)
        #expect(quiet.stderr == "autofill: git's password for alice at https://example.com was not saved (credential.helper 'autofill -v' says why)\n")
        let verbose = try Git.runHelper(["-v", "store"], home: home.path, config: config, input: description)
        #expect(verbose.stderr.contains("nothing was saved: No enabled provider declares SupportsSavePasswordCredentials"), "\(verbose.stderr)")
        for result in [quiet, verbose] { #expect(!result.stderr.contains("git-store-secret")) }
        // The control: a store git asks to skip (a short-lived token) is quiet, as before.
        let token = try Git.runHelper(["store"], home: home.path, config: config, input: Git.description([
            "protocol": "https", "host": "example.com", "username": "alice", "password": "t", "password_expiry_utc": "1",
        ]))
        #expect(token.stderr.isEmpty, "\(token.stderr)")
    }

    @Test func aNameFindsLoginsByNameUserAndSiteAcrossProvidersRanked() throws {
        let found = try autofill(["suggest", "fastmail", "--json"])
        #expect(found.status == 0, "\(found.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as! [String: Any]
        #expect((report["query"] as! [String: Any])["search"] as? String == "name")
        let rows = (report["suggestions"] as! [[String: Any]]).map { "\($0["user"]!)|\(($0["match"] as! [String: Any])["quality"]!)" }
        #expect(rows == ["alice|exactName", "fastmail-fan|namePrefix"], "the site's label is exact; a user that starts with it, a prefix")
        let text = try autofill(["suggest", "BUILDER"])
        #expect(text.stdout.contains("builder") && text.stdout.contains("exact name: git.example.org"), "\(text.stdout)")
        // --name searches a term that looks like a site the same way.
        #expect(try autofill(["suggest", "--name", "example.org"]).stdout.contains("builder"))
    }

    @Test func aSiteWithNoSuggestionsSaysHowToSearchByNameAndStillExitsZero() throws {
        let result = try autofill(["suggest", "https://www.fastmail.example/login"])
        #expect(result.status == 0)
        #expect(result.stdout == "No suggestions for https://www.fastmail.example/login.\n")
        #expect(result.stderr.contains("hint: to search by name, user or site instead, try `autofill suggest fastmail`"), "\(result.stderr)")
        #expect(try autofill(["suggest", "example.com"]).stderr.isEmpty, "no hint when something was found")
    }

    @Test func fillWithANameFillsThePickedLoginForItsOwnSite() throws {
        let filled = try autofill(["fill", "fastmail", "--pick", "1"])
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout == "work-secret\n")
        let byUser = try autofill(["fill", "fastmail", "--user", "fastmail-fan"])
        #expect(byUser.stdout == "home-secret\n", "\(byUser.stderr)")
        let none = try autofill(["fill", "nothing-like-it"])
        #expect(none.status == 1)
        #expect(none.stderr.contains("Nothing is named nothing-like-it"), "\(none.stderr)")
    }
}
