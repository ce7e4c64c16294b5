import AutofillTestSupport
import Foundation
import Testing

/// The README's first command, `Scripts/demo`, without a terminal (as CI runs it): the whole fill
/// session from UI scripts, in a home of its own, ends well (a change of authority once broke it
/// unnoticed: the agent refused the unattended copy's policy, and the Vault's copy needed approval).
struct DemoTests {
    @Test func theDemoRunsUnattendedToItsEnd() throws {
        let home = try TemporaryFolder()
        let bin = "\(CLI.root)/.build/debug"
        let environment = ["HOME": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                           "AUTOFILL_DEMO_BIN": bin]
        let result = try ChildProcess.run("\(CLI.root)/Scripts/demo", [], environment: environment)
        #expect(result.status == 0, "\(result.stdout.suffix(2000))\n\(result.stderr.suffix(2000))")
        #expect(result.stdout.contains("No terminal: the demo runs unattended"))
        #expect(result.stdout.contains("alice-demo-password"), "the Vault's password was filled")
        #expect(result.stdout.contains("Created a passkey for alice at example.com with Vault"))
        #expect(result.stdout.contains("Locked org.autofill.vault."))
    }
}
