import AutofillCore
import Foundation
import Glibc
import Testing
import VaultCore

/// autofill-vault show, edit, rename, search and passwd, as users run them: entries named by site
/// and user, secrets only when asked, hostile entry text escaped, and a master password change that
/// either happens whole or not at all.
extension CompanionCLITests {
    /// A vault (Argon2id at a test cost) with two logins for github.com and a code for alice there.
    func githubVault() throws {
        #expect(try run(["create", "--password-stdin", "--kdf", "argon2id:m=64,t=1,p=1"], input: Self.master).status == 0)
        for (user, password) in [("alice", "alice-gh-pw"), ("bob", "bob-gh-pw")] {
            let added = try run(["add-password", "--password-stdin", "--service", "https://github.com/login", "--user", user, "--id", "gh-\(user)"],
                                input: Self.master + password + "\n")
            #expect(added.status == 0, "\(added.stderr)")
        }
        #expect(try run(["add-otp", "--password-stdin", "--service", "github.com", "--label", "alice", "--id", "gh-otp"],
                        input: Self.master + "JBSWY3DPEHPK3PXP\n").status == 0)
    }

    @Test func showNamesAnEntryBySiteAndUserAndPrintsItsSecretOnlyWhenAsked() throws {
        try githubVault()
        var result = try run(["show", "--password-stdin", "github.com", "--user", "bob"], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("id:       gh-bob") && result.stdout.contains("site:     https://github.com/login"))
        #expect(result.stdout.contains("password: (hidden: --reveal shows it)"))
        #expect(!result.stdout.contains("bob-gh-pw"))

        result = try run(["show", "--password-stdin", "github.com", "--user", "bob", "--reveal"], input: Self.master)
        #expect(result.stdout.contains("password: bob-gh-pw"))
        result = try run(["show", "--password-stdin", "gh-alice", "--password"], input: Self.master)
        #expect(result.stdout == "alice-gh-pw\n", "by id, the secret alone")

        result = try run(["show", "--password-stdin", "github.com"], input: Self.master)
        #expect(result.status == 65)
        #expect(result.stderr.contains("\"github.com\" names 3 entries in \(vaultPath); say which with --user USER, --kind KIND or its id:"))
        for id in ["gh-alice", "gh-bob", "gh-otp"] { #expect(result.stderr.contains(id)) }
        for secret in ["alice-gh-pw", "bob-gh-pw", "JBSWY3DP"] { #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret)) }

        result = try run(["show", "--password-stdin", "github.com", "--user", "alice", "--kind", "otp", "--password"], input: Self.master)
        #expect(result.stdout.range(of: #"^[0-9]{6}\n$"#, options: .regularExpression) != nil, "\(result.stdout)")
        result = try run(["show", "--password-stdin", "gitlab.com"], input: Self.master)
        #expect(result.status == 65 && result.stderr.contains("no entry \"gitlab.com\" in \(vaultPath)"))
    }

    @Test func editRenameAndSearchChangeNamesAndTheStoreFollows() throws {
        let store = try enabledStore()
        try githubVault()
        var result = try run(["edit", "--password-stdin", "github.com", "--user", "alice", "--new-password"], input: Self.master + "alice-new-pw\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Changed the password of gh-alice."))
        #expect(!result.stdout.contains("alice-new-pw") && !result.stderr.contains("alice-new-pw"))
        #expect(try run(["show", "--password-stdin", "gh-alice", "--password"], input: Self.master).stdout == "alice-new-pw\n")

        result = try run(["edit", "--password-stdin", "github.com", "--user", "bob", "--set-user", "robert", "--set-notes", "work account"], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Changed the user, notes of gh-bob."))
        result = try run(["rename", "--password-stdin", "github.com", "--user", "robert", "--site", "gitlab.com"], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Renamed gh-bob: https://github.com/login → gitlab.com."))
        let robert = CredentialIdentity.password(PasswordCredentialIdentity(
            serviceIdentifier: .init(identifier: "gitlab.com", type: .domain), user: "robert", recordIdentifier: "gh-bob"))
        #expect(try store.allIdentities().contains(robert))

        result = try run(["search", "--password-stdin", "LAB"], input: Self.master)
        #expect(result.status == 0)
        #expect(result.stdout.contains("gitlab.com") && result.stdout.contains("robert") && !result.stdout.contains("gh-alice"))
        result = try run(["search", "--password-stdin", "alice-new-pw"], input: Self.master)
        #expect(result.status == 1, "a secret is never searched")
        #expect(result.stdout.isEmpty)

        result = try run(["edit", "--password-stdin", "github.com", "--kind", "otp", "--new-otp"], input: Self.master + "otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Changed the seed of gh-otp."))
        #expect(try run(["edit", "--password-stdin", "github.com", "--new-password", "--new-otp"], input: Self.master).status == 64)
    }

    @Test func hostileEntryTextIsEscapedWhereverItIsShown() throws {
        #expect(try run(["create", "--password-stdin", "--kdf", "argon2id:m=64,t=1,p=1"], input: Self.master).status == 0)
        let evil = "mallory\u{1b}]0;owned\u{07}\u{1b}[2J\u{202e}"
        #expect(try run(["add-password", "--password-stdin", "--service", "evil.test", "--user", evil, "--id", "evil-1"],
                        input: Self.master + "pw-\u{1b}[31m\n").status == 0)
        for arguments in [["show", "evil.test", "--reveal"], ["search", "mallory"], ["list", "--reveal"], ["show", "evil.test", "--user", "nobody"]] {
            let result = try run(arguments + ["--password-stdin"], input: Self.master)
            let output = result.stdout + result.stderr
            #expect(!output.contains("\u{1b}") && !output.contains("\u{07}") && !output.contains("\u{202e}"), "\(arguments): \(output)")
            #expect(output.contains(#"mallory\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}"#) || arguments.last == "nobody", "\(arguments): \(output)")
        }
        // Into a pipe, --password writes the secret exactly as stored.
        #expect(try run(["show", "--password-stdin", "evil-1", "--password"], input: Self.master).stdout == "pw-\u{1b}[31m\n")
    }

    @Test func passwdChangesTheMasterPasswordAndUpgradesAScryptVault() throws {
        #expect(try run(["create", "--password-stdin", "--scrypt-log2n", "10"], input: Self.master).status == 0)
        #expect(try run(["add-password", "--password-stdin", "--service", "example.com", "--user", "alice"], input: Self.master + "alice-pw\n").status == 0)
        let newMaster = "Seven Blue Otters Sing 1999!"
        let result = try run(["passwd", "--password-stdin", "--kdf", "argon2id:m=64,t=1,p=1"], input: Self.master + "\(newMaster)\n\(newMaster)\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Changed the master password of \(vaultPath): Argon2id m=64 KiB t=1 p=1 (was scrypt N=2^10 r=8 p=1)."))
        #expect(!result.stderr.contains("weak"), "\(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains(newMaster))
        #expect(try bytes(of: vaultPath)[8] == 2)
        #expect(try run(["list", "--password-stdin"], input: Self.master).status == 77)
        let listed = try run(["list", "--password-stdin"], input: newMaster + "\n")
        #expect(listed.status == 0 && listed.stdout.contains("alice"))
    }

    @Test func aFailedPasswdLeavesTheVaultByteForByte() throws {
        #expect(try run(["create", "--password-stdin", "--kdf", "argon2id:m=64,t=1,p=1"], input: Self.master).status == 0)
        let before = try bytes(of: vaultPath)
        var result = try run(["passwd", "--password-stdin"], input: "wrong master\nnew one here 12345\nnew one here 12345\n")
        #expect(result.status == 77)
        #expect(try bytes(of: vaultPath) == before)
        result = try run(["passwd", "--password-stdin"], input: Self.master + "first new password 1\nsecond new password 2\n")
        #expect(result.status == 65)
        #expect(result.stderr.contains("the two new master passwords differ; nothing was changed"))
        #expect(try bytes(of: vaultPath) == before)
        #expect(!result.stderr.contains("first new password"))
    }

    @Test func aWeakNewMasterPasswordIsWarnedAboutNotRefused() throws {
        #expect(try run(["create", "--password-stdin", "--kdf", "argon2id:m=64,t=1,p=1"], input: Self.master).status == 0)
        let result = try run(["passwd", "--password-stdin", "--kdf", "argon2id:m=64,t=1,p=1"], input: Self.master + "password1\npassword1\n")
        #expect(result.status == 0)
        #expect(result.stderr.contains("warning: the new master password is weak: it has only 9 characters (use 12 or more); it is one of the passwords guessers try first."))
        #expect(!result.stderr.contains("password1"))
        #expect(try run(["list", "--password-stdin"], input: "password1\n").status == 0)
    }

    @Test func aHostileVaultHeaderIsRefusedWithoutDerivingAKey() throws {
        #expect(try run(["create", "--password-stdin", "--kdf", "argon2id:m=64,t=1,p=1"], input: Self.master).status == 0)
        var file = try bytes(of: vaultPath)
        file.replaceSubrange(11...14, with: [0x06, 0x40, 0x00, 0x00])  // m = 100 GiB
        try write(file, to: vaultPath)
        let result = try run(["list", "--password-stdin"], input: Self.master)
        #expect(result.status == 65)
        #expect(result.stderr.contains("was not opened: the key derivation in its header, Argon2id m=102400 MiB t=1 p=1 is out of range"), "\(result.stderr)")
    }

    @Test(arguments: [
        ("argon2id:m=64,x=1", "--kdf: x is not a cost of argon2id (argon2id: m, t, p; scrypt: log2n, r, p)"),
        ("scrypt", "--kdf scrypt needs log2n=N (scrypt:log2n=17)"),
        ("bcrypt", "--kdf names argon2id or scrypt"),
        ("argon2id:m=lots", "--kdf: write each cost as NAME=NUMBER"),
        ("argon2id:m=4294967295,t=1,p=1", "is out of range: at most 4 GiB of memory"),
    ])
    func aKeyDerivationSpecThatCannotBeUsedIsAUsageError(_ spec: String, _ message: String) throws {
        let result = try run(["create", "--password-stdin", "--kdf", spec], input: Self.master)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: vaultPath))
    }

    @Test(.timeLimit(.minutes(10)))  // a guard against a hang; its waits have their own bounds
    func aPasswdKilledAtAnyMomentLeavesAVaultOneOfTheTwoPasswordsOpens() throws {
        #expect(try run(["create", "--password-stdin", "--kdf", "argon2id:m=64,t=1,p=1"], input: Self.master).status == 0)
        #expect(try run(["add-password", "--password-stdin", "--service", "example.com", "--user", "alice"], input: Self.master + "alice-pw\n").status == 0)
        let passwords = [Self.master.trimmingCharacters(in: .newlines), "Another Master Password 2026!"]
        var current = 0
        // passwd at the default cost (Argon2id, 64 MiB), killed before, during or after its derivation and save.
        for delay in [0.0, 0.05, 0.2, 0.5, 1.5] {
            let next = 1 - current
            let running = try ChildProcess.start(Self.binary, ["passwd", "--password-stdin"], environment: environment,
                                                 input: "\(passwords[current])\n\(passwords[next])\n\(passwords[next])\n")
            Thread.sleep(forTimeInterval: delay)
            kill(running.pid, SIGKILL)
            _ = running.wait()
            let opened = passwords.map { try? Vault.open(at: vaultPath, password: Secret($0)) }
            #expect(opened.compactMap { $0 }.count == 1, "after \(delay) s: exactly one of the two passwords opens the vault")
            #expect(opened.compactMap { $0 }.first?.contents.passwords.map(\.user) == ["alice"], "after \(delay) s: the entries are whole")
            if opened[next] != nil { current = next }
        }
    }
}
