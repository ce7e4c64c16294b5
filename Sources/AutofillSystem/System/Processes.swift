internal import CAutofillSystem
internal import Glibc

/// How a child ended, as waitpid reported it (process.c decodes the W* macros, which Swift cannot import).
public struct WaitStatus: Sendable, Equatable {
    /// The status word waitpid filled in.
    public let rawValue: Int32

    /// The status word `rawValue`.
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// It exited (WIFEXITED).
    public var exited: Bool { afsys_exited(rawValue) != 0 }
    /// Its exit status, when it exited (WEXITSTATUS).
    public var exitStatus: Int32 { afsys_exit_status(rawValue) }
    /// A signal ended it (WIFSIGNALED).
    public var signaled: Bool { afsys_signaled(rawValue) != 0 }
    /// The signal that ended it, when one did (WTERMSIG).
    public var terminationSignal: Int32 { afsys_term_signal(rawValue) }
}

/// Processes (process.c): this one's environment and hardening, the helper's limits and lifeline to
/// its parent, and the host's watch over its children (pidfds, ending, process groups, address space).
public enum Processes {
    /// This process's environment, "NAME=value" lines (the C global `environ`, which Swift 6 cannot read safely).
    public static func environment() -> [String] {
        var lines: [String] = []
        guard var entry = afsys_environment() else { return lines }
        while let pointer = entry.pointee {
            lines.append(String(cString: pointer))
            entry += 1
        }
        return lines
    }

    /// The value of this process's environment variable `name` (`getenv`), nil when it is not set.
    public static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Replaces this process with `path` run with `arguments` (argv, its first the program's name)
    /// and this environment (`execv`); returns only by throwing why it could not.
    public static func replace(with path: String, arguments: [String]) throws(SystemError) -> Never {
        _ = withCStrings(arguments) { argv in execv(path, argv) }
        throw .current("execv \(path)")
    }

    /// Runs `handler` when this process exits through `exit` or by returning from `main` (`atexit`);
    /// false when it could not be registered.
    public static func atExit(_ handler: @convention(c) () -> Void) -> Bool { atexit(handler) == 0 }

    /// Ends this process with `status`, running its atexit handlers and flushing stdio (`exit`).
    public static func exit(_ status: Int32) -> Never { Glibc.exit(status) }

    /// Ends this process with `status` at once: no atexit handler, no destructor, no stdio flush (`_exit`).
    public static func exitNow(_ status: Int32) -> Never { _exit(status) }

    /// "SEGV" for SIGSEGV (sigabbrev_np); nil for a number that is no signal.
    public static func signalName(_ signal: Int32) -> String? {
        afsys_signal_name(signal).map { String(cString: $0) }
    }

    /// A descriptor (close-on-exec) readable once child `pid` ends (pidfd_open); ENOSYS on kernels before 5.3.
    public static func endDescriptor(of pid: Int32) throws(SystemError) -> Int32 {
        let descriptor = afsys_pidfd_open(pid)
        guard descriptor >= 0 else { throw .current("pidfd_open") }
        return descriptor
    }

    /// Whether child `pid` has ended (a zombie not yet reaped: WNOWAIT).
    public static func hasEnded(_ pid: Int32) throws(SystemError) -> Bool {
        let ended = afsys_has_ended(pid, 0)
        guard ended >= 0 else { throw .current("waitid") }
        return ended == 1
    }

    /// Waits until child `pid` has ended, without reaping it.
    public static func waitUntilEnded(_ pid: Int32) throws(SystemError) {
        guard afsys_has_ended(pid, 1) >= 0 else { throw .current("waitid") }
    }

    /// Waits for child `pid` to end and reaps it (waitpid, retrying EINTR): how it ended; the status
    /// word 0 when waitpid fails otherwise (`pid` is no child of this process, or was reaped already).
    @discardableResult
    public static func reap(_ pid: Int32) -> WaitStatus {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return WaitStatus(status)
    }

    /// Reaps child `pid` if it has ended, without waiting (waitpid WNOHANG, retrying EINTR): how it
    /// ended, or nil while it runs.
    public static func reapIfEnded(_ pid: Int32) throws(SystemError) -> WaitStatus? {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return WaitStatus(status) }
            if reaped == 0 { return nil }
            if errno != EINTR { throw .current("waitpid") }
        }
    }

    /// The address space of process `pid` in bytes, as the kernel counts it; 0 when it cannot be read.
    public static func addressSpace(of pid: Int32) -> UInt64 { afsys_address_space(pid) }

    /// SIGKILL to every process of group `group` (a helper's pid, before it is reaped); refuses 0 and 1.
    public static func killGroup(_ group: Int32) throws(SystemError) {
        guard afsys_kill_group(group) == 0 else { throw .current("kill") }
    }

    /// Helper side, first thing: dies when the thread that spawned it ends; false when the parent is
    /// no longer `expectedParent` (the caller exits).
    public static func dieWithParent(_ expectedParent: Int32) -> Bool { afsys_die_with_parent(expectedParent) == 0 }

    /// Helper side: no core dumps and, if `memoryBytes` > 0, an address-space ceiling with small thread
    /// stacks and few malloc arenas (``afsys_limit_resources``).
    public static func limitResources(memoryBytes: UInt64) throws(SystemError) {
        guard afsys_limit_resources(memoryBytes) == 0 else { throw .current("setrlimit") }
    }

    /// Not dumpable (no ptrace or /proc/PID/mem by the user's other processes), no core dumps.
    public static func harden() throws(SystemError) {
        guard afsys_harden() == 0 else { throw .current("prctl") }
    }
}
