import AutofillTestSupport
import Foundation
import Testing

/// pass saves and generates through the real `autofill` and agent, in its sandbox: the entry is
/// encrypted inside it, written and committed by the host (add-files), and read back by the real
/// `pass show` and `git log` (README.md, the pass provider's "Saving").
struct PassWriteCLITests {
    let home: TemporaryHome
    let pass: PasswordStore
    let config: String

    init() throws {
        home = try TemporaryHome()
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        pass = try PasswordStore()
        try pass.insert("example.org/bob", "old-pass\nlogin: bob\nurl: https://example.org/login\nnote: keep me\notpauth://totp/x?secret=KRUGS4ZANFZSA43FMNZGK5BB\n")
        try pass.gitInit()
        _ = try home.sample("PassProvider", as: "org.autofill.pass")
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.pass"],
            "ProviderSettings": ["org.autofill.pass": ["PasswordStoreDir": pass.path, "GnuPGHome": pass.gnupgHome]],
            "UserAuthentication": ["Policy": "none"],
        ]
        config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.autofill.pass"], config: config)
    }

    func run(_ arguments: [String], input: String = "", script: String? = nil) throws -> CLI.Result {
        var options = ["--config", config]
        if let script { options += ["--ui-script", try home.file("script-\(UUID().uuidString).ui", script)] }
        return try CLI.run(arguments + options, home: home.path, input: input)
    }

    /// The subject of the store's newest commit.
    func lastCommit() throws -> String {
        try pass.pass(["git", "log", "-1", "--format=%s"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aSavedLoginIsANewEntryPassShowsAndGitRecords() throws {
        let saved = try run(["save", "https://example.com/login", "--user", "alice"], input: "N3w-pass\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(!saved.stderr.contains("N3w-pass"))
        #expect(try pass.show("example.com/alice") == "N3w-pass\nlogin: alice\nurl: https://example.com/login\n")
        #expect(try lastCommit() == "Add given password for example.com/alice to store.")
        #expect(try pass.pass(["git", "status", "--porcelain"]).isEmpty, "nothing left uncommitted")
        // Published at once, by its name, for the site.
        let listed = try run(["identities", "list", "--provider", "org.autofill.pass", "--json"])
        #expect(listed.stdout.contains("\"example.com/alice\""), "\(listed.stdout)")
    }

    @Test func anUpdateReplacesLineOneAndKeepsEveryOtherLine() throws {
        // The entry is decrypted first: its passphrase is asked through the host.
        let saved = try run(["save", "example.org", "--user", "bob"], input: "n3w-bob-pass\n", script: "secret \(PasswordStore.passphrase)\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try pass.show("example.org/bob")
            == "n3w-bob-pass\nlogin: bob\nurl: https://example.org/login\nnote: keep me\notpauth://totp/x?secret=KRUGS4ZANFZSA43FMNZGK5BB\n")
        #expect(try lastCommit() == "Edit password for example.org/bob using autofill.")
        #expect(!saved.stderr.contains("n3w-bob-pass") && !saved.stderr.contains("old-pass"))
    }

    @Test func aGeneratedPasswordMeetsTheRulesAndSavesThroughSave() throws {
        let rules = "minlength: 30; required: digit; required: [-_]; allowed: lower; max-consecutive: 2"
        let generated = try run(["generate", "--for", "example.net", "--rules", rules, "--provider", "org.autofill.pass"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let password = generated.stdout.trimmingCharacters(in: .newlines)
        #expect(password.count == 30, "\(password.count) characters")
        #expect(password.contains(where: \.isNumber) && password.contains(where: { "-_".contains($0) }))
        #expect(password.allSatisfy { $0.isNumber || "-_".contains($0) || ("a"..."z").contains($0) })
        // With no rules: pass generate's 25 characters, no space.
        let plain = try run(["generate", "--for", "example.net", "--provider", "org.autofill.pass"])
        let text = plain.stdout.trimmingCharacters(in: .newlines)
        #expect(plain.status == 0 && text.count == 25 && !text.contains(" "), "\(plain.stderr)")
        // Generating saved nothing; `autofill save` does.
        #expect(!FileManager.default.fileExists(atPath: "\(pass.path)/example.net"))
        let saved = try run(["save", "example.net", "--user", "carol"], input: password + "\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try pass.show("example.net/carol").hasPrefix(password + "\n"))
    }

    @Test func aNewEntryIsEncryptedToTheNearestGpgIdOfItsFolder() throws {
        // example.net has a .gpg-id of its own, naming another key (public only here).
        let other = "\(pass.folder.path)/other.asc"
        try Data(try PasswordStore.otherPublicKey().utf8).write(to: URL(fileURLWithPath: other))
        let imported = try ChildProcess.run("/usr/bin/gpg", ["--homedir", pass.gnupgHome, "--batch", "--import", other], environment: pass.environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        let listed = try ChildProcess.run("/usr/bin/gpg", ["--homedir", pass.gnupgHome, "--batch", "--with-colons", "--list-keys"],
                                          environment: pass.environment)
        let fingerprints = listed.stdout.split(separator: "\n").filter { $0.hasPrefix("fpr:") }.map { String($0.split(separator: ":", omittingEmptySubsequences: false)[9]) }
        let otherKey = try #require(fingerprints.first { $0 != pass.fingerprint })
        try FileManager.default.createDirectory(atPath: "\(pass.path)/example.net", withIntermediateDirectories: true)
        try Data("\(otherKey)\n".utf8).write(to: URL(fileURLWithPath: "\(pass.path)/example.net/.gpg-id"))
        let saved = try run(["save", "example.net", "--user", "dave"], input: "d4ve-pass\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        let packets = try ChildProcess.run("/usr/bin/gpg", ["--homedir", pass.gnupgHome, "--batch", "--list-packets", "--pinentry-mode", "cancel",
                                                            "\(pass.path)/example.net/dave.gpg"], environment: pass.environment)
        #expect(packets.stdout.contains("keyid \(otherKey.suffix(16))"), "\(packets.stdout)")
        #expect(!packets.stdout.contains("keyid \(pass.fingerprint.suffix(16))"), "encrypted to that folder's key alone")
    }

    /// git's `credential approve` reaches pass, the only provider that saves here.
    @Test func gitsStoreSavesIntoPass() throws {
        let approved = try Git.run(["credential", "approve"], home: home.path, config: config,
                                   input: Git.description(["protocol": "https", "host": "git.example.com", "username": "octo", "password": "gho_t0ken"]))
        #expect(approved.status == 0, "\(approved.stderr)")
        let shown = try pass.show("git.example.com/octo")
        #expect(shown.hasPrefix("gho_t0ken\nlogin: octo\nurl: https://git.example.com"), "\(shown)")
        #expect(try lastCommit() == "Add given password for git.example.com/octo to store.")
    }

    @Test func aUserThatCannotNameAFileIsRefusedAndNothingIsWritten() throws {
        let before = try lastCommit()
        for user in [".hidden", "a/b"] {
            let saved = try run(["save", "example.com", "--user", user], input: "pw-\(user.count)\n")
            #expect(saved.status != 0)
            #expect(saved.stderr.contains("cannot name a file"), "\(saved.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(pass.path)/example.com"))
        #expect(try lastCommit() == before)
    }

    /// The same user at another scheme of the site is another login: the https entry is never
    /// replaced by an http save, which gets a name of its own; an https save still updates it.
    @Test func anHttpSaveBesideAnHttpsEntryIsANewEntry() throws {
        let secret = "secret \(PasswordStore.passphrase)\n"
        let saved = try run(["save", "http://example.org/login", "--user", "bob"], input: "http-pass\n", script: secret)
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try pass.show("example.org/bob (http_login)") == "http-pass\nlogin: bob\nurl: http://example.org/login\n")
        #expect(try pass.show("example.org/bob").hasPrefix("old-pass\nlogin: bob\nurl: https://example.org/login\n"), "the https login kept")
        let updated = try run(["save", "https://example.org:443/login/", "--user", "bob"], input: "https-pass\n", script: secret)
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(try pass.show("example.org/bob").hasPrefix("https-pass\nlogin: bob\nurl: https://example.org/login\nnote: keep me\n"))
        #expect(try pass.show("example.org/bob (http_login)").hasPrefix("http-pass\n"), "the http login kept")
        // Listed with the user the entry holds, not its file name.
        let listed = try run(["identities", "list", "--provider", "org.autofill.pass", "--json"])
        #expect(listed.stdout.contains("\"example.org/bob (http_login)\"") && !listed.stdout.contains("\"bob (http_login)\""), "\(listed.stdout)")
    }

    /// git with `credential.useHttpPath`: one token per repository, the same user name for both;
    /// the second repository's token never replaces the first's, and each fill gets its own.
    @Test func oneTokenPerRepositoryWithUseHttpPath() throws {
        let secret = ["-c", "credential.useHttpPath=true"]
        for (repo, token) in [("org/one.git", "t0ken-one"), ("org/two.git", "t0ken-two")] {
            let approved = try Git.run(secret + ["credential", "approve"], home: home.path, config: config,
                                       input: Git.description(["protocol": "https", "host": "git.example.com", "path": repo, "username": "x-access-token", "password": token]))
            #expect(approved.status == 0, "\(approved.stderr)")
        }
        #expect(try pass.show("git.example.com/x-access-token").hasPrefix("t0ken-one\n"))
        #expect(try pass.show("git.example.com/x-access-token (https_org_two.git)").hasPrefix("t0ken-two\nlogin: x-access-token\nurl: https://git.example.com/org/two.git\n"))
        for (repo, token) in [("org/one.git", "t0ken-one"), ("org/two.git", "t0ken-two")] {
            let filled = try Git.run(secret + ["credential", "fill"], home: home.path, config: config,
                                     input: Git.description(["protocol": "https", "host": "git.example.com", "path": repo]))
            #expect(filled.status == 0 && filled.stdout.contains("password=\(token)\n"), "\(repo): \(filled.stderr)")
        }
    }
}
