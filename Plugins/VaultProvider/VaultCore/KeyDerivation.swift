internal import AutofillCore

/// How a vault's key is derived from its master password: the function and its cost parameters,
/// recorded in the vault's header (``VaultHeader``).
///
/// New vaults use ``standard``, Argon2id at RFC 9106's second recommended option. Vaults made by
/// earlier releases use scrypt (format version 1) and still open; `autofill-vault passwd` moves them
/// to Argon2id. Every parameter set is checked before a key is derived (``check(_:floor:)``): a
/// ceiling, so a crafted header cannot make a reader allocate or compute without bound, and a
/// floor, so a release build never makes, nor opens, a vault that is cheap to guess.
public enum KeyDerivation: Hashable, Sendable, CustomStringConvertible {
    /// scrypt (format version 1: vaults of earlier releases).
    case scrypt(ScryptParameters)
    /// Argon2id through libargon2 (format version 2).
    case argon2id(Argon2Parameters)

    /// What new vaults use: Argon2id, m = 64 MiB, t = 3, p = 4.
    public static let standard = KeyDerivation.argon2id(.standard)

    public var description: String {
        switch self {
        case .scrypt(let parameters): parameters.description
        case .argon2id(let parameters): parameters.description
        }
    }

    /// The memory the derivation needs, in bytes.
    public var memory: Int {
        switch self {
        case .scrypt(let parameters): parameters.memory
        case .argon2id(let parameters): parameters.memory
        }
    }

    /// What the parameters are checked for.
    public enum Use: Sendable {
        /// Opening an existing vault.
        case reading
        /// Making a new vault or a new master password (`create`, `passwd`).
        case writing
    }

    /// The least cost accepted: the release floor, or the test floor of debug builds.
    public enum Floor: Sendable {
        /// What release builds (the installed programs) accept: costs a guesser pays for.
        case release
        /// What debug builds accept (what `swift test` runs): any cost libargon2 or scrypt can compute,
        /// so tests make vaults in microseconds. Never chosen at run time: see ``current``.
        case tests

        /// The floor of this build: ``tests`` in a debug build, ``release`` otherwise. Chosen by the
        /// compiler, not by an environment variable or a file, so nothing a script sets can make an
        /// installed autofill-vault write, or the provider open, a vault below the release floor.
        public static var current: Floor {
            #if DEBUG
            .tests
            #else
            .release
            #endif
        }
    }

    /// The ceiling every build applies, reading or writing: at most 1 GiB of scrypt memory, 4 GiB of
    /// Argon2id memory, 32 Argon2id passes, 16 lanes, and 16 GiB of memory × passes (a few tens of
    /// seconds), so a crafted header can neither exhaust memory nor keep a reader busy for hours.
    public static let maximumArgon2Work: UInt64 = 16 << 20
    public static let maximumArgon2MemoryKiB: UInt32 = 4 << 20
    public static let maximumArgon2Iterations: UInt32 = 32
    public static let maximumArgon2Parallelism: UInt8 = 16
    /// The release floor of Argon2id (OWASP's minimum configurations): memory × passes at least
    /// 36 MiB, and memory at least 8 MiB.
    public static let argon2MinimumWork: UInt64 = 36 << 10
    public static let argon2MinimumMemoryKiB: UInt32 = 8 << 10
    /// The release floor of a new scrypt key (OWASP's minimum: N = 2^17, r = 8, p = 1, or the same
    /// `128·r·N·p`): 128 MiB. An scrypt vault of an earlier release opens from N = 2^10, its old
    /// minimum, so no vault it wrote is locked out; autofill-vault warns and `passwd` upgrades it.
    public static let scryptMinimumWork = 128 << 20

    /// Checks the parameters for `use` against the ceiling and `floor`; the message names the
    /// limits and says what to do.
    public func check(_ use: Use, floor: Floor = .current) throws(VaultError) {
        switch self {
        case .scrypt(let parameters):
            try parameters.check()  // the ceiling, and N ≥ 2^10
            if use == .writing, floor == .release, parameters.memory < Self.scryptMinimumWork {
                throw VaultError(.invalidInput, """
                    \(parameters) is below the floor for a new key (128·r·N·p at least 128 MiB: N = 2^17 with r = 8, p = 1)
                    """)
            }
        case .argon2id(let parameters):
            let memory = parameters.memoryKiB, passes = parameters.iterations, lanes = parameters.parallelism
            guard memory <= Self.maximumArgon2MemoryKiB, passes <= Self.maximumArgon2Iterations,
                (1...Self.maximumArgon2Parallelism).contains(lanes), passes >= 1, memory >= 8 * UInt32(lanes),
                UInt64(memory) * UInt64(passes) <= Self.maximumArgon2Work
            else {
                throw VaultError(.invalidInput, """
                    \(parameters) is out of range: at most 4 GiB of memory, 32 passes, 16 lanes and 16 GiB of memory × passes, \
                    at least 1 pass and 8 KiB per lane
                    """)
            }
            if floor == .release, memory < Self.argon2MinimumMemoryKiB || UInt64(memory) * UInt64(passes) < Self.argon2MinimumWork {
                throw VaultError(.invalidInput, """
                    \(parameters) is below the floor (memory at least 8 MiB, memory × passes at least 36 MiB)
                    """)
            }
        }
    }

    /// Whether a release would make a new key with these parameters (an older vault below it gets a warning).
    public var meetsReleaseFloor: Bool { meetsFloor(.release) }

    /// Whether this build (`floor`) would make a new key with these parameters.
    public func meetsFloor(_ floor: Floor = .current) -> Bool {
        (try? check(.writing, floor: floor)) != nil
    }

    /// Derives the 256-bit vault key from `password` and `salt`, after checking the parameters for reading.
    func deriveKey(password: Secret, salt: [UInt8], floor: Floor = .current) throws(VaultError) -> VaultKey {
        try check(.reading, floor: floor)
        guard !password.isEmpty else { throw VaultError(.invalidInput, "the master password is empty") }
        var bytes = Array(password.revealed.utf8)
        defer { bytes.withUnsafeMutableBytes { raw in for index in raw.indices { raw[index] = 0 } } }
        switch self {
        case .scrypt(let parameters): return try parameters.deriveKey(bytes: bytes, salt: salt)
        case .argon2id(let parameters): return try parameters.deriveKey(bytes: bytes, salt: salt)
        }
    }
}
