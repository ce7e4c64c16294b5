import AutofillTestSupport
import Foundation
import Testing

/// KeePassXC (or any program) saves the database by renaming a new file over it while the agent keeps
/// the KeePassXC provider's helper warm. The helper's sandbox holds a declared single file by its inode
/// (docs/SANDBOX.md, "What the provider sees after a rename"), so before a request the agent compares
/// the file's device and inode with those of the helper's start, and a replaced file ends the helper:
/// the request runs in a new one that reads the current file. An unchanged file keeps the warm helper.
@Suite(.enabled(if: KeePassXC.isInstalled && CLI.usesAgent, "keepassxc-cli is not installed, or the suite runs without the agent"))
struct KeePassOutsideSaveCLITests {
    let home: TemporaryHome
    let config: String
    let database: String

    static let masterPassword = "correct horse battery"
    static let key = KeePassXC.Key(password: masterPassword)

    init() throws {
        home = try TemporaryHome()
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        database = "\(home.path)/Passwords.kdbx"
        let xml = KeePassXML(entries: [.init(title: "GitHub", user: "octocat", password: "old-github", url: "https://github.com/login")])
        try KeePassXC.importXML(try home.file("import.xml", xml.text), to: database, key: Self.key)
        _ = try home.sample("KeePassProvider", as: "org.autofill.keepassxc")
        config = try KeePassSaveCLITests.configure(home, "config", ["DatabaseFile": database])
    }

    /// `fill github.com`, unlocking with the master password when `unlocking` (else a prompt fails the fill).
    func fill(unlocking: Bool) throws -> CLI.Result {
        var arguments = ["fill", "github.com", "--config", config]
        if unlocking { arguments += ["--ui-script", try home.file("unlock-\(UUID().uuidString).ui", "secret \(Self.masterPassword)\n")] }
        return try CLI.run(arguments, home: home.path)
    }

    func unlock() throws {
        let script = try home.file("unlock-\(UUID().uuidString).ui", "secret \(Self.masterPassword)\n")
        let unlocked = try CLI.run(["unlock", "org.autofill.keepassxc", "--config", config, "--ui-script", script], home: home.path)
        try #require(unlocked.status == 0, "\(unlocked.stderr)")
    }

    /// The pid of the KeePassXC provider's helper, from `agent status --json`.
    func helperPID() throws -> Int? {
        let status = try CLI.run(["agent", "status", "--json"], home: home.path)
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let providers = json?["providers"] as? [[String: Any]] ?? []
        return providers.first { $0["id"] as? String == "org.autofill.keepassxc" }?["helperPID"] as? Int
    }

    func inode() throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: database)[.systemFileNumber] as? Int)
    }

    @Test func aFillAfterKeePassXCSavedTheDatabaseGivesTheNewPasswordFromANewHelper() throws {
        try unlock()
        var filled = try fill(unlocking: false)
        #expect(filled.stdout == "old-github\n", "\(filled.stderr)")
        let first = try #require(try helperPID())
        let before = try inode()
        try KeePassXC.changePassword(database, key: Self.key, title: "GitHub", to: "new-github")
        #expect(try inode() != before, "keepassxc-cli saves by renaming a new file over the old one")
        filled = try fill(unlocking: true)
        #expect(filled.stdout == "new-github\n", "\(filled.stderr)")
        #expect(try helperPID() != first, "the helper whose sandbox held the old file ended")
        #expect(!filled.stderr.contains(Self.masterPassword) && !filled.stderr.contains("new-github"))
    }

    @Test func aFileReplacedByRenameWithAnotherVersionIsReadAfresh() throws {
        try unlock()
        var filled = try fill(unlocking: false)
        #expect(filled.stdout == "old-github\n", "\(filled.stderr)")
        // Another version, written beside it and renamed over it (as any safe save does).
        let other = "\(home.path)/other.kdbx"
        let xml = KeePassXML(entries: [.init(title: "GitHub", user: "octocat", password: "renamed-github", url: "https://github.com/login")])
        try KeePassXC.importXML(try home.file("other.xml", xml.text), to: other, key: Self.key)
        #expect(rename(other, database) == 0)
        filled = try fill(unlocking: true)
        #expect(filled.stdout == "renamed-github\n", "\(filled.stderr)")
    }

    /// The control: the file unchanged, the warm helper serves the next fill (the same pid) without asking
    /// for the master password again.
    @Test func anUnchangedDatabaseKeepsTheWarmHelperAndItsUnlock() throws {
        try unlock()
        var filled = try fill(unlocking: false)
        #expect(filled.stdout == "old-github\n", "\(filled.stderr)")
        let first = try #require(try helperPID())
        filled = try fill(unlocking: false)
        #expect(filled.stdout == "old-github\n", "no new unlock: \(filled.stderr)")
        #expect(try helperPID() == first)
    }

    /// The host's own replace (an autofill save) makes a new inode too, but the provider knows the version
    /// it handed over: the warm helper stays, and the next fill needs no unlock.
    @Test func aSaveThroughAutofillKeepsTheWarmHelper() throws {
        let writable = try KeePassSaveCLITests.configure(home, "writable", ["WritableDatabaseFile": database])
        let script = try home.file("unlock-save.ui", "secret \(Self.masterPassword)\n")
        let saved = try CLI.run(["save", "https://shop.example/login", "--user", "dave", "--config", writable, "--ui-script", script],
                                home: home.path, input: "dave-secret\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        let first = try #require(try helperPID())
        let filled = try CLI.run(["fill", "shop.example", "--config", writable], home: home.path)
        #expect(filled.stdout == "dave-secret\n", "no new unlock: \(filled.stderr)")
        #expect(try helperPID() == first)
    }
}
