import AutofillCore
import AutofillTestSupport
import Foundation
import Testing

/// `autofill save` and `generate` with the KeePassXC provider as the only writable provider, in its
/// sandbox, read back by keepassxc-cli: a new entry, a new password with the old one in the history.
@Suite(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
struct KeePassSaveCLITests {
    let home: TemporaryHome
    let config: String
    let database: String

    static let masterPassword = "correct horse battery"
    static let key = KeePassXC.Key(password: masterPassword)
    static let unlock = "secret \(masterPassword)\n"

    init() throws {
        home = try TemporaryHome()
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        try FileManager.default.createDirectory(atPath: "\(home.path)/keepass", withIntermediateDirectories: true)
        database = "\(home.path)/keepass/passwords.kdbx"
        let xml = KeePassXML(entries: [.init(title: "GitHub", user: "octocat", password: "old-github", url: "https://github.com/login")])
        try KeePassXC.importXML(try home.file("import.xml", xml.text), to: database, key: Self.key)
        _ = try home.sample("KeePassProvider", as: "org.autofill.keepassxc")
        config = try Self.configure(home, "config", ["WritableDatabaseFile": database])
    }

    /// A configuration `NAME.plist` serving the KeePassXC provider with `settings`, trusted and synced.
    static func configure(_ home: TemporaryHome, _ name: String, _ settings: [String: String]) throws -> String {
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.keepassxc"],
            "ProviderSettings": ["org.autofill.keepassxc": settings], "UserAuthentication": ["Policy": "none"],
        ]
        let config = "\(home.path)/\(name).plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.autofill.keepassxc"], config: config)
        let sync = try CLI.run(["providers", "sync", "--config", config], home: home.path)
        #expect(sync.status == 0, "\(sync.stderr)")
        return config
    }

    func run(_ arguments: [String], script: String? = nil, input: String = "") throws -> CLI.Result {
        var options = ["--config", config]
        if let script { options += ["--ui-script", try home.file("script-\(UUID().uuidString).ui", script)] }
        return try CLI.run(arguments + options, home: home.path, input: input)
    }

    @Test func aSavedLoginIsAnEntryKeePassXCReadsAndTheNextFillGives() throws {
        let saved = try run(["save", "https://shop.example/login", "--user", "dave"], script: Self.unlock, input: "dave-✓-secret\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stderr.contains("org.autofill.keepassxc"), "\(saved.stderr)")
        #expect(!saved.stderr.contains("dave-✓-secret") && !saved.stderr.contains(Self.masterPassword))
        #expect(try KeePassXC.password(database, key: Self.key, title: "shop.example") == "dave-✓-secret")
        let shown = try ChildProcess.run(KeePassXC.cli, ["show", "-q", "-a", "UserName", "-a", "URL", database, "shop.example"], input: "\(Self.masterPassword)\n")
        #expect(shown.stdout == "dave\nhttps://shop.example/login\n", "\(shown.stderr)")
        let script = CLI.usesAgent ? nil : Self.unlock
        let filled = try run(["fill", "shop.example", "--user", "dave"], script: script)
        #expect(filled.stdout == "dave-✓-secret\n", "\(filled.stderr)")
    }

    @Test func aNewPasswordForAStoredLoginKeepsTheOldOneInTheHistory() throws {
        let saved = try run(["save", "github.com", "--user", "octocat"], script: Self.unlock, input: "new-github\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try KeePassXC.password(database, key: Self.key, title: "GitHub") == "new-github")
        let exported = try home.file("export.xml", try KeePassXC.exportXML(database, key: Self.key))
        let history = try ChildProcess.run("/usr/bin/env", ["python3", "\(CLI.root)/Tests/KDBXTests/Support/history_passwords.py", exported, "GitHub"])
        #expect(history.stdout == "old-github\n", "\(history.stderr)")
    }

    @Test func aDatabaseNamedByDatabaseFileIsReadOnlyAndASaveSaysHowToAllowIt() throws {
        let readOnly = try Self.configure(home, "read-only", ["DatabaseFile": database])
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let saved = try CLI.run(["save", "https://shop.example/login", "--user", "dave", "--config", readOnly,
                                 "--ui-script", try home.file("unlock.ui", Self.unlock)], home: home.path, input: "dave-secret\n")
        #expect(saved.status != 0)
        #expect(saved.stderr.contains("name it by WritableDatabaseFile instead"), "\(saved.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        // Filling from it works as before.
        let script = try home.file("unlock2.ui", Self.unlock)
        #expect(try CLI.run(["unlock", "org.autofill.keepassxc", "--config", readOnly, "--ui-script", script], home: home.path).status == 0)
        let filled = try CLI.run(["fill", "github.com", "--config", readOnly, "--ui-script", script], home: home.path)
        #expect(filled.stdout == "old-github\n", "\(filled.stderr)")
    }

    /// A database directly in the home folder: the provider is granted that file alone, read only, and
    /// the host replaces it (replace-file). Two saves in a row (the second based on what the first handed
    /// over: the provider's sandbox still shows the version it read), read back by keepassxc-cli, every
    /// other entry intact.
    @Test func aDatabaseInTheHomeFolderIsSavedIntoTwiceWithTheOtherEntriesIntact() throws {
        let inHome = "\(home.path)/Passwords.kdbx"
        let xml = KeePassXML(entries: [.init(title: "GitHub", user: "octocat", password: "old-github", url: "https://github.com/login"),
                                       .init(title: "Mail", user: "me", password: "mail-pw", url: "https://mail.example")])
        try KeePassXC.importXML(try home.file("import-home.xml", xml.text), to: inHome, key: Self.key)
        let inHomeConfig = try Self.configure(home, "home", ["WritableDatabaseFile": inHome])
        func save(_ site: String, _ user: String, _ password: String) throws -> CLI.Result {
            try CLI.run(["save", site, "--user", user, "--config", inHomeConfig, "--ui-script", try home.file("unlock-\(user).ui", Self.unlock)],
                        home: home.path, input: password + "\n")
        }
        var saved = try save("https://shop.example/login", "dave", "dave-secret")
        #expect(saved.status == 0, "\(saved.stderr)")
        saved = try save("github.com", "octocat", "new-github")
        #expect(saved.status == 0, "\(saved.stderr)")
        let shown = try ChildProcess.run(KeePassXC.cli, ["show", "-q", "-a", "UserName", "-a", "Password", inHome, "shop.example"], input: "\(Self.masterPassword)\n")
        #expect(shown.stdout == "dave\ndave-secret\n", "\(shown.stderr)")
        #expect(try KeePassXC.password(inHome, key: Self.key, title: "GitHub") == "new-github")
        #expect(try KeePassXC.password(inHome, key: Self.key, title: "Mail") == "mail-pw")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: home.path).filter { $0.hasPrefix(".Passwords.kdbx.") }
        #expect(leftovers.isEmpty)
    }

    /// KeePassXC saves the database while the provider runs under the agent: its sandbox holds the version
    /// it read, so the agent ends that helper before the next save (a new one reads the new version, then
    /// applies the change), and KeePassXC's entry is kept.
    @Test(.enabled(if: CLI.usesAgent))
    func aDatabaseSavedByKeePassXCMeanwhileIsReadAfreshAndTheSaveApplied() throws {
        var saved = try run(["save", "https://shop.example/login", "--user", "dave"], script: Self.unlock, input: "dave-secret\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        try KeePassXC.add(database, key: Self.key, title: "Bank", user: "erin", url: "https://bank.example", password: "bank-pw")
        saved = try run(["save", "https://shop.example/login", "--user", "dave"], script: Self.unlock, input: "dave-2\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try KeePassXC.password(database, key: Self.key, title: "shop.example") == "dave-2")
        #expect(try KeePassXC.password(database, key: Self.key, title: "Bank") == "bank-pw")
    }

    @Test func aGeneratedPasswordComesFromKeePassXCsProvider() throws {
        let generated = try run(["generate", "--for", "example.com", "--rules", "minlength: 20; required: digit"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let password = String(generated.stdout.dropLast())
        #expect(try PasswordRules.parse("minlength: 20; required: digit").violation(of: password) == nil)
    }
}
