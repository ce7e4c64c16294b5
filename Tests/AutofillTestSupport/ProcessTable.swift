import Foundation

/// What `/proc` tells the tests about other processes: whether one still runs, what it runs, and
/// which processes a process started.
public enum ProcessTable {
    /// Whether `pid` exists and runs code (a zombie, ended and not yet reaped, runs none).
    public static func isRunning(_ pid: Int32) -> Bool {
        guard let (state, _) = status(of: pid) else { return false }
        return state != "Z"
    }

    /// The name of the program `pid` runs, cut to 15 bytes by the kernel; nil once it has ended.
    /// Readable where `/proc/PID/exe` is not (a process that is not dumpable).
    public static func name(of pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The pids whose parent is `parent`.
    public static func children(of parent: Int32) -> [Int32] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return all.compactMap(Int32.init).filter { status(of: $0)?.parent == parent }
    }

    /// Every process under `pid`: its children, theirs, and so on.
    public static func descendants(of pid: Int32) -> Set<Int32> {
        var found: Set<Int32> = [], frontier: Set<Int32> = [pid]
        while !frontier.isEmpty {
            let next = Set(frontier.flatMap(children(of:))).subtracting(found)
            found.formUnion(next)
            frontier = next
        }
        return found
    }

    /// The state letter and parent pid from `/proc/PID/stat` (read after the last ")": a program's
    /// name may hold spaces and parentheses).
    static func status(of pid: Int32) -> (state: Character, parent: Int32)? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let state = fields[0].first, let parent = Int32(fields[1]) else { return nil }
        return (state, parent)
    }
}

/// Waits without suspending until `condition` holds or `bound` passes, then says whether it holds.
/// For synchronous tests, and for windows that must stay short: under load an `await` can resume
/// minutes later (every thread of the test run's pool held by other tests), while a test that never
/// suspends keeps its thread. The bound is generous: it returns as soon as the condition holds.
@discardableResult
public func waitUntil(within bound: Duration = .seconds(120), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + bound
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}
