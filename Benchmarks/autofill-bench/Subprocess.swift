internal import Foundation
internal import Glibc
internal import Synchronization

/// Runs a program with `posix_spawn` and waits for it with `wait4`.
///
/// `ru_maxrss` from `wait4` is kept but is not the child's own peak: glibc's posix_spawn uses
/// vfork, and Linux folds the old (here: our) address space's high-water RSS into the child's
/// at exec. Memory figures therefore come from `/usr/bin/time`, which forks from a tiny process.
///
/// Several threads may run programs at once (the agent benchmark's concurrent clients): a pipe is
/// made close-on-exec before any other thread's spawn can inherit it.
struct Subprocess {
    struct Outcome {
        /// The exit status, or 128 + the signal number.
        let status: Int32
        /// Wall time from before the spawn to after the wait.
        let elapsed: Duration
        /// `ru_maxrss` in kilobytes: at least this process's own peak (see above).
        let maxRSSKilobytes: Int
        /// What it printed on stdout, when captured.
        let output: String
    }

    /// A program started by ``start(outputFile:errorFile:)`` and not yet waited for.
    struct Running {
        let pid: pid_t
        let started: ContinuousClock.Instant
        let outputFile: String?

        /// Whether it has not ended yet (a zombie has ended).
        var isRunning: Bool { processIsRunning(pid) }

        /// Waits for it to end; the output is the output file's contents, when there is one.
        func wait() throws -> Outcome {
            let (status, usage) = try Subprocess.reap(pid)
            let elapsed = ContinuousClock.now - started
            let output = outputFile.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
            return Outcome(status: status, elapsed: elapsed, maxRSSKilobytes: Int(usage.ru_maxrss), output: output)
        }
    }

    let path: String
    let arguments: [String]
    let environment: [String]
    /// The file standard input reads.
    var input = "/dev/null"

    /// Held from making a pipe until it is close-on-exec and the child that needs its write end was
    /// spawned, so no other thread's child inherits it (which would keep the pipe open after our
    /// child exits). There is no `pipe2` in Swift's Glibc module.
    private static let spawning = Mutex(())

    /// Runs the program once; stdout goes to /dev/null unless `captureOutput`; stderr always does
    /// unless `keepStderr` (then it is this process's) or `errorFile` (a file, truncated first).
    func run(captureOutput: Bool = false, keepStderr: Bool = false, errorFile: String? = nil) throws -> Outcome {
        var pipeEnds: [Int32] = [-1, -1]
        let (pid, start) = try Self.spawning.withLock { _ in
            if captureOutput {
                guard pipe(&pipeEnds) == 0 else { throw BenchmarkError("pipe failed: \(String(cString: strerror(errno)))") }
                for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            }
            defer { if captureOutput { close(pipeEnds[1]) } }
            do {
                return try spawn(output: captureOutput ? .descriptor(pipeEnds[1]) : .file("/dev/null"),
                                 error: errorFile.map { .file($0) } ?? (keepStderr ? .inherit : .file("/dev/null")))
            } catch {
                if captureOutput { close(pipeEnds[0]) }
                throw error
            }
        }
        var output: [UInt8] = []
        if captureOutput {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
                if count > 0 { output += buffer[0..<count]; continue }
                if count < 0 && errno == EINTR { continue }
                break
            }
            close(pipeEnds[0])
        }
        let (status, usage) = try Self.reap(pid)
        let elapsed = ContinuousClock.now - start
        return Outcome(status: status, elapsed: elapsed, maxRSSKilobytes: Int(usage.ru_maxrss),
                       output: String(decoding: output, as: UTF8.self))
    }

    /// Starts the program without waiting for it: stdout to `outputFile` and stderr to `errorFile`
    /// (each truncated first), or /dev/null.
    func start(outputFile: String? = nil, errorFile: String? = nil) throws -> Running {
        let (pid, start) = try Self.spawning.withLock { _ in
            try spawn(output: .file(outputFile ?? "/dev/null"), error: .file(errorFile ?? "/dev/null"))
        }
        return Running(pid: pid, started: start, outputFile: outputFile)
    }

    /// Where a child's stdout or stderr goes.
    private enum Destination {
        case inherit
        case descriptor(Int32)
        case file(String)
    }

    /// Spawns the child with `input` on its stdin; the instant just before the spawn.
    private func spawn(output: Destination, error: Destination) throws -> (pid_t, ContinuousClock.Instant) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (destination, target) in [(output, Int32(1)), (error, Int32(2))] {
            switch destination {
            case .inherit: break
            case .descriptor(let descriptor): posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            case .file(let file): posix_spawn_file_actions_addopen(&actions, target, file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            }
        }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)

        let argv = ([path] + arguments).map { strdup($0) }
        let envp = environment.map { strdup($0) }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let start = ContinuousClock.now
        var pid: pid_t = 0
        var argvList = argv + [nil], envList = envp + [nil]
        let spawned = posix_spawn(&pid, path, &actions, nil, &argvList, &envList)
        guard spawned == 0 else { throw BenchmarkError("cannot run \(path): \(String(cString: strerror(spawned)))") }
        return (pid, start)
    }

    /// Waits for `pid`: its exit status (128 + the signal number when a signal ended it) and usage.
    fileprivate static func reap(_ pid: pid_t) throws -> (Int32, rusage) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkError("wait4 failed: \(String(cString: strerror(errno)))") }
        }
        return (status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F), usage)
    }

    /// The absolute path of `name` on PATH (or `name` itself when it has a slash), or nil.
    static func find(_ name: String) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where access("\(folder)/\(name)", X_OK) == 0 {
            return "\(folder)/\(name)"
        }
        return nil
    }
}

/// Waits until the files under `folder` were last changed at least 2.5 s ago: plugins a user runs were
/// installed earlier, and the host remembers digests of settled files only (its `DigestCache`), so a
/// benchmark started right after `Scripts/build` would measure first-run hashing instead.
func waitUntilPluginsSettle(in folder: String) {
    var newest = 0.0
    if let names = FileManager.default.subpaths(atPath: folder) {
        for name in names {
            var info = stat()
            guard stat("\(folder)/\(name)", &info) == 0 else { continue }
            newest = max(newest, Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9)
        }
    }
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let wait = newest + 2.5 - (Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
    if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
}
