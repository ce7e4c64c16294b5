internal import Foundation

/// How long a key derivation would take on this machine, estimated from its parameters before it runs.
///
/// A database's KDF parameters come from its file and can only be checked (HMAC, start bytes) after
/// the KDF ran: a 300-byte file can ask for 10^19 AES-KDF rounds or 4 × 10^9 Argon2 passes, which
/// would keep the provider busy for hours. So the cost is estimated first, from the parameters and
/// a calibration measured once per process (a few milliseconds of CPU time: AES-KDF rounds, an Argon2 pass over
/// 4 MiB), and a derivation over the limit is refused without running, naming the file and the
/// parameters. The estimate is linear in the work (rounds; iterations × memory, divided by the lanes
/// that run at once), which is how both KDFs scale.
public enum KeyDerivationCost {
    /// The default most a derivation may take: 10 s. KeePassXC's own default aims at 1 s on the
    /// machine that saved the database, so a slower machine has ten times the margin.
    public static let defaultLimit: Duration = .seconds(10)

    /// Nanoseconds of one AES-KDF round and of one Argon2 pass over one KiB, measured once.
    private static let calibration: (aesRound: Double, argon2KiB: Double) = (aesRoundNanoseconds(), argon2KiBNanoseconds())

    /// The estimated time of `derivation` on this machine.
    static func estimate(_ derivation: KeyDerivation) -> Duration {
        let nanoseconds: Double
        switch derivation {
        case .aes(_, let rounds):
            nanoseconds = Double(rounds) * calibration.aesRound
        case .argon2(let parameters):
            // libargon2 runs min(parallelism, 4) threads here (KeyDerivation.Argon2.hash), on the cores there are.
            let lanes = Double(max(1, min(Int(parameters.parallelism), 4, ProcessInfo.processInfo.activeProcessorCount)))
            nanoseconds = Double(parameters.iterations) * Double(parameters.memoryKiB) * calibration.argon2KiB / lanes
        }
        return .nanoseconds(Int64(min(nanoseconds, 1e18)))
    }

    /// Throws `tooSlow` when `derivation` would take over `limit`, naming `database` and the parameters.
    static func check(_ derivation: KeyDerivation, limit: Duration, database: String) throws(KDBXError) {
        let estimate = estimate(derivation)
        guard estimate > limit else { return }
        throw KDBXError(.tooSlow, """
            \(database) asks for a key derivation that would take about \(seconds(estimate)) on this machine \
            (\(derivation.parameterSummary)), over the limit of \(seconds(limit)); it was not run. If this is your \
            database, lower its decryption time in KeePassXC (Database settings, Security), or raise the \
            provider's MaximumUnlockSeconds setting
            """)
    }

    /// "12 s", "3.4 s", "2.1e+08 s".
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if value >= 1e6 { return "\(String(format: "%.1e", value)) s" }
        return value >= 10 ? "\(Int(value.rounded())) s" : "\((value * 10).rounded() / 10) s"
    }

    /// The fastest of three runs of `body`, in nanoseconds of this thread's CPU time: what the
    /// derivation costs, not how long other programs kept the core from it (a machine busy with
    /// other work would otherwise calibrate several times slower and refuse an ordinary database).
    /// Both derivations calibrated here run on the calling thread (one lane).
    private static func fastest(_ body: () -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<3 {
            let start = threadCPUNanoseconds()
            body()
            best = min(best, threadCPUNanoseconds() - start)
        }
        return best
    }

    /// This thread's CPU time so far, in nanoseconds.
    private static func threadCPUNanoseconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
    }

    private static func aesRoundNanoseconds() -> Double {
        let rounds: UInt64 = 20_000
        let time = fastest { _ = try? Gcrypt.aesECBRounds(key: [UInt8](repeating: 1, count: 32), [UInt8](repeating: 0, count: 32), rounds: rounds) }
        return max(time / Double(rounds), 1)
    }

    private static func argon2KiBNanoseconds() -> Double {
        let memoryKiB: UInt32 = 4096
        let parameters = KeyDerivation.Argon2(
            variant: .id, salt: [UInt8](repeating: 2, count: 32), iterations: 1, memoryKiB: memoryKiB, parallelism: 1, version: 0x13,
            secret: nil, associatedData: nil)
        let time = fastest { _ = try? parameters.hash([UInt8](repeating: 3, count: 32)) }
        return max(time / Double(memoryKiB), 1)
    }
}

extension KeyDerivation {
    /// "AES-KDF, 10000000000 rounds", "Argon2id, 1000000000 iterations, 64 MiB, parallelism 2".
    var parameterSummary: String {
        switch self {
        case .aes(_, let rounds):
            return "AES-KDF, \(rounds) rounds"
        case .argon2(let parameters):
            let memory = parameters.memoryKiB >= 1024 ? "\(parameters.memoryKiB / 1024) MiB" : "\(parameters.memoryKiB) KiB"
            return "Argon2\(parameters.variant == .d ? "d" : "id"), \(parameters.iterations) iterations, \(memory), parallelism \(parameters.parallelism)"
        }
    }
}
