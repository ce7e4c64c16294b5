internal import Glibc

/// Pages of their own for secrets (a key): mapped apart from the heap, left out of core dumps,
/// locked out of swap where `RLIMIT_MEMLOCK` allows, and zeroed in a way the compiler keeps.
public enum SecretMemory {
    /// The system's page size (at least 4096).
    public static var pageSize: Int { max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096) }

    /// `size` bytes (a multiple of ``pageSize``) of zeroed private anonymous pages (`mmap`), left out of
    /// core dumps (`MADV_DONTDUMP`, best effort: kernels before 3.4 lack it).
    public static func map(_ size: Int) throws(SystemError) -> UnsafeMutableRawPointer {
        let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != UnsafeMutableRawPointer(bitPattern: -1) else { throw .current("mmap") }
        _ = madvise(address, size, MADV_DONTDUMP)
        return address
    }

    /// Keeps the pages at `base` out of swap (`mlock`); ENOMEM or EPERM when `RLIMIT_MEMLOCK` is too small.
    public static func lock(_ base: UnsafeMutableRawPointer, size: Int) throws(SystemError) {
        guard mlock(base, size) == 0 else { throw .current("mlock") }
    }

    /// Lets the pages at `base` be swapped again (`munlock`).
    public static func unlock(_ base: UnsafeMutableRawPointer, size: Int) { _ = munlock(base, size) }

    /// Unmaps the pages at `base` (`munmap`).
    public static func unmap(_ base: UnsafeMutableRawPointer, size: Int) { _ = munmap(base, size) }

    /// Zeroes `count` bytes at `base` (`explicit_bzero`: not a dead store the compiler may drop).
    public static func wipe(_ base: UnsafeMutableRawPointer, count: Int) { explicit_bzero(base, count) }
}
