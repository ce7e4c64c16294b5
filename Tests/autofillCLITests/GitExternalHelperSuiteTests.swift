import AutofillTestSupport
import Foundation
import Testing

/// git's own tests for external credential helpers, `t/t0303-credential-external.sh`, run by git's
/// own test harness (test-lib.sh, its askpass, its PATH with its own folders first, its trash folder
/// as the repository) against `git-credential-autofill`, served by a warm agent in which the
/// writable provider was unlocked beforehand. git's t/ folder is prepared by `Scripts/git-test-harness`
/// (`Scripts/bootstrap test` runs it): never copied into this repository.
///
/// One run per writable provider, each the only provider of its home: the Vault, pass (a git store
/// encrypted to a key without a passphrase), the Secret Service (a real GNOME Keyring on a private
/// bus) and KeePassXC (a database named by `WritableDatabaseFile`).
@Suite(.serialized)
struct GitExternalHelperSuiteTests {
    /// git's t/ folder, when `Scripts/git-test-harness` prepared it.
    static let harness: String? = {
        guard let result = try? ChildProcess.run("\(CLI.root)/Scripts/git-test-harness", ["--path"]), result.status == 0 else { return nil }
        let path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return path.isEmpty ? nil : path
    }()

    /// The providers that save what git stores, each as the only enabled provider.
    enum Writable: String, CaseIterable, CustomTestStringConvertible {
        case vault, pass, secretService, keepassxc

        var testDescription: String { rawValue }

        /// The provider's id.
        var id: String {
            switch self {
            case .vault: "org.autofill.vault"
            case .pass: "org.autofill.pass"
            case .secretService: "org.autofill.secretservice"
            case .keepassxc: "org.autofill.keepassxc"
            }
        }

        /// The sample bundle that provides it.
        var sample: String {
            switch self {
            case .vault: "VaultProvider"
            case .pass: "PassProvider"
            case .secretService: "SecretServiceProvider"
            case .keepassxc: "KeePassProvider"
            }
        }

        /// Whether this machine has what the provider's store needs.
        var isAvailable: Bool {
            switch self {
            case .vault: true
            case .pass: FileManager.default.isExecutableFile(atPath: "/usr/bin/pass") && FileManager.default.isExecutableFile(atPath: "/usr/bin/gpg")
            case .secretService: FileManager.default.isExecutableFile(atPath: "/usr/bin/gnome-keyring-daemon")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            case .keepassxc: KeePassXC.isInstalled
            }
        }
    }

    /// t0303's tests autofill does not pass, and why (each is expected to fail: a fix makes the
    /// known issue go unrecorded, which fails the test until it is taken off this list).
    static let knownFailures: [Int: String] = [:]

    static let master = "t0303-master-password"

    /// A store made for one run, kept until the run ends: what its processes need and how they end.
    struct Store {
        /// The configuration that enables the provider alone.
        let config: String
        /// What autofill's processes need besides the home's folders (the keyring's bus).
        var environment: [String: String] = [:]
        /// The store's own processes (gpg-agent, the keyring and its bus): they end with these.
        var pass: PasswordStore?
        var keyring: PrivateKeyring?

        /// Ends the store's processes (gpg-agent ends when `pass` goes).
        func stop() { keyring?.stop() }
    }

    /// A home whose own configuration enables `provider` alone under the policy `none`, with an empty
    /// store, and an agent in which it is unlocked (or, with no lock, loaded).
    func prepare(_ provider: Writable, in home: TemporaryHome) throws -> Store {
        _ = try home.sample(provider.sample, as: provider.id)
        let configure = { (settings: [String: String]) in
            try home.userConfiguration([
                "PluginSearchPaths": ["\(home.path)/plugins"], "EnabledProviders": [provider.id],
                "ProviderSettings": [provider.id: settings], "UserAuthentication": ["Policy": "none"],
            ])
        }
        var store: Store
        var unlock: String?
        switch provider {
        case .vault:
            try FileManager.default.createDirectory(atPath: "\(home.path)/vault", withIntermediateDirectories: true)
            let vault = "\(home.path)/vault/vault.afvault"
            store = Store(config: try configure(["VaultFile": vault]))
            let created = try ChildProcess.run("\(CLI.root)/.build/debug/autofill-vault", ["create", "--vault", vault, "--password-stdin"],
                                               environment: CLI.environment(home: home.path), input: "\(Self.master)\n")
            #expect(created.status == 0, "\(created.stderr)")
            unlock = Self.master
        case .pass:
            let pass = try PasswordStore(protected: false)
            try pass.gitInit()
            store = Store(config: try configure(["PasswordStoreDir": pass.path, "GnuPGHome": pass.gnupgHome]), pass: pass)
        case .secretService:
            let keyring = try PrivateKeyring()
            store = Store(config: try configure([:]), environment: ["DBUS_SESSION_BUS_ADDRESS": keyring.address], keyring: keyring)
        case .keepassxc:
            try FileManager.default.createDirectory(atPath: "\(home.path)/keepass", withIntermediateDirectories: true)
            let database = "\(home.path)/keepass/passwords.kdbx"
            try KeePassXC.create(database, key: KeePassXC.Key(password: Self.master))
            store = Store(config: try configure(["WritableDatabaseFile": database]))
            unlock = Self.master
        }
        try home.trust([provider.id], config: store.config)
        let environment = store.environment.merging(["AUTOFILL_AGENT": "on"]) { $1 }
        if let unlock {
            let unlocked = try CLI.run(["unlock", provider.id, "--ui-script", try home.file("unlock.txt", "secret \(unlock)\n")],
                                       home: home.path, environment: environment)
            #expect(unlocked.status == 0, "\(unlocked.stderr)")
        } else {
            // Nothing to unlock: generating a password (saved nowhere) starts the agent and the provider's helper.
            let warmed = try CLI.run(["generate", "--for", "warm.invalid", "--provider", provider.id, "--config", store.config],
                                     home: home.path, environment: environment)
            #expect(warmed.status == 0, "\(warmed.stderr)")
        }
        return store
    }

    @Test(.enabled(if: harness != nil, "git's t/ folder is not prepared: run Scripts/git-test-harness (Scripts/bootstrap test does)"),
          arguments: Writable.allCases.filter(\.isAvailable))
    func gitsExternalHelperTestsPassFromGitsOwnHarnessAgainstAWarmAgent(provider: Writable) throws {
        let home = try TemporaryHome()
        let store = try prepare(provider, in: home)
        defer { store.stop() }
        let config = store.config
        let status = try CLI.run(["agent", "status"], home: home.path, environment: store.environment.merging(["AUTOFILL_AGENT": "on"]) { $1 })
        #expect(status.status == 0 && status.stdout.contains("helper pid"), "the agent holds the unlocked provider: \(status.stdout)")

        // test-lib.sh makes HOME its trash folder and unsets XDG_CONFIG_HOME; the agent serves only
        // clients of its own user folders (docs/AGENT.md), so the setup names them again, as a user's
        // shell would. PATH stays the harness's own (its folders first): the agent serves it anyway.
        let setup = "export HOME='\(home.path)' XDG_CONFIG_HOME='\(home.path)/.config'"
        var environment = CLI.environment(home: home.path)
        environment.merge([
            "AUTOFILL_AGENT": "on", "AUTOFILL_CONFIG": config, "GIT_TEST_INSTALLED": "/usr/bin",
            "GIT_TEST_CREDENTIAL_HELPER": "\(CLI.root)/.build/debug/git-credential-autofill",
            "GIT_TEST_CREDENTIAL_HELPER_SETUP": setup,
            "TEST_OUTPUT_DIRECTORY": "\(home.path)/git-output",  // its counts file, not in the shared t/
        ].merging(store.environment) { $1 }) { $1 }
        let run = try ChildProcess.run("/bin/sh", [
            "-c", "cd \"$1\" && exec sh ./t0303-credential-external.sh --verbose --root=\"$2\"", "sh", Self.harness!, "\(home.path)/git-trash",
        ], environment: environment)

        let results = Self.results(run.stdout)
        #expect(run.stdout.contains("1..12"), "t0303 ran its 12 tests:\n\(run.stdout)\n\(run.stderr)")
        #expect(results.count == 12)
        for (number, passed) in results.sorted(by: { $0.key < $1.key }) {
            if let reason = Self.knownFailures[number] {
                withKnownIssue(Comment(rawValue: reason)) { #expect(passed, "t0303.\(number)") }
            } else {
                #expect(passed, "t0303.\(number) failed:\n\(Self.excerpt(run.stdout, test: number))")
            }
        }
        // What autofill printed to git holds no password t0303 stored.
        for secret in ["store-pass", "pass1", "pass2"] { #expect(!run.stderr.contains(secret)) }
    }

    /// Each test's number and whether it passed, from test-lib's TAP lines (`ok 3 - …`, `not ok 7 - …`).
    static func results(_ output: String) -> [Int: Bool] {
        var results: [Int: Bool] = [:]
        for line in output.split(separator: "\n") {
            let passed = line.hasPrefix("ok ")
            guard passed || line.hasPrefix("not ok ") else { continue }
            let rest = line.dropFirst(passed ? 3 : 7)
            if let number = Int(rest.prefix { $0.isNumber }) { results[number] = passed }
        }
        return results
    }

    /// The verbose output of test `number`: from its "expecting success" line to its result.
    static func excerpt(_ output: String, test number: Int) -> String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("expecting success of 0303.\(number) ") }) else { return output }
        let end = lines[start...].firstIndex { $0.hasPrefix("ok \(number) ") || $0.hasPrefix("not ok \(number) ") } ?? lines.endIndex - 1
        return lines[start...end].joined(separator: "\n")
    }
}
