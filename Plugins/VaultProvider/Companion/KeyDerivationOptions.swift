import ArgumentParser
import VaultCore

/// The key derivation `create` and `passwd` give a new key: Argon2id at RFC 9106's second
/// recommended option unless told otherwise.
struct KeyDerivationOptions: ParsableArguments {
    @Option(help: ArgumentHelp("""
        The key derivation: argon2id (default: m=65536 KiB, t=3, p=4), argon2id:m=KIB,t=PASSES,p=LANES, or \
        scrypt:log2n=N[,r=R,p=P]. Release builds refuse costs below the floor (docs/VAULT.md).
        """, valueName: "spec"))
    var kdf: String?

    @Option(name: .customLong("scrypt-log2n"), help: ArgumentHelp(
        "An scrypt vault (format version 1) with N = 2^n, as earlier releases made; same as --kdf scrypt:log2n=n.", valueName: "n"))
    var scryptLog2N: UInt8?

    /// The key derivation asked for, checked for writing against this build's floor.
    func keyDerivation() throws(CommandFailure) -> KeyDerivation {
        let chosen: KeyDerivation
        switch (kdf, scryptLog2N) {
        case (nil, nil): chosen = .standard
        case (nil, let log2N?): chosen = .scrypt(ScryptParameters(log2N: log2N))
        case (let spec?, nil): chosen = try Self.parse(spec)
        case (_?, _?): throw CommandFailure(.usage, "--kdf and --scrypt-log2n do not go together: choose one")
        }
        do {
            try chosen.check(.writing)
        } catch {
            throw CommandFailure(.usage, "\(error.message); leave --kdf out for the default (\(KeyDerivation.standard))")
        }
        if chosen.memory > Self.helperMemoryHint << 20 {
            printWarning("""
                \(chosen) needs \(chosen.memory >> 20) MiB to unlock; autofill's provider helper may use \(Self.helperMemoryHint) MB of \
                address space by default: raise ProviderIsolation's MemoryLimitMB for org.autofill.vault (docs/CONFIGURATION.md)
                """)
        }
        return chosen
    }

    /// Above this many MiB of key-derivation memory, the provider's helper needs a larger
    /// `MemoryLimitMB` than its default (512 MB of address space, of which the helper itself takes about 250).
    static let helperMemoryHint = 256

    /// Reads `argon2id`, `argon2id:m=65536,t=3,p=4` or `scrypt:log2n=17,r=8,p=1`.
    static func parse(_ spec: String) throws(CommandFailure) -> KeyDerivation {
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        var values: [String: UInt32] = [:]
        for pair in (parts.count > 1 ? parts[1] : "").split(separator: ",") {
            let nameAndValue = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard nameAndValue.count == 2, let value = UInt32(nameAndValue[1]) else {
                throw CommandFailure(.usage, "--kdf: write each cost as NAME=NUMBER, separated by commas (argon2id:m=65536,t=3,p=4)")
            }
            values[nameAndValue[0].lowercased()] = value
        }
        func take(_ name: String, _ fallback: UInt32, maximum: UInt32 = .max) throws(CommandFailure) -> UInt32 {
            let value = values.removeValue(forKey: name) ?? fallback
            guard value <= maximum else { throw CommandFailure(.usage, "--kdf: \(name)=\(value) is too large (at most \(maximum))") }
            return value
        }
        let chosen: KeyDerivation
        switch parts.first?.lowercased() {
        case "argon2id":
            let standard = Argon2Parameters.standard
            chosen = .argon2id(Argon2Parameters(
                memoryKiB: try take("m", standard.memoryKiB), iterations: try take("t", standard.iterations),
                parallelism: UInt8(try take("p", UInt32(standard.parallelism), maximum: 255))))
        case "scrypt":
            guard values["log2n"] != nil else { throw CommandFailure(.usage, "--kdf scrypt needs log2n=N (scrypt:log2n=17)") }
            chosen = .scrypt(ScryptParameters(
                log2N: UInt8(try take("log2n", 0, maximum: 255)), r: UInt8(try take("r", 8, maximum: 255)), p: UInt8(try take("p", 1, maximum: 255))))
        default:
            throw CommandFailure(.usage, "--kdf names argon2id or scrypt (argon2id:m=65536,t=3,p=4; scrypt:log2n=17)")
        }
        if let unknown = values.keys.sorted().first {
            throw CommandFailure(.usage, "--kdf: \(unknown) is not a cost of \(parts[0]) (argon2id: m, t, p; scrypt: log2n, r, p)")
        }
        return chosen
    }
}
