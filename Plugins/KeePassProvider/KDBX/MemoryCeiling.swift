internal import Glibc

/// The address-space ceiling of this process (the helper's `RLIMIT_AS`, which autofill's
/// `ProviderIsolation` → `MemoryLimitMB` sets, 512 MiB by default), checked before Argon2 allocates
/// what a database asks: a request past it fails with its real cause and the setting that raises it,
/// instead of an allocation failure that seems to blame the machine.
enum MemoryCeiling {
    /// What Argon2 needs besides its memory and threads' stacks (the entries read, small buffers).
    static let margin: UInt64 = 16 << 20
    /// A thread's stack (glibc's default), for each of Argon2's threads (at most 4).
    static let threadStack: UInt64 = 8 << 20
    /// A helper's own address space before a database, when `/proc` cannot say (the sandbox may hide
    /// it): measured at about 200 MiB.
    static let helperBaseline: UInt64 = 256 << 20

    /// The ceiling in bytes; nil when there is none.
    static var ceiling: UInt64? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// Throws when Argon2 with `memoryKiB` and `lanes` cannot fit under the ceiling with what is mapped
    /// now (the file included: it is read first; when that is unknown, Argon2's own needs alone).
    static func checkArgon2(memoryKiB: UInt64, lanes: UInt64) throws(KDBXError) {
        guard let ceiling else { return }
        let total = (mappedBytes() ?? 0) + (memoryKiB << 10) + min(lanes, 4) * threadStack + margin
        guard total > ceiling else { return }
        throw refusal(memoryKiB: memoryKiB, ceiling: ceiling, fits: total)
    }

    /// Argon2 failed to allocate under a ceiling: the same message, naming the setting, not the machine.
    static func allocationFailed(memoryKiB: UInt64, lanes: UInt64) -> KDBXError? {
        guard let ceiling else { return nil }
        let total = (mappedBytes() ?? helperBaseline) + (memoryKiB << 10) + min(lanes, 4) * threadStack + margin
        return refusal(memoryKiB: memoryKiB, ceiling: ceiling, fits: max(total, ceiling + (64 << 20)))
    }

    private static func refusal(memoryKiB: UInt64, ceiling: UInt64, fits total: UInt64) -> KDBXError {
        let needed = memoryKiB << 10
        let raise = ((total + (64 << 20) - 1) >> 26) << 6  // MiB, up to a multiple of 64
        return KDBXError(.unsupported, """
            the database's Argon2 key derivation asks for \(needed >> 20) MiB of memory, more than fits in this provider's \
            helper process (its memory limit is \(ceiling >> 20) MiB): raise ProviderIsolation.MemoryLimitMB in autofill's \
            configuration to at least \(raise) (docs/CONFIGURATION.md), or lower the database's Argon2 memory in KeePassXC \
            (Database Settings → Security → Encryption)
            """)
    }

    /// This process's mapped address space now (`/proc/self/statm`'s first field); nil if unknown.
    static func mappedBytes() -> UInt64? {
        guard let file = fopen("/proc/self/statm", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return nil }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let first = text.split(separator: " ").first, let pages = UInt64(first) else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }
}
