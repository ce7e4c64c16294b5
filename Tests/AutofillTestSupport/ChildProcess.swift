import Dispatch
import Foundation
import Glibc
import Synchronization

/// Runs a program the way the tests need it:
///
/// * **in a session of its own, with no controlling terminal** (`posix_spawn` with
///   `POSIX_SPAWN_SETSID`), so a test run at a developer's terminal behaves exactly as in CI: a child
///   that opens `/dev/tty` gets ENXIO and never reads or writes the developer's terminal. Tests that
///   want a terminal drive a real one through tmux, on purpose;
/// * standard input given, standard output and error read separately and **at the same time**, so a
///   program that fills one pipe (64 KiB) while the test waits on the other can never block forever.
public enum ChildProcess {
    /// How a run ended.
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// glibc's `POSIX_SPAWN_SETSID` (spawn.h, `__USE_GNU`; glibc ≥ 2.26), which Swift does not import.
    static let spawnSetSID: Int16 = 0x80
    /// glibc's POSIX_SPAWN_SETSIGMASK.
    static let spawnSetSigmask: Int16 = 0x08

    /// A started program: its pid, and its output once it ends.
    public final class Running: Sendable {
        /// The program's process id (a session and process group leader).
        public let pid: Int32
        private let output: DispatchGroup
        private let collected: Collected
        private let status = Mutex<Int32?>(nil)

        fileprivate init(pid: Int32, output: DispatchGroup, collected: Collected) {
            self.pid = pid
            self.output = output
            self.collected = collected
        }

        /// Whether the program has not ended yet (a zombie waiting to be reaped has ended).
        public var isRunning: Bool {
            if status.withLock({ $0 }) != nil { return false }
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
                return false
            }
            return !stat[close...].hasPrefix(") Z")
        }

        /// Waits for the program to end and for its output, and returns both.
        public func wait() -> Result {
            let code = status.withLock { known -> Int32 in
                if let known { return known }
                var raw: Int32 = 0
                while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
                // WIFEXITED → the exit status; killed by a signal → 128 + the signal, as a shell says.
                let code = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
                known = code
                return code
            }
            output.wait()
            let (out, err) = collected.output.withLock { $0 }
            return Result(status: code, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
        }
    }

    /// Runs `executable` with `arguments`, `environment` (nil: this process's) and `input` on stdin,
    /// and waits for it.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           input: String = "") throws -> Result {
        try start(executable, arguments, environment: environment, input: input).wait()
    }

    /// Starts `executable` with `arguments`, `environment` (nil: this process's) and `input` on stdin.
    /// Its output is collected in the background; `wait()` returns it. With `unblockingSignals`, it
    /// starts with no signal blocked, as from a shell, instead of the starting thread's mask
    /// (Dispatch's threads block SIGCHLD and SIGTERM): a daemon that starts programs and waits for
    /// SIGCHLD needs that (dbus-daemon, D-Bus activation).
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                             input: String = "", unblockingSignals: Bool = false) throws -> Running {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + env { free(pointer) } }
        var stdin: [Int32] = [0, 0], stdout: [Int32] = [0, 0], stderr: [Int32] = [0, 0]
        var pid: pid_t = 0
        // Every end is close-on-exec (the dup2 onto 0, 1 and 2 clears it in the child), set while no
        // other start can spawn: no end of these pipes may leak into a child that a test's other
        // thread starts meanwhile. A leaked write end keeps a reader waiting for an end of file that
        // never comes (a long-lived daemon holding a short program's stdin or stdout open).
        let spawned = try spawning.withLock { _ throws(ChildProcessError) -> Int32 in
            for index in 0..<3 {
                let made = index == 0 ? pipe(&stdin) : index == 1 ? pipe(&stdout) : pipe(&stderr)
                guard made == 0 else { throw ChildProcessError("pipe: \(String(cString: strerror(errno)))") }
            }
            for fd in stdin + stdout + stderr { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, stdin[0], 0)
            posix_spawn_file_actions_adddup2(&actions, stdout[1], 1)
            posix_spawn_file_actions_adddup2(&actions, stderr[1], 2)
            // Nothing else of this process: another thread's descriptor that is not close-on-exec
            // (a file being copied) would otherwise live on in a daemon, and a program copied so could
            // not run while it does (ETXTBSY).
            if let closeFrom = addCloseFrom { _ = closeFrom(&actions, 3) }
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            posix_spawnattr_setflags(&attributes, spawnSetSID | (unblockingSignals ? spawnSetSigmask : 0))
            var none = sigset_t()
            sigemptyset(&none)
            posix_spawnattr_setsigmask(&attributes, &none)
            return posix_spawn(&pid, executable, &actions, &attributes, argv, env)
        }
        for fd in [stdin[0], stdout[1], stderr[1]] { close(fd) }
        guard spawned == 0 else {
            for fd in [stdin[1], stdout[0], stderr[0]] { close(fd) }
            throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }

        let collected = Collected()
        let (outRead, errRead, inWrite) = (stdout[0], stderr[0], stdin[1])
        let output = DispatchGroup()
        // Each blocking read and write on a queue of its own: such queues get a thread whenever they
        // need one (Dispatch's overcommitting pool), while a daemon's readers, blocked for as long as
        // it runs, would take the few threads of `DispatchQueue.global()` from everyone else.
        func queue(_ what: String) -> DispatchQueue { DispatchQueue(label: "ChildProcess \(pid) \(what)") }
        queue("stdout").async(group: output) {
            let data = readAll(outRead)
            collected.output.withLock { $0.stdout = data }
        }
        queue("stderr").async(group: output) {
            let data = readAll(errRead)
            collected.output.withLock { $0.stderr = data }
        }
        let bytes = Array(input.utf8)
        queue("stdin").async {
            _ = ignoreSIGPIPE  // a program that never reads its input (or exits first): EPIPE, not a SIGPIPE here
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { write(inWrite, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                offset += n
            }
            close(inWrite)
        }
        return Running(pid: pid, output: output, collected: collected)
    }

    /// What a program wrote, filled in by the reading threads.
    final class Collected: Sendable {
        let output = Mutex<(stdout: Data, stderr: Data)>((Data(), Data()))
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift does not import; nil
    /// on an older C library.
    static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
    }()

    /// Held while a start makes its pipes and spawns (see ``start(_:_:environment:input:)``).
    static let spawning = Mutex(())

    /// Ignores SIGPIPE in this (test) process, once.
    static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Reads `fd` to its end, then closes it.
    static func readAll(_ fd: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        close(fd)
        return data
    }
}

/// A program could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
