/// Timing samples in milliseconds, summarized by sorting (nearest-rank percentiles).
struct Samples {
    private(set) var sorted: [Double]

    init(_ milliseconds: [Double]) {
        sorted = milliseconds.sorted()
    }

    init(_ durations: [Duration]) {
        self.init(durations.map(\.milliseconds))
    }

    var count: Int { sorted.count }

    /// The nearest-rank percentile: the smallest sample with at least `p` % of samples at or below it.
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }

    var median: Double { percentile(50) }
    var p90: Double { percentile(90) }
    var p99: Double { percentile(99) }
    var min: Double { sorted.first ?? .nan }
    var max: Double { sorted.last ?? .nan }
    var mean: Double { sorted.isEmpty ? .nan : sorted.reduce(0, +) / Double(sorted.count) }

    /// The figures reports show.
    var summary: [String: Double] {
        ["count": Double(count), "min": min, "p50": median, "p90": p90, "p99": p99, "max": max, "mean": mean]
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}

/// Times `body` with the continuous clock.
@inline(__always)
func measure<R>(_ body: () throws -> R) rethrows -> (Duration, R) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    return (clock.now - start, result)
}
