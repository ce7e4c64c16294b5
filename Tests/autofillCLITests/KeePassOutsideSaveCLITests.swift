import AutofillTestSupport
import Foundation
import Testing

/// KeePassXC (or any program) saves the database by renaming a new file over it while the agent keeps
/// the KeePassXC provider's helper warm. The helper's sandbox holds a declared single file by its inode
/// (docs/SANDBOX.md, "What the provider sees after a rename"); the provider opens the database through
/// the host (`open_file`), which opens the current file, so the warm helper reads KeePassXC's version
/// with the key it holds: the same helper, no new unlock, and a save based on the current file.
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

    /// `save https://shop.example/login --user dave` of `password` with `config`, unlocking when `unlocking`.
    func save(_ password: String, config: String, unlocking: Bool) throws -> CLI.Result {
        var arguments = ["save", "https://shop.example/login", "--user", "dave", "--config", config]
        if unlocking { arguments += ["--ui-script", try home.file("unlock-\(UUID().uuidString).ui", "secret \(Self.masterPassword)\n")] }
        return try CLI.run(arguments, home: home.path, input: password + "\n")
    }

    /// The pid of the KeePassXC provider's helper, from `agent status --json`.
    func helperPID() throws -> Int? {
        try FileOpenTests.helperPID(of: "org.autofill.keepassxc", home: home.path)
    }

    func inode() throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: database)[.systemFileNumber] as? Int)
    }

    @Test func aFillAfterKeePassXCSavedTheDatabaseGivesTheNewPasswordFromTheSameHelperWithoutUnlocking() throws {
        try unlock()
        var filled = try fill(unlocking: false)
        #expect(filled.stdout == "old-github\n", "\(filled.stderr)")
        let first = try #require(try helperPID())
        let before = try inode()
        try KeePassXC.changePassword(database, key: Self.key, title: "GitHub", to: "new-github")
        #expect(try inode() != before, "keepassxc-cli saves by renaming a new file over the old one")
        filled = try fill(unlocking: false)
        #expect(filled.stdout == "new-github\n", "no new unlock: \(filled.stderr)")
        #expect(try helperPID() == first, "the warm helper read the new file through the host")
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
        let first = try #require(try helperPID())
        #expect(rename(other, database) == 0)
        filled = try fill(unlocking: false)
        #expect(filled.stdout == "renamed-github\n", "no new unlock: \(filled.stderr)")
        #expect(try helperPID() == first)
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
        let saved = try save("dave-secret", config: writable, unlocking: true)
        #expect(saved.status == 0, "\(saved.stderr)")
        let first = try #require(try helperPID())
        let filled = try CLI.run(["fill", "shop.example", "--config", writable], home: home.path)
        #expect(filled.stdout == "dave-secret\n", "no new unlock: \(filled.stderr)")
        #expect(try helperPID() == first)
    }

    /// A save after KeePassXC saved the database applies to KeePassXC's version, in the same helper,
    /// without a new unlock, KeePassXC's entry kept.
    @Test func aSaveAfterKeePassXCSavedTheDatabaseAppliesWithoutEndingTheHelper() throws {
        let writable = try KeePassSaveCLITests.configure(home, "writable", ["WritableDatabaseFile": database])
        var saved = try save("dave-secret", config: writable, unlocking: true)
        #expect(saved.status == 0, "\(saved.stderr)")
        let first = try #require(try helperPID())
        try KeePassXC.add(database, key: Self.key, title: "Bank", user: "erin", url: "https://bank.example", password: "bank-pw")
        saved = try save("dave-2", config: writable, unlocking: false)
        #expect(saved.status == 0, "no new unlock: \(saved.stderr)")
        #expect(try helperPID() == first)
        #expect(try KeePassXC.password(database, key: Self.key, title: "shop.example") == "dave-2")
        #expect(try KeePassXC.password(database, key: Self.key, title: "Bank") == "bank-pw")
        #expect(try KeePassXC.password(database, key: Self.key, title: "GitHub") == "old-github")
    }
}
