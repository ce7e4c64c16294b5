internal import Foundation

/// How busy the machine was with other work while the benchmark ran: the CPU time all processes
/// used (from /proc/stat) minus the benchmark's own and its children's (getrusage). Figures from a
/// run where other programs kept the cores busy are slower and noisier; the report says so.
struct LoadMonitor {
    private struct Snapshot {
        var busy: Double
        var steal: Double
        var own: Double
        var wall: ContinuousClock.Instant
    }

    private let start: Snapshot

    init() {
        start = Self.snapshot()
    }

    /// Cores' worth of CPU other programs used on average since `init`, and the hypervisor's steal.
    func othersAndSteal() -> (others: Double, steal: Double) {
        let end = Self.snapshot()
        let wall = (end.wall - start.wall).milliseconds / 1000
        guard wall > 0 else { return (0, 0) }
        let others = ((end.busy - start.busy) - (end.own - start.own)) / wall
        return (max(others, 0), (end.steal - start.steal) / wall)
    }

    private static func snapshot() -> Snapshot {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var busy = 0.0, steal = 0.0
        if let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
           let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) {
            let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            if values.count >= 8 {
                // user nice system idle iowait irq softirq steal
                busy = (values[0] + values[1] + values[2] + values[5] + values[6]) / ticks
                steal = values[7] / ticks
            }
        }
        func seconds(_ who: __rusage_who) -> Double {
            var usage = rusage()
            getrusage(who.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
                + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        }
        return Snapshot(busy: busy, steal: steal, own: seconds(RUSAGE_SELF) + seconds(RUSAGE_CHILDREN), wall: ContinuousClock.now)
    }
}
