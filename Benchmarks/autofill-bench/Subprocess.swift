internal import Foundation
internal import Glibc

/// Runs a program with `posix_spawn` and waits for it with `wait4`.
///
/// `ru_maxrss` from `wait4` is kept but is not the child's own peak: glibc's posix_spawn uses
/// vfork, and Linux folds the old (here: our) address space's high-water RSS into the child's
/// at exec. Memory figures therefore come from `/usr/bin/time`, which forks from a tiny process.
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

    let path: String
    let arguments: [String]
    let environment: [String]

    /// Runs the program once; stdout goes to /dev/null unless `captureOutput`; stderr always does
    /// unless `keepStderr`.
    func run(captureOutput: Bool = false, keepStderr: Bool = false) throws -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeEnds: [Int32] = [-1, -1]
        if captureOutput {
            guard pipe(&pipeEnds) == 0 else { throw BenchmarkError("pipe failed: \(String(cString: strerror(errno)))") }
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if !keepStderr { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)

        let argv = ([path] + arguments).map { strdup($0) }
        let envp = environment.map { strdup($0) }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        var argvList = argv + [nil], envList = envp + [nil]
        let spawned = posix_spawn(&pid, path, &actions, nil, &argvList, &envList)
        if captureOutput { close(pipeEnds[1]) }
        guard spawned == 0 else {
            if captureOutput { close(pipeEnds[0]) }
            throw BenchmarkError("cannot run \(path): \(String(cString: strerror(spawned)))")
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
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkError("wait4 failed: \(String(cString: strerror(errno)))") }
        }
        let elapsed = clock.now - start
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Outcome(status: exitStatus, elapsed: elapsed, maxRSSKilobytes: Int(usage.ru_maxrss),
                       output: String(decoding: output, as: UTF8.self))
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
