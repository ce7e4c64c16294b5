/// A seeded random number generator (SplitMix64), so that two runs build the same data and
/// ask the same queries. Not for cryptography.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A generator for a sub-task, so that changing one part of the data does not shift the others.
    mutating func fork(_ salt: UInt64) -> SeededGenerator {
        SeededGenerator(seed: next() ^ (salt &* 0x2545_F491_4F6C_DD1D))
    }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < p
    }

    /// An index into `weights`, chosen with probability proportional to its weight.
    mutating func weighted(_ weights: [Double]) -> Int {
        let total = weights.reduce(0, +)
        var pick = Double.random(in: 0..<total, using: &self)
        for (index, weight) in weights.enumerated() {
            if pick < weight { return index }
            pick -= weight
        }
        return weights.count - 1
    }

    /// An element of `items`.
    mutating func pick<T>(_ items: [T]) -> T {
        items[Int.random(in: 0..<items.count, using: &self)]
    }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }

    /// A lower-case hexadecimal UUID-shaped text (8-4-4-4-12).
    mutating func uuidText() -> String {
        let hex = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(36)
        for index in 0..<32 {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append("-") }
            text.append(hex[Int.random(in: 0..<16, using: &self)])
        }
        return text
    }
}
