import AutofillTestSupport
import Foundation
import Testing

/// A provider that declares what the pass provider declares (its store and GnuPG home read, gpg-agent's
/// runtime folder read, gpg and gpgconf, GPGAgent) tries to make the user's gpg-agent run a program of its
/// choosing outside the sandbox: write the GnuPG configuration files, then `gpgconf --change-options` and
/// `--reload`. docs/SANDBOX.md, "GnuPG homes are read-only".
extension SandboxAttackTests {
    static let configurationFiles = ["gpg-agent.conf", "common.conf", "gpg.conf", "scdaemon.conf", "dirmngr.conf"]

    /// pass's own declaration (Plugins/PassProvider/Info.plist), with the GnuPG home's access `homeAccess`
    /// and `more` programs.
    static func passDeclaration(homeAccess: String = "read", more: [String] = []) -> [String: Any] {
        [
            "Files": [
                ["Setting": "PasswordStoreDir", "Default": ["$PASSWORD_STORE_DIR", "~/.password-store"], "Access": "add-files",
                 "Suffix": ".gpg", "GitCommit": true],
                ["Setting": "GnuPGHome", "Default": ["$GNUPGHOME", "~/.gnupg"], "Access": homeAccess],
                ["Path": "$XDG_RUNTIME_DIR/gnupg", "Access": "read"],
            ],
            "Executables": ["gpg", "gpgconf"] + more, "Environment": ["PASSWORD_STORE_DIR", "GNUPGHOME"], "GPGAgent": "GnuPGHome",
        ]
    }

    /// The attacker declares pass's grants and, beyond them, gpg-agent itself (which `gpgconf --change-options`
    /// runs to list its options), so only the read-only home stands in its way.
    @Test func aProviderWithPasssGrantsCannotChangeTheGnuPGConfigurationNorReloadGpgAgentIntoIt() throws {
        let store = try PasswordStore()
        try store.insert("example.com/alice", "alice-pass\n")
        let settings = ["GnuPGHome": store.gnupgHome, "PasswordStoreDir": store.path]
        let sandbox = Self.passDeclaration(more: ["gpg-agent"])
        let before = try FileManager.default.contentsOfDirectory(atPath: store.gnupgHome).sorted()
        // The test home has a gpg-agent.conf of its own (PasswordStore): replacing one counts as much as adding one.
        let contents = Dictionary(uniqueKeysWithValues: Self.configurationFiles.map { ($0, FileManager.default.contents(atPath: "\(store.gnupgHome)/\($0)")) })
        let (outcome, result) = try attack("gnupg-home", target: store.gnupgHome, sandbox: sandbox, settings: settings)
        #expect(result.status == 0, "the host finishes: \(result.stderr)")
        #expect(outcome.hasPrefix("ok "), "\(outcome)")
        for file in Self.configurationFiles {
            #expect(!outcome.contains(" \(file):ok"), "\(file) was written: \(outcome)")
            #expect(FileManager.default.contents(atPath: "\(store.gnupgHome)/\(file)") == contents[file] ?? nil, "\(file) was changed on disk")
        }
        #expect(!outcome.contains("change-options:0"), "\(outcome)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.gnupgHome).sorted() == before, "nothing added to the GnuPG home")
        // gpg-agent, asked outside, has no program of the attacker's.
        let options = try ChildProcess.run("/usr/bin/gpgconf", ["--homedir", store.gnupgHome, "--list-options", "gpg-agent"],
                                           environment: ["PATH": "/usr/bin:/bin"])
        #expect(options.status == 0 && !options.stdout.contains("99999999"), "\(options.stdout)")

        // The same grants still decrypt and encrypt: the home is all gpg needs, read only.
        let decrypt = ["/usr/bin/gpg", "--homedir", store.gnupgHome, "--batch", "--pinentry-mode", "loopback", "--passphrase",
                       PasswordStore.passphrase, "--output", "/dev/null", "--decrypt", "\(store.path)/example.com/alice.gpg"]
        #expect(try attack("argv", target: decrypt.joined(separator: "|"), sandbox: sandbox, settings: settings).outcome == "ok ran, status 0")
        let encrypt = ["/usr/bin/gpg", "--homedir", store.gnupgHome, "--batch", "--yes", "--encrypt", "--recipient", store.fingerprint,
                       "--output", "encrypted.gpg", "/etc/passwd"]
        #expect(try attack("argv", target: encrypt.joined(separator: "|"), sandbox: sandbox, settings: settings).outcome == "ok ran, status 0")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.gnupgHome).sorted() == before)
    }

    /// The control: the same attack on a folder the provider may change (not a GnuPG home) writes every file
    /// and gpgconf changes the option there, so the denial above is the sandbox's.
    @Test func theGnuPGAttackWorksOnAFolderTheProviderMayChange() throws {
        let scratch = "\(home.path)/scratch"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let sandbox: [String: Any] = ["Files": [["Path": scratch, "Access": "read-write-folder"]], "Executables": ["gpgconf", "gpg-agent"]]
        let (outcome, result) = try attack("gnupg-home", target: scratch, sandbox: sandbox)
        #expect(result.status == 0, "\(result.stderr)")
        for file in Self.configurationFiles { #expect(outcome.contains(" \(file):ok"), "\(outcome)") }
        #expect(outcome.contains("change-options:0"), "\(outcome)")
        let written = try String(contentsOfFile: "\(scratch)/gpg-agent.conf", encoding: .utf8)
        #expect(written.contains("pinentry-program") && written.contains("max-cache-ttl 99999999"), "\(written)")
    }

    /// pass's store is add-files: read to the provider, written by the host alone. With pass's grants the
    /// provider cannot write an entry, `.gpg-id`, or anything of `.git` itself; it reads the store (control).
    @Test func aProviderWithPasssGrantsCannotWriteItsStore() throws {
        let store = try PasswordStore()
        try store.insert("example.com/alice", "alice-pass\n")
        try store.gitInit()
        let settings = ["GnuPGHome": store.gnupgHome, "PasswordStoreDir": store.path]
        let sandbox = Self.passDeclaration()
        for target in ["\(store.path)/evil.gpg", "\(store.path)/example.com/alice.gpg", "\(store.path)/.gpg-id", "\(store.path)/.git/config",
                       "\(store.path)/.git/hooks/post-commit", "\(store.path)/.git/commondir", "\(store.path)/.extensions/x.bash"] {
            let before = FileManager.default.contents(atPath: target)
            let (outcome, result) = try attack("write-file", target: target, sandbox: sandbox, settings: settings)
            #expect(result.status == 0, "the host finishes: \(result.stderr)")
            #expect(outcome.hasPrefix("denied "), "\(target): \(outcome)")
            #expect(FileManager.default.contents(atPath: target) == before, "\(target) is unchanged")
        }
        #expect(try attack("read-file", target: "\(store.path)/.gpg-id", sandbox: sandbox, settings: settings).outcome.hasPrefix("ok read"))
    }

    /// The declaration pass had before: its GnuPG home read-write. Refused before any of its code runs.
    @Test func aGnuPGHomeDeclaredWritableIsRefused() throws {
        let bundle = try home.sample("PassProvider", as: "org.t.pass") { plist in
            plist["AFProviderSandbox"] = Self.passDeclaration(homeAccess: "read-write-folder")
        }
        let result = try CLI.run(["plugin", "validate", bundle], home: home.path)
        #expect(result.status != 0)
        #expect(result.stdout.contains("GPGAgent") || result.stderr.contains("GPGAgent"), "\(result.stdout)\(result.stderr)")
        #expect((result.stdout + result.stderr).contains("names a GnuPG home the provider could change"), "\(result.stdout)\(result.stderr)")
    }
}
