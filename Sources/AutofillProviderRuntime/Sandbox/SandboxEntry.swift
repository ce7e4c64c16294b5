internal import CAutofillSandbox
internal import Glibc

/// The helper's side of the sandbox: entering it, once, single-threaded, before the plugin's library
/// is opened. Everything it applies comes from the host's ``SandboxPolicy``; the kernel calls are in
/// `CAutofillSandbox` (Landlock, seccomp, prctl). There is no way back.
enum SandboxEntry {
    /// Replaces this process's environment with the policy's, moves into its data folder and applies
    /// the Landlock rules and seccomp filter. The report, or a sentence saying what failed.
    static func enter(_ policy: SandboxPolicy) -> Result<SandboxReport, SandboxFailure> {
        let start = ContinuousClock.now
        func elapsedMicroseconds() -> Int {
            let elapsed = (ContinuousClock.now - start).components
            return Int(elapsed.seconds) * 1_000_000 + Int(elapsed.attoseconds / 1_000_000_000_000)
        }
        // The environment first: nothing of the host's reaches the plugin but what the policy lists.
        guard clearenv() == 0 else { return .failure(SandboxFailure("clearenv failed")) }
        for (name, value) in policy.environment.sorted(by: { $0.key < $1.key }) where setenv(name, value, 1) != 0 {
            return .failure(SandboxFailure("the environment variable \(name) cannot be set (\(String(cString: strerror(errno))))"))
        }
        guard chdir(policy.workingDirectory) == 0 else {
            return .failure(SandboxFailure("its data folder \(policy.workingDirectory) cannot be entered (\(String(cString: strerror(errno))))"))
        }
        var flags: UInt32 = 0
        if policy.network { flags |= UInt32(AFS_ALLOW_INET) }
        if policy.unixSockets || policy.sessionBus { flags |= UInt32(AFS_ALLOW_UNIX_SOCKETS) }
        if policy.sessionBus { flags |= UInt32(AFS_ALLOW_ABSTRACT_UNIX) }
        if policy.runsPrograms { flags |= UInt32(AFS_ALLOW_EXEC) }
        let paths = policy.rules.map { strdup($0.path) }
        defer { for path in paths { free(path) } }
        var rules = zip(paths, policy.rules).map { path, rule in afs_rule(path: UnsafePointer(path), access: rule.access.rawValue) }
        var ports = policy.tcpPorts
        var report = afs_report()
        var error = [CChar](repeating: 0, count: 512)
        let status = rules.withUnsafeMutableBufferPointer { rules in
            ports.withUnsafeMutableBufferPointer { ports in
                var native = afs_policy(rules: rules.baseAddress, rule_count: rules.count, tcp_ports: ports.baseAddress,
                                        tcp_port_count: ports.count, flags: flags)
                return afs_apply(&native, 1, &report, &error, error.count)
            }
        }
        guard status == 0 else {
            return .failure(SandboxFailure(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        return .success(SandboxReport(landlockABI: Int(report.landlock_abi), kernelLandlockABI: Int(afs_landlock_abi()),
                                      seccompRules: Int(report.seccomp_rules), pathRules: policy.rules.count,
                                      skippedPathRules: Int(report.skipped_rules),
                                      microseconds: elapsedMicroseconds()))
    }
}

/// Why the sandbox could not be entered: a sentence without secrets.
struct SandboxFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
