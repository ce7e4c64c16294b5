import AutofillTestSupport
import Foundation
import Testing

/// The KeePassXC provider through the real `autofill`, in its sandbox, as a user runs it: a database
/// made by keepassxc-cli, the master password answered by a UI script.
@Suite(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
struct KeePassCLITests {
    let home: TemporaryHome
    let config: String
    let database: String

    static let masterPassword = "correct horse battery"
    static let totpSecret = "JBSWY3DPEHPK3PXP"

    /// The provider enabled and approved, with pam_permit as the host's own authentication.
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        try FileManager.default.createDirectory(atPath: "\(home.path)/keepass", withIntermediateDirectories: true)
        database = "\(home.path)/keepass/passwords.kdbx"
        // A passkey as KeePassXC's browser integration stores one, registered with the relying party.
        let made = try Self.relyingParty(["keepassxc-passkey", "\(home.path)/rp.json", "--rp-id", "example.com", "--user", "alice"])
        #expect(made.status == 0, "\(made.stderr)")
        let passkey = try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: String] ?? [:]
        let xml = KeePassXML(entries: [
            .init(title: "GitHub", user: "octocat", password: "s3cret-pass", url: "https://github.com/login",
                  fields: ["otp": "otpauth://totp/GitHub:octocat?secret=\(Self.totpSecret)"]),
            .init(title: "Example passkey", user: "alice", password: "", url: "https://example.com", fields: passkey),
        ], recycled: [.init(title: "Old", user: "gone", password: "deleted-pass", url: "https://github.com")])
        try KeePassXC.importXML(try home.file("import.xml", xml.text), to: database, key: KeePassXC.Key(password: Self.masterPassword))
        _ = try home.sample("KeePassProvider", as: "org.autofill.keepassxc")
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.keepassxc"],
            "ProviderSettings": ["org.autofill.keepassxc": ["DatabaseFile": database]],
            "UserAuthentication": ["Policy": "pam", "PAMService": "autofill-permit", "PAMConfigurationDirectory": try home.pamFolder()],
        ]
        config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.autofill.keepassxc"], config: config)
        let sync = try CLI.run(["providers", "sync", "--config", config], home: home.path)
        #expect(sync.status == 0, "\(sync.stderr)")
    }

    /// The relying party (`Support/relying_party.py`, py_webauthn and python-fido2).
    static func relyingParty(_ arguments: [String], stdin: String = "") throws -> CLI.Result {
        try ChildProcess.run("/usr/bin/env", ["python3", "\(CLI.root)/Tests/autofillCLITests/Support/relying_party.py"] + arguments, input: stdin)
    }

    func run(_ arguments: [String], script: String? = nil) throws -> CLI.Result {
        var options = ["--config", config]
        if let script { options += ["--ui-script", try home.file("script-\(UUID().uuidString).ui", script)] }
        return try CLI.run(arguments + options, home: home.path)
    }

    @Test func providersListSaysNothingIsPublishedUntilTheUnlock() throws {
        let listed = try run(["providers", "list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("no identities until it is unlocked (its sites are encrypted too): autofill unlock org.autofill.keepassxc"),
                "\(listed.stdout)")
        let unlocked = try run(["unlock", "org.autofill.keepassxc"], script: "secret \(Self.masterPassword)\n")
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let after = try run(["providers", "list"])
        #expect(after.stdout.contains("3 identities"), "\(after.stdout)")  // GitHub's password and code, the passkey; not the recycle bin's
    }

    @Test func anUnlockThenFillsPasswordsAndCodesMatchingOathtool() throws {
        let unlocked = try run(["unlock", "org.autofill.keepassxc"], script: "secret \(Self.masterPassword)\n")
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        // Through the agent the database stays unlocked; in a process of its own, the fill asks again.
        let script = CLI.usesAgent ? nil : "secret \(Self.masterPassword)\n"
        let fill = try run(["fill", "github.com"], script: script)
        #expect(fill.status == 0, "\(fill.stderr)")
        #expect(fill.stdout == "s3cret-pass\n")
        #expect(!fill.stderr.contains(Self.masterPassword) && !fill.stderr.contains("s3cret-pass"))

        let start = Date()
        let code = try run(["fill", "github.com", "--type", "otp"], script: script)
        #expect(code.status == 0, "\(code.stderr)")
        let seconds = Int64(start.timeIntervalSince1970) - 1...Int64(Date().timeIntervalSince1970) + 1
        let expected = try Set(seconds.map { try Oathtool.run(["--totp=SHA1", "-b", "--now", "@\($0)", "-"], key: Self.totpSecret) })
        #expect(expected.contains(code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(code.stdout)")
    }

    @Test func aWrongMasterPasswordFillsNothingAndPrintsNoContents() throws {
        let wrong = try run(["unlock", "org.autofill.keepassxc"], script: "secret wrong-1\nsecret wrong-2\nsecret wrong-3\n")
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("wrong master password or key file (3 attempts)"), "\(wrong.stderr)")
        for secret in ["wrong-1", "s3cret-pass", "deleted-pass", Self.totpSecret, "octocat"] {
            #expect(!wrong.stderr.contains(secret) && !wrong.stdout.contains(secret))
        }
    }

    @Test func aStoredPasskeySignsInAndTheRelyingPartyVerifiesIt() throws {
        let unlocked = try run(["unlock", "org.autofill.keepassxc"], script: "secret \(Self.masterPassword)\n")
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let options = try Self.relyingParty(["authentication-options", "\(home.path)/rp.json", "--uv", "required"])
        #expect(options.status == 0, "\(options.stderr)")
        let signed = try run(["passkey", "get", "--origin", "https://example.com", "--options", try home.file("get.json", options.stdout), "--json"],
                             script: CLI.usesAgent ? nil : "secret \(Self.masterPassword)\n")
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(!signed.stdout.contains("PRIVATE KEY") && !signed.stderr.contains("PRIVATE KEY"))
        let verdict = try Self.relyingParty(["authentication-verify", "\(home.path)/rp.json", "--origin", "https://example.com"], stdin: signed.stdout)
        #expect(verdict.status == 0, "\(verdict.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(verdict.stdout.utf8)) as? [String: Any] ?? [:]
        #expect(summary["userVerified"] as? Bool == true)
        #expect(summary["signCount"] as? Int == 0)  // KeePassXC keeps no counter
    }

    /// A database file replaced by one whose key derivation would take hours (a 300-byte header asking
    /// for 10^13 AES-KDF rounds) is refused before the derivation runs, naming the file, and
    /// `fill --fallback` moves on to the next provider at once. Unlocked in the agent, the changed file
    /// is read again with the held key; in a process of its own, after the master password.
    @Test func aDatabaseAskingForAnHoursLongKeyDerivationIsRefusedAndTheFillFallsBack() throws {
        #expect(try run(["unlock", "org.autofill.keepassxc"], script: "secret \(Self.masterPassword)\n").status == 0)
        _ = try home.fixtureProvider(id: "org.t.backup")
        let both = "\(home.path)/both.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.keepassxc", "org.t.backup"],
            "ProviderSettings": ["org.autofill.keepassxc": ["DatabaseFile": database], "org.t.backup": ["FixtureName": "backup"]],
            "UserAuthentication": ["Policy": "none"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: both))
        try home.trust(["org.t.backup"], config: both)
        let ids = try home.file("backup.json", #"{ "identities": [ { "kind": "password", "serviceIdentifier": { "identifier": "github.com", "type": "domain" }, "user": "ok" } ] }"#)
        #expect(try CLI.run(["identities", "save", "--provider", "org.t.backup", "--file", ids, "--config", both], home: home.path).status == 0)
        try Data(CraftedKDBX.kdbx3(rounds: 10_000_000_000_000)).write(to: URL(fileURLWithPath: database))
        let script = try home.file("unlock.ui", "secret \(Self.masterPassword)\n")
        let fill = try CLI.run(["fill", "github.com", "--pick", "1", "--fallback", "--ui-script", script, "--config", both], home: home.path)
        #expect(fill.status == 0 && fill.stdout == "pw-backup\n", "\(fill.stderr)")
        #expect(fill.stderr.contains("the database \(database) asks for a key derivation that would take about"), "\(fill.stderr)")
        #expect(fill.stderr.contains("(AES-KDF, 10000000000000 rounds), over the limit of 10 s; it was not run"), "\(fill.stderr)")
    }
}
