import AutofillTestSupport
import Foundation
import Testing

/// The seccomp allowlist (Sources/CAutofillSandbox, docs/SANDBOX.md "What the kernel enforces") against
/// the attacking provider (Fixtures/sandbox_attack_provider.c) through the real `autofill` and helper.
/// Each denial has its control: the allowed variant of the same call inside the sandbox, or, where no
/// permission allows the call, the same provider named `unsandboxed`, so a denial is the filter's doing.
struct SystemCallFilterTests {
    let attacker: SandboxAttackTests

    init() throws {
        attacker = try SandboxAttackTests()
    }

    /// A declared program allows new processes, but never new namespaces.
    static var runsPrograms: [String: Any] { ["Executables": ["true"]] }

    @Test(arguments: ["user", "net", "user+net"])
    func aCloneIntoNewNamespacesIsRefusedEvenWithPrograms(namespaces: String) throws {
        let (outcome, result) = try attacker.attack("clone", target: namespaces, sandbox: Self.runsPrograms)
        #expect(result.status == 0, "the host finishes: \(result.stderr)")
        #expect(outcome == "denied EPERM clone")
        // Controls: a plain child in the same sandbox, and the namespaces without the sandbox.
        #expect(try attacker.attack("clone", target: "none", sandbox: Self.runsPrograms).outcome == "ok cloned, status 0")
        let unsandboxed = try attacker.attack("clone", target: namespaces, unsandboxed: true)
        #expect(unsandboxed.outcome == "ok cloned, status 0", "\(unsandboxed.result.stderr)")
    }

    @Test func withoutProgramsNotEvenAPlainChildIsCloned() throws {
        #expect(try attacker.attack("clone", target: "none").outcome == "denied EPERM clone")
    }

    @Test func onlyTheRoutingNetlinkSocketOpensWithPorts() throws {
        let ports: [String: Any] = ["OutboundTCPPorts": [443]]
        #expect(try attacker.attack("netlink", target: "netfilter", sandbox: ports).outcome == "denied EPERM socket")
        #expect(try attacker.attack("netlink", target: "route", sandbox: ports).outcome == "ok opened", "the control")
        #expect(try attacker.attack("netlink", target: "route").outcome == "denied EACCES socket", "no ports: no netlink")
        #expect(try attacker.attack("netlink", target: "netfilter", unsandboxed: true).outcome == "ok opened", "the control")
    }

    @Test(arguments: ["pdeathsig", "dumpable", "seccomp"])
    func prctlCannotChangeTheDeathSignalDumpabilityOrSeccomp(option: String) throws {
        let (outcome, result) = try attacker.attack("prctl", target: option)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(outcome == "denied EPERM prctl")
        #expect(try attacker.attack("prctl", target: option, unsandboxed: true).outcome == "ok changed", "the control")
    }

    @Test func prctlStillNamesAThread() throws {
        #expect(try attacker.attack("prctl", target: "name").outcome == "ok changed")
    }

    /// A number no kernel has, and one this kernel has but the filter's libseccomp does not know
    /// (listmount, 458, Linux 6.8): both ENOSYS, as on an older kernel; without the sandbox the
    /// kernel answers listmount itself (EFAULT or EINVAL for its empty arguments).
    @Test func aSystemCallUnknownToTheFilterIsNotImplemented() throws {
        #expect(try attacker.attack("syscall", target: "1000").outcome == "denied ENOSYS syscall")
        #expect(try attacker.attack("syscall", target: "458").outcome == "denied ENOSYS syscall")
        let control = try attacker.attack("syscall", target: "458", unsandboxed: true).outcome
        #expect(control.hasPrefix("denied") && control != "denied ENOSYS syscall", "\(control)")
    }

    @Test func ioUringIsRefused() throws {
        #expect(try attacker.attack("io_uring").outcome == "denied EPERM io_uring_setup")
        let control = try attacker.attack("io_uring", unsandboxed: true).outcome
        let disabled = (try? String(contentsOfFile: "/proc/sys/kernel/io_uring_disabled", encoding: .utf8))?.hasPrefix("0") == false
        if !disabled { #expect(control == "ok set up", "the control") }
    }

    /// Landlock does not check a file's mode, owner or times changed by path: the filter refuses those
    /// calls (a provider changes its own files' modes through descriptors).
    @Test func theModeOfTheHostsFilesCannotBeChanged() throws {
        let trust = "\(attacker.home.path)/.local/state/autofill/trust.json"
        let (outcome, result) = try attacker.attack("chmod", target: trust)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(outcome == "denied EPERM chmod")
        let mode = try FileManager.default.attributesOfItem(atPath: trust)[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o077 } == 0, "trust.json stays private")
        #expect(try attacker.attack("chmod", target: trust, unsandboxed: true).outcome == "ok changed", "the control")
    }
}
