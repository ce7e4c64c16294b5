import AutofillTestSupport
import Foundation
import Testing

/// The kernel enforcement itself (Sources/CAutofillSandbox), where the CLI path cannot reach: a probe
/// program (Fixtures/sandbox_probe.c) built with autofill_sandbox.c and seccomp_filter.c enters the sandbox, then tries
/// one thing; the same check without the sandbox is the control. The sandbox cannot be undone, so it
/// is never entered in the test process itself.
struct SandboxEnforcementTests {
    static let probe: Result<String, ChildProcessError> = {
        let folder = NSTemporaryDirectory() + "autofill-sandbox-probe-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let output = "\(folder)/probe"
        let root = FixturePlugin.repositoryRoot
        guard let compiled = try? ChildProcess.run("/usr/bin/cc", [
            "-std=c11", "-Wall", "-Wextra", "-Werror", "-pthread", "-I", "\(root)/Sources/CAutofillSandbox/include",
            "\(root)/Tests/AutofillHostTests/Fixtures/sandbox_probe.c", "\(root)/Sources/CAutofillSandbox/autofill_sandbox.c", "\(root)/Sources/CAutofillSandbox/seccomp_filter.c",
            "-lseccomp", "-o", output,
        ]), compiled.status == 0 else { return .failure(ChildProcessError("the probe did not compile")) }
        return .success(output)
    }()

    func run(_ check: String, sandboxed: Bool = true) throws -> String {
        let result = try ChildProcess.run(try Self.probe.get(), sandboxed ? [check] : [check, "unsandboxed"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func typingIntoATerminalIsDenied() throws {
        #expect(try run("tiocsti") == "denied EPERM")
        // The control (root may always; others only where dev.tty.legacy_tiocsti allows it).
        if getuid() == 0 { #expect(try run("tiocsti", sandboxed: false) == "ok typed into the terminal", "the probe can type without it") }
    }

    @Test(arguments: ["keyctl", "userfaultfd", "unshare", "io_uring", "bpf"])
    func kernelInterfacesAProviderHasNoUseForAreDenied(check: String) throws {
        #expect(try run(check) == "denied EPERM")
        // The control, as root (some of these are off for unprivileged users by the system's own settings).
        if check != "bpf" && getuid() == 0 { #expect(try run(check, sandboxed: false).hasPrefix("ok"), "the control") }
    }

    @Test func aTCPPortCannotBeBoundEvenWithTheInternetAllowed() throws {
        #expect(try run("bind") == "denied EACCES")
        #expect(try run("bind", sandboxed: false) == "ok bound a port")
    }

    @Test func threadsStillStartAndASecondThreadAtEntryIsRefused() throws {
        #expect(try run("threads") == "ok started a thread")
        #expect(try run("two-threads").hasPrefix("refused: the helper has 2 threads"))
    }

    @Test func theHighestLandlockABIIsUsed() throws {
        let line = try run("abi")
        let abi = Int(line.split(separator: " ").last ?? "") ?? 0
        try #require(abi > 0, "this kernel has no Landlock: \(line)")
        #expect(abi == min(7, abi), "\(line)")
        if let kernel = try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8), kernel.hasPrefix("6.18") {
            #expect(abi == 7, "kernel 6.18 offers Landlock ABI 7")
        }
    }
}
