import AutofillCore
import AutofillStore
import AutofillTestSupport
import Foundation
import Testing

/// autofill-vault end to end: the built binary, a temporary home, passwords on standard input.
struct CompanionCLITests {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // VaultTests, Tests, repo
        return url.path
    }()
    static var binary: String { "\(root)/.build/debug/autofill-vault" }

    typealias Result = ChildProcess.Result

    let home: TemporaryFolder
    var environment: [String: String] {
        ["HOME": home.path, "XDG_DATA_HOME": "\(home.path)/data", "XDG_RUNTIME_DIR": "\(home.path)/run", "PATH": "/usr/bin:/bin"]
    }
    var vaultPath: String { "\(home.path)/data/autofill/providers/org.autofill.vault/vault.afvault" }

    init() throws {
        home = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: "\(home.path)/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// Runs autofill-vault with `input` on standard input.
    func run(_ arguments: [String], input: String = "") throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw CLIFailure("\(Self.binary) is missing: run Scripts/build first")
        }
        return try ChildProcess.run(Self.binary, arguments, environment: environment, input: input)
    }

    /// The provider's store as the host sees it, enabled as `autofill providers enable` leaves it.
    func enabledStore() throws -> SQLiteIdentityStore {
        let store = try SQLiteIdentityStore.open(providerID: "org.autofill.vault", in: IdentityStoreDirectory(environment: environment))
        try store.setEnabled(true)
        return store
    }

    static let master = "correct horse battery staple\n"

    @Test func createAddListRemoveAndTheStoreFollows() throws {
        let store = try enabledStore()
        var result = try run(["create", "--password-stdin", "--scrypt-log2n", "10"], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Created the vault \(vaultPath) (scrypt N=2^10 r=8 p=1)."))
        #expect(try store.state().supportsIncrementalUpdates)

        // Something the vault did not write: an incremental update keeps it, a replace would not.
        let foreign = CredentialIdentity.password(PasswordCredentialIdentity(
            serviceIdentifier: .init(identifier: "foreign.test", type: .domain), user: "zed", recordIdentifier: "x"))
        try store.save([foreign])

        result = try run(["add-password", "--password-stdin", "--service", "example.com", "--user", "alice", "--id", "vault-1", "--rank", "2"],
                         input: Self.master + "alice-pw-1\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("org.autofill.vault: identity store updated: 1 saved, 0 removed"))
        result = try run(["add-otp", "--password-stdin", "--service", "example.com", "--label", "alice", "--id", "otp-1"],
                         input: Self.master + "JBSWY3DPEHPK3PXP\n")
        #expect(result.status == 0, "\(result.stderr)")
        result = try run(["add-text", "--password-stdin", "--title", "Address", "--id", "text-1"], input: Self.master + "1 Main Street\nSpringfield\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(try store.allIdentities()) == [
            foreign,
            .password(PasswordCredentialIdentity(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: "alice",
                                                 recordIdentifier: "vault-1", rank: 2)),
            .oneTimeCode(OneTimeCodeCredentialIdentity(serviceIdentifier: .init(identifier: "example.com", type: .domain), label: "alice",
                                                       recordIdentifier: "otp-1")),
        ])

        result = try run(["list", "--password-stdin"], input: Self.master)
        #expect(result.status == 0)
        #expect(result.stdout.contains("3 entries"))
        #expect(result.stdout.contains("vault-1") && result.stdout.contains("Address"))
        for secret in ["alice-pw-1", "JBSWY3DPEHPK3PXP", "Main Street"] { #expect(!result.stdout.contains(secret)) }

        result = try run(["list", "--password-stdin", "--reveal"], input: Self.master)
        #expect(result.status == 0)
        #expect(result.stdout.contains("alice-pw-1"))
        #expect(result.stdout.contains("1 Main Street\\nSpringfield"))
        #expect(result.stdout.range(of: #"otp  +otp-1 .* [0-9]{6} \([0-9]+ s left\)"#, options: .regularExpression) != nil)

        result = try run(["remove", "--password-stdin", "vault-1"], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("identity store updated: 0 saved, 1 removed"))
        #expect(try store.allIdentities().map(\.displayUser).sorted() == ["alice", "zed"])

        result = try run(["remove", "--password-stdin", "nope"], input: Self.master)
        #expect(result.status == 65)
        #expect(result.stderr.contains("no entry nope in \(vaultPath); nothing was removed"))

        // sync writes the full list: the foreign identity goes.
        result = try run(["sync", "--password-stdin"], input: Self.master)
        #expect(result.status == 0)
        #expect(result.stdout.contains("identity store replaced: 1 identity"))
        #expect(try store.allIdentities().map(\.displayUser) == ["alice"])
    }

    @Test func importReportsBadRowsAndUpdatesTheStore() throws {
        let store = try enabledStore()
        #expect(try run(["create", "--password-stdin", "--scrypt-log2n", "10"], input: Self.master).status == 0)
        let csv = try home.file("export.csv", """
            folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp
            ,,login,Example,,,0,https://example.com,alice,"pw,1",JBSWY3DPEHPK3PXP
            ,,login,Broken,,,0,,bob,pw-bob-2,
            ,,note,Reply,"Thanks!",,0,,,,

            """)
        let result = try run(["import", "--password-stdin", csv], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Imported 1 login, 1 one-time code and 1 text from \(csv) (bitwarden format); 1 row needs a look (above)."))
        #expect(result.stderr.contains("warning: \(csv) row 3: login_uri is empty: a login needs the site it is for; skipped"))
        #expect(!result.stderr.contains("pw-bob-2"))
        #expect(try store.allIdentities().count == 2)
    }

    @Test func aLargeImportFillsTheStoreAndASecondOneSkipsEveryLogin() throws {
        let store = try enabledStore()
        #expect(try run(["create", "--password-stdin", "--scrypt-log2n", "10"], input: Self.master).status == 0)
        let csv = try home.file("large.csv", CSVImportTests.largeExport)
        var result = try run(["import", "--password-stdin", csv], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(
            "Imported 9998 logins, 999 one-time codes and 0 texts from \(csv) (bitwarden format); 2 rows need a look (above)."))
        #expect(result.stdout.contains("org.autofill.vault: identity store updated: 10997 saved, 0 removed"))
        #expect(result.stderr.contains("warning: \(csv) row 4323: the password is empty; skipped"))
        #expect(result.stderr.contains("warning: \(csv) row 7002: user10@mail.example at https://login.site10.example.com/signin is in the vault already; skipped"))
        #expect(try store.allIdentities().count == 10_997)

        result = try run(["import", "--password-stdin", csv], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(
            "Imported 0 logins, 0 one-time codes and 0 texts from \(csv) (bitwarden format); 10000 rows need a look (above)."))
        #expect(result.stdout.contains("org.autofill.vault: identity store already up to date"))
        #expect(result.stderr.contains("warning: \(csv) row 10001: alice at example.com is in the vault already; skipped"))
        #expect(!result.stderr.contains("pw-"))
        #expect(try store.allIdentities().count == 10_997)
    }

    @Test func anOTPAuthURIWithItsSecretOutsideSecretEqualsIsRefusedWithoutPrintingIt() throws {
        #expect(try run(["create", "--password-stdin", "--scrypt-log2n", "10"], input: Self.master).status == 0)
        let secret = "ORSXG5BAONSWG4TFOQQGC3TE"
        let uris = [
            "otpauth://totp/Example:alice?issuer=Example;secret=\(secret)",
            "otpauth://totp/Example:alice?secret=\(secret)&issuer=Example;secret=\(secret)",
            "otpauth://totp/secret=\(secret)?issuer=Example",
            "otpauth://totp/Example:\(secret)?secret=\(secret)&issuer=Example",
            "otpauth://totp/Example:alice?issuer=Example#secret=\(secret)",
        ]
        for uri in uris {
            let result = try run(["add-otp", "--password-stdin", "--service", "example.com"], input: Self.master + uri + "\n")
            #expect(result.status == 65, "\(uri): \(result.stderr)")
            #expect(result.stderr.contains("<REDACTED>"), "\(result.stderr)")
            #expect(!(result.stdout + result.stderr).uppercased().contains(secret.prefix(8)), "\(result.stderr)")
        }

        let csv = try home.file("export.csv", """
            folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp
            ,,login,Example,,,0,https://example.com,alice,pw-1,otpauth://totp/Example:alice?issuer=Example;secret=\(secret)

            """)
        let result = try run(["import", "--password-stdin", csv], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(
            "row 2: login_totp is not usable (no secret in otpauth://totp/Example:alice?issuer=Example;secret=<REDACTED>:"), "\(result.stderr)")
        #expect(!(result.stdout + result.stderr).uppercased().contains(secret.prefix(8)), "\(result.stderr)")
    }

    @Test func aWrongPasswordExits77AndAMissingVault66() throws {
        #expect(try run(["create", "--password-stdin", "--scrypt-log2n", "10"], input: Self.master).status == 0)
        var result = try run(["list", "--password-stdin"], input: "wrong\n")
        #expect(result.status == 77)
        #expect(result.stderr == "autofill-vault: cannot open the vault \(vaultPath): wrong master password, or the vault file was changed\n")
        result = try run(["add-password", "--password-stdin", "--service", "example.com", "--user", "x"], input: "wrong\nsecret-x\n")
        #expect(result.status == 77)
        #expect(!result.stderr.contains("secret-x") && !result.stderr.contains("wrong\n"))

        result = try run(["list", "--vault", "\(home.path)/none.afvault", "--password-stdin"], input: Self.master)
        #expect(result.status == 66)
        result = try run(["create", "--password-stdin"], input: Self.master)
        #expect(result.status == 73)
        result = try run(["add-password", "--password-stdin", "--service", "ftp://x", "--user", "x"], input: Self.master)
        #expect(result.status == 65)
        result = try run(["list"], input: "")
        #expect(result.status == 64, "no terminal and no --password-stdin")
    }

    @Test func unlockAndLockRunAutofillInPlaceOfThemselves() throws {
        // A copy of autofill-vault next to a stand-in autofill that prints its arguments and exits 3.
        let bin = "\(home.path)/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.binary, toPath: "\(bin)/autofill-vault")
        try Self.standIn(at: "\(bin)/autofill", saying: "next to it")
        func run(_ arguments: [String], path: String = "/usr/bin:/bin") throws -> Result {
            var environment = self.environment
            environment["PATH"] = path
            // A process another test forks at the moment of the copy may hold it open for writing
            // until it execs (ETXTBSY): try again shortly.
            for _ in 1..<20 {
                do {
                    return try ChildProcess.run("\(bin)/autofill-vault", arguments, environment: environment, input: "")
                } catch where "\(error)".contains("Text file busy") {
                    Thread.sleep(forTimeInterval: 0.1)
                }
            }
            return try ChildProcess.run("\(bin)/autofill-vault", arguments, environment: environment, input: "")
        }

        var result = try run(["unlock"])
        #expect(result.status == 3, "autofill's exit status: \(result.stderr)")
        #expect(result.stdout == "next to it: unlock org.autofill.vault\n")
        #expect(result.stderr == "stand-in autofill\n", "autofill's output, nothing of autofill-vault's")
        #expect(try run(["unlock", "--config", "/etc/autofill/config.plist"]).stdout
            == "next to it: unlock org.autofill.vault --config /etc/autofill/config.plist\n")
        #expect(try run(["lock"]).stdout == "next to it: lock org.autofill.vault\n")
        #expect(try run(["lock", "--all", "--config", "c.plist"]).stdout == "next to it: lock --config c.plist\n")
        #expect(try run(["lock", "--provider", "org.example.vault"]).stdout == "next to it: lock org.example.vault\n")

        // Without one next to it: the first on PATH.
        try FileManager.default.removeItem(atPath: "\(bin)/autofill")
        let path = "\(home.path)/path"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Self.standIn(at: "\(path)/autofill", saying: "on PATH")
        #expect(try run(["unlock"], path: "/usr/bin:\(path):/bin").stdout == "on PATH: unlock org.autofill.vault\n")

        // Nowhere: 69, and what to run instead.
        result = try run(["lock"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("cannot find autofill next to autofill-vault or on PATH"), "\(result.stderr)")
        #expect(result.stderr.contains("`autofill lock org.autofill.vault`"))
    }

    @Test func unlockRefusesTheOptionsOfTheSessionFileDays() throws {
        var result = try run(["unlock", "--timeout", "60"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--timeout is no longer accepted: an unlock lasts as long as the UnlockTimeoutSeconds setting of org.autofill.vault says"),
                "\(result.stderr)")
        result = try run(["unlock", "--vault", vaultPath])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--vault does not apply to unlock"), "\(result.stderr)")
        #expect(!result.stderr.contains(vaultPath))
    }

    @Test func lockDeletesTheKeyFilesOfEarlierReleasesFirst() throws {
        let runtime = "\(home.path)/run/autofill/providers/org.autofill.vault"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(runtime)/vault-0123456789abcdef.session"))
        let result = try run(["lock"])  // the real autofill next to it runs next, whatever it says
        #expect(result.stderr.contains("deleted 1 unlocked-session file an earlier release kept"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty)
    }

    @Test func everyCommandAsksForTheMasterPassword() throws {
        #expect(try run(["create", "--password-stdin", "--scrypt-log2n", "10"], input: Self.master).status == 0)
        // No terminal and no --password-stdin: nothing else opens the vault (no session file, ever).
        let result = try run(["list"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(home.path)/run/autofill"))
    }

    /// Writes a shell script that prints `label: ARGUMENTS` on stdout, a line on stderr, and exits 3.
    static func standIn(at path: String, saying label: String) throws {
        try Data("#!/bin/sh\necho \"\(label): $*\"\necho 'stand-in autofill' >&2\nexit 3\n".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }

    @Test func identityStoresCanLiveWhereTheHostConfigurationPutsThem() throws {
        let folder = IdentityStoreDirectory(path: "\(home.path)/config-stores")
        try SQLiteIdentityStore.open(providerID: "org.autofill.vault", in: folder).setEnabled(true)
        #expect(try run(["create", "--password-stdin", "--scrypt-log2n", "10"], input: Self.master).status == 0)
        let result = try run(["add-password", "--password-stdin", "--identity-stores", folder.path,
                              "--service", "example.com", "--user", "alice"], input: Self.master + "pw\n")
        #expect(result.status == 0, "\(result.stderr)")
        let store = try #require(try SQLiteIdentityStore.openIfExists(providerID: "org.autofill.vault", in: folder))
        #expect(try store.allIdentities().map(\.displayUser) == ["alice"])
    }

    @Test func aDisabledProviderIsAWarningNotAFailure() throws {
        #expect(try run(["create", "--password-stdin", "--scrypt-log2n", "10"], input: Self.master).status == 0)
        let result = try run(["add-password", "--password-stdin", "--service", "example.com", "--user", "alice"], input: Self.master + "pw\n")
        #expect(result.status == 0)
        #expect(result.stderr.contains("warning: the vault was saved, but the identity store was not updated: the identity store of org.autofill.vault is disabled"))
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
