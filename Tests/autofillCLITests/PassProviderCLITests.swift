import AutofillTestSupport
import Foundation
import Testing

/// The pass provider through the real `autofill`, in its sandbox, as a user runs it: a store made
/// with `pass`, a key with a passphrase and its own gpg-agent, the passphrase answered by a UI script.
struct PassProviderCLITests {
    let home: TemporaryHome
    let pass: PasswordStore
    let config: String

    static let totpSecret = "KRUGS4ZANFZSA43FMNZGK5BB"

    /// The provider enabled and approved, with pam_permit as the host's own authentication (so the
    /// fills that need no UI of the provider's run unattended, on purpose).
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        pass = try PasswordStore()
        try pass.insert("github.com/octocat", "s3cret-pass\nurl: https://github.com/login\notpauth://totp/GitHub:octocat?secret=\(Self.totpSecret)\n")
        try pass.insert("Email/work", "mail-pass\nlogin: me@example.org\n")
        _ = try home.sample("PassProvider", as: "org.autofill.pass")
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.pass"],
            "ProviderSettings": ["org.autofill.pass": ["PasswordStoreDir": pass.path, "GnuPGHome": pass.gnupgHome]],
            "UserAuthentication": ["Policy": "pam", "PAMService": "autofill-permit", "PAMConfigurationDirectory": try home.pamFolder()],
        ]
        config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.autofill.pass"], config: config)
        let sync = try CLI.run(["providers", "sync", "--config", config], home: home.path)
        #expect(sync.status == 0, "\(sync.stderr)")
    }

    func run(_ arguments: [String], script: String? = nil) throws -> CLI.Result {
        var options = ["--config", config]
        if let script { options += ["--ui-script", try home.file("script-\(UUID().uuidString).ui", script)] }
        return try CLI.run(arguments + options, home: home.path)
    }

    @Test func aFillAsksThePassphraseOnceThenGpgAgentsCacheServesPasswordsAndCodes() throws {
        let first = try run(["fill", "github.com"], script: "secret \(PasswordStore.passphrase)\n")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "s3cret-pass\n")
        #expect(!first.stderr.contains(PasswordStore.passphrase) && !first.stderr.contains("s3cret-pass"))

        // gpg-agent has the passphrase now: no UI script, nothing asked.
        let second = try run(["fill", "github.com", "--format", "json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("\"password\" : \"s3cret-pass\"") && second.stdout.contains("\"user\" : \"octocat\""))

        // The first fill showed the entry has a code: its one-time-code identity is published.
        let start = Date()
        let code = try run(["fill", "github.com", "--type", "otp"])
        #expect(code.status == 0, "\(code.stderr)")
        let seconds = Int64(start.timeIntervalSince1970) - 1...Int64(Date().timeIntervalSince1970) + 1
        let expected = try Set(seconds.map { try Oathtool.run(["--totp=SHA1", "-b", "--now", "@\($0)", "-"], key: Self.totpSecret) })
        #expect(expected.contains(code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(code.stdout)")
    }

    /// Every entry is published by its name before anything is decrypted: Email/work, whose path names no
    /// site, too (docs/PASS.md). No UI script: nothing may be asked, and nothing is decrypted.
    @Test func everyEntryIsAnIdentityByItsPathBeforeAnyDecryption() throws {
        let listed = try run(["identities", "list", "--provider", "org.autofill.pass", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("\"Email/work\""), "\(listed.stdout)")
        #expect(listed.stdout.contains("\"github.com/octocat\"") && listed.stdout.contains("\"github.com\""), "\(listed.stdout)")
        #expect(!listed.stdout.contains("mail-pass") && !listed.stdout.contains("me@example.org"), "nothing decrypted")
    }

    /// The keygrips whose passphrases the store's gpg-agent caches now (`KEYINFO --list`, field 7 = 1).
    func cachedKeygrips() throws -> [String] {
        let listed = try ChildProcess.run("/usr/bin/gpg-connect-agent", ["--homedir", pass.gnupgHome, "--no-autostart"],
                                          environment: pass.environment, input: "KEYINFO --list\n/bye\n")
        return listed.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count > 6 && fields[1] == "KEYINFO" && fields[6] == "1" ? String(fields[2]) : nil
        }
    }

    /// `autofill lock` of pass makes gpg-agent forget the passphrase of the store's key, which lives in gpg-agent,
    /// not in the provider's helper: the next fill asks it again. Before anything was decrypted through autofill,
    /// a passphrase the user's own gpg cached is not autofill's to know: lock says so, and is not "Locked".
    @Test func lockMakesGpgAgentForgetTheStoresPassphraseOrSaysWhyItCannot() throws {
        // The user's own gpg caches the passphrase; autofill has decrypted nothing: it cannot tell which keys are pass's.
        _ = try ChildProcess.run("/usr/bin/gpg", ["--homedir", pass.gnupgHome, "--batch", "--pinentry-mode", "loopback", "--passphrase",
                                                  PasswordStore.passphrase, "--output", "/dev/null", "--decrypt", "\(pass.path)/Email/work.gpg"],
                                 environment: pass.environment)
        #expect(try cachedKeygrips().count == 1)
        let unknown = try run(["lock", "org.autofill.pass"])
        #expect(unknown.status != 0 && !unknown.stdout.contains("Locked"), "\(unknown.stdout)")
        #expect(unknown.stderr.contains("caches 1 passphrase") && unknown.stderr.contains("--reload gpg-agent"), "\(unknown.stderr)")
        #expect(try cachedKeygrips().count == 1, "nothing cleared that autofill does not know to be pass's")

        // A fill through autofill (the agent: nothing to ask, gpg-agent has it) lists the store's keys; lock clears them.
        let fill = try run(["fill", "github.com", "--pick", "1"])
        #expect(fill.status == 0 && fill.stdout == "s3cret-pass\n", "\(fill.stderr)")
        let locked = try run(["lock", "org.autofill.pass"])
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(locked.stdout.contains("gpg-agent forgot the passphrase of 1 key of pass (org.autofill.pass)"), "\(locked.stdout)")
        #expect(locked.stdout.contains("Locked org.autofill.pass."), "\(locked.stdout)")
        #expect(try cachedKeygrips().isEmpty, "gpg-agent caches nothing now")
        let again = try run(["fill", "github.com", "--pick", "1"])
        #expect(again.status != 0 && again.stdout.isEmpty, "the next fill needs the passphrase again: \(again.stderr)")
        let asked = try run(["fill", "github.com", "--pick", "1"], script: "secret \(PasswordStore.passphrase)\n")
        #expect(asked.status == 0 && asked.stdout == "s3cret-pass\n", "\(asked.stderr)")

        // Nothing cached, nothing to say: a lock with gpg-agent holding nothing locks quietly.
        _ = try run(["lock"])
        let quiet = try run(["lock", "org.autofill.pass"])
        #expect(quiet.status == 0 && !quiet.stderr.contains("gpg-agent"), "\(quiet.stderr)")
    }

    @Test func withoutARunningGpgAgentAutofillStartsItForTheStoresGnuPGHomeAsPassDoes() throws {
        pass.stopAgent()
        let socket = try ChildProcess.run("/usr/bin/gpgconf", ["--homedir", pass.gnupgHome, "--list-dirs", "agent-socket"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // gpg-agent removes its socket as it ends, which may be a moment after gpgconf --kill returned.
        #expect(waitUntil { !FileManager.default.fileExists(atPath: socket) }, "no agent runs for \(pass.gnupgHome)")
        let fill = try run(["fill", "github.com"], script: "secret \(PasswordStore.passphrase)\n")
        #expect(fill.status == 0, "\(fill.stderr)")
        #expect(fill.stdout == "s3cret-pass\n")
        // The agent autofill started is the user's own, outside the sandbox: it outlives the command
        // and keeps the passphrase it was given (the next fill asks nothing). The store's deinit stops it.
        #expect(FileManager.default.fileExists(atPath: socket), "gpg-agent listens at \(socket)")
        let again = try run(["fill", "github.com"])
        #expect(again.status == 0 && again.stdout == "s3cret-pass\n", "\(again.stderr)")
    }

    @Test func anAgentConfigurationNamingAProgramOfItsOwnIsNeverStartedOutsideTheSandbox() throws {
        // No provider may write its GnuPG home (SandboxAttackTests+GnuPG), but another program of the user's
        // might: a gpg-agent.conf naming a "pinentry" of its own would run outside the sandbox with an agent
        // autofill started. autofill starts none then.
        pass.stopAgent()
        let marker = "\(home.path)/escaped"
        let program = try home.file("pinentry.sh", "#!/bin/sh\ntouch '\(marker)'\necho OK\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program)
        let conf = "\(pass.gnupgHome)/gpg-agent.conf"
        try Data("pinentry-program \(program)\n".utf8).write(to: URL(fileURLWithPath: conf))
        defer { try? FileManager.default.removeItem(atPath: conf) }
        let socket = try ChildProcess.run("/usr/bin/gpgconf", ["--homedir", pass.gnupgHome, "--list-dirs", "agent-socket"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(waitUntil { !FileManager.default.fileExists(atPath: socket) }, "no agent runs for \(pass.gnupgHome)")
        let fill = try run(["fill", "github.com", "--pick", "1"], script: "secret \(PasswordStore.passphrase)\n")
        #expect(fill.status != 0 && fill.stdout.isEmpty, "\(fill.stdout)")
        #expect(fill.stderr.contains("gpg-agent is not running"), "the provider says what it misses: \(fill.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket), "no agent was started")
        #expect(!FileManager.default.fileExists(atPath: marker), "the program never ran")
        // The control: the same home without that line gets its agent when the provider starts again.
        try FileManager.default.removeItem(atPath: conf)
        _ = try run(["lock", "org.autofill.pass"])
        let control = try run(["fill", "github.com", "--pick", "1"], script: "secret \(PasswordStore.passphrase)\n")
        #expect(control.status == 0 && control.stdout == "s3cret-pass\n", "\(control.stderr)")
    }

    @Test func theListShowsEveryEntryAndAWrongPassphraseFillsNothing() throws {
        let listed = try run(["fill", "example.org", "--list", "--provider", "org.autofill.pass"],
                             script: "choose 1\nsecret \(PasswordStore.passphrase)\n")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == "mail-pass\n")

        pass.stopAgent()  // forget the passphrase
        try pass.startAgent()
        let wrong = try run(["fill", "github.com", "--pick", "1"], script: "secret wrong-1\nsecret wrong-2\nsecret wrong-3\n")
        #expect(wrong.status == 69, "\(wrong.stderr)")
        #expect(wrong.stderr.contains("cannot decrypt github.com/octocat: wrong passphrase (3 tries)"), "\(wrong.stderr)")
        #expect(wrong.stdout.isEmpty && !wrong.stderr.contains("wrong-1"))
    }
}
