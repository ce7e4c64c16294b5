import AutofillTestSupport
import Foundation
import Testing

/// git's own tests for external credential helpers, `t/t0303-credential-external.sh`, run by git's
/// own test harness (test-lib.sh, its askpass, its PATH with its own folders first, its trash folder
/// as the repository) against `git-credential-autofill`, served by a warm agent in which the
/// writable provider was unlocked beforehand. git's t/ folder is prepared by `Scripts/git-test-harness`
/// (`Scripts/bootstrap test` runs it): never copied into this repository.
///
/// One run per writable provider; pass, the Secret Service and KeePassXC join the list when they save.
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
        case vault

        var testDescription: String { rawValue }
    }

    /// t0303's tests autofill does not pass, and why (each is expected to fail: a fix makes the
    /// known issue go unrecorded, which fails the test until it is taken off this list).
    static let knownFailures: [Int: String] = [:]

    static let master = "t0303-master-password"

    /// A home whose own configuration enables `provider` alone under the policy `none`, with an empty
    /// store, and an agent in which it is unlocked. Returns the configuration's path.
    func prepare(_ provider: Writable, in home: TemporaryHome) throws -> String {
        switch provider {
        case .vault:
            _ = try home.sample("VaultProvider", as: "org.autofill.vault")
            try FileManager.default.createDirectory(atPath: "\(home.path)/vault", withIntermediateDirectories: true)
            let vault = "\(home.path)/vault/vault.afvault"
            let config = try home.userConfiguration([
                "PluginSearchPaths": ["\(home.path)/plugins"], "EnabledProviders": ["org.autofill.vault"],
                "ProviderSettings": ["org.autofill.vault": ["VaultFile": vault]], "UserAuthentication": ["Policy": "none"],
            ])
            try home.trust(["org.autofill.vault"], config: config)
            let created = try ChildProcess.run("\(CLI.root)/.build/debug/autofill-vault", ["create", "--vault", vault, "--password-stdin"],
                                               environment: CLI.environment(home: home.path), input: "\(Self.master)\n")
            #expect(created.status == 0, "\(created.stderr)")
            let script = try home.file("unlock.txt", "secret \(Self.master)\n")
            let unlocked = try CLI.run(["unlock", "org.autofill.vault", "--ui-script", script], home: home.path, environment: ["AUTOFILL_AGENT": "on"])
            #expect(unlocked.status == 0, "\(unlocked.stderr)")
            return config
        }
    }

    @Test(.enabled(if: harness != nil, "git's t/ folder is not prepared: run Scripts/git-test-harness (Scripts/bootstrap test does)"),
          arguments: Writable.allCases)
    func gitsExternalHelperTestsPassFromGitsOwnHarnessAgainstAWarmAgent(provider: Writable) throws {
        let home = try TemporaryHome()
        let config = try prepare(provider, in: home)
        let status = try CLI.run(["agent", "status"], home: home.path, environment: ["AUTOFILL_AGENT": "on"])
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
        ]) { $1 }
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
