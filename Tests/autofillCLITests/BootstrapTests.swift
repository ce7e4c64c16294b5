import AutofillTestSupport
import Foundation
import Testing

/// `Scripts/bootstrap test` on a stock Debian 12: its own `python3` is externally managed (PEP 668), so
/// the tests' Python packages go into a virtual environment the script makes, never into the system's.
struct BootstrapTests {
    /// Debian's own interpreter, when it carries the PEP 668 marker (nil elsewhere: the test is off).
    static let managedPython: String? = {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python),
              let result = try? ChildProcess.run(python, ["-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"]),
              result.status == 0 else { return nil }
        let marker = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "/EXTERNALLY-MANAGED"
        return FileManager.default.fileExists(atPath: marker) ? python : nil
    }()

    /// The folder holding `swift` (bootstrap checks that it is on PATH).
    static var swiftFolder: String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map(String.init).first { FileManager.default.isExecutableFile(atPath: "\($0)/swift") } ?? "/usr/bin"
    }

    @Test(.enabled(if: managedPython != nil, "needs Debian's externally managed /usr/bin/python3"))
    func bootstrapInstallsTheTestToolsIntoAVirtualEnvironmentWithDebiansPython() throws {
        let home = try TemporaryFolder()
        let venv = "\(home.path)/venv"
        // Debian's python3 first on PATH, a fresh HOME: what a new user on a stock Debian 12 has.
        let environment = ["HOME": home.path, "PATH": "/usr/bin:/bin:\(Self.swiftFolder)", "AUTOFILL_TEST_VENV": venv]
        let result = try ChildProcess.run("\(CLI.root)/Scripts/bootstrap", ["test"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("externally-managed-environment"), "\(result.stderr)")
        let imports = try ChildProcess.run("\(venv)/bin/python3", ["-c", "import fido2, webauthn, pykeepass; print('ok')"])
        #expect(imports.status == 0 && imports.stdout == "ok\n", "\(imports.stderr)")
        // The system's interpreter is as it was: nothing was installed into it.
        let system = try ChildProcess.run(Self.managedPython!, ["-c", "import webauthn"])
        #expect(system.status != 0)
        // A second run finds the environment complete and leaves it alone.
        let again = try ChildProcess.run("\(CLI.root)/Scripts/bootstrap", ["test"], environment: environment)
        #expect(again.status == 0 && !again.stderr.contains("making"), "\(again.stderr)")
    }
}
