internal import Glibc

/// The address-space ceiling of this process (the helper's `RLIMIT_AS`, which autofill's
/// `ProviderIsolation` → `MemoryLimitMB` sets, 512 MiB by default), checked before Argon2 allocates
/// what a database asks: a request past it fails with its real cause and the setting that raises it,
/// instead of an allocation failure that seems to blame the machine.
enum MemoryCeiling {
    /// What Argon2 needs besides its memory (the file, the entries read, libraries): a margin.
    static let margin: UInt64 = 96 << 20

    /// Throws when Argon2 with `memoryKiB` cannot fit under the ceiling with what is mapped now.
    static func checkArgon2(memoryKiB: UInt64, fileSize: Int) throws(KDBXError) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return }
        let ceiling = UInt64(limit.rlim_cur)
        let needed = memoryKiB << 10
        let total = mappedBytes() + needed + UInt64(fileSize) + margin
        guard total > ceiling else { return }
        let raise = (total + (1 << 20) - 1) >> 20
        throw KDBXError(.unsupported, """
            the database's Argon2 key derivation asks for \(needed >> 20) MiB of memory, more than fits in this provider's \
            helper process (its memory limit is \(ceiling >> 20) MiB): raise ProviderIsolation.MemoryLimitMB in autofill's \
            configuration to at least \(raise) (docs/CONFIGURATION.md), or lower the database's Argon2 memory in KeePassXC \
            (Database Settings → Security → Encryption)
            """)
    }

    /// This process's mapped address space now (`/proc/self/statm`'s first field), 0 if unknown.
    static func mappedBytes() -> UInt64 {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return 0 }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let first = text.split(separator: " ").first, let pages = UInt64(first) else { return 0 }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }
}
