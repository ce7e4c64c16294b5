internal import AutofillSystem
internal import Synchronization

/// A few secret bytes (the vault key) kept out of swap and core dumps, and zeroed when done.
///
/// The bytes live in pages of their own, obtained with `mmap` (never shared with the Swift heap):
///
/// * `mlock`ed, so the kernel never writes them to swap, where `RLIMIT_MEMLOCK` allows (64 KiB for
///   an ordinary user on most systems; one page is all this needs). When it does not, the bytes are
///   kept all the same and ``memoryLockError`` says why (the provider logs it once);
/// * `madvise(MADV_DONTDUMP)`, so a core dump of the process leaves them out;
/// * zeroed with `explicit_bzero` (a zeroing the compiler may not drop as a dead store) by
///   ``wipe()``, and again when the value is freed, before the pages are unlocked and unmapped.
///
/// After ``wipe()`` the bytes read as zeros. Access goes through a lock, so a wipe never races a
/// reader. What this cannot cover (copies the caller makes, swift-crypto's short-lived key object
/// during an encryption) is in docs/VAULT.md ("What is in memory").
public final class LockedBytes: Sendable {
    /// How many bytes it holds.
    public let count: Int
    /// The `errno` of the `mlock` that failed (ENOMEM or EPERM: `RLIMIT_MEMLOCK` is too small), or
    /// nil when the pages are locked in memory.
    public let memoryLockError: Int32?
    /// The mapping: page-aligned, `mappedSize` bytes long. Only touched under `wiped`'s lock.
    private let region: Region
    /// Whether the bytes were wiped; the lock every access takes.
    private let wiped = Mutex(false)

    /// The mapped pages (a raw pointer, guarded by ``LockedBytes/wiped``).
    private struct Region: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
        let size: Int
    }

    /// `count` zero bytes in pages of their own (mapped, locked where allowed, left out of core dumps).
    public init(count: Int) throws(VaultError) {
        precondition(count > 0, "LockedBytes holds at least one byte")
        let page = SecretMemory.pageSize
        let size = (count + page - 1) / page * page
        let address: UnsafeMutableRawPointer
        do {
            address = try SecretMemory.map(size)
        } catch {
            throw AtomicFile.ioError("cannot map \(size) bytes of memory for the vault key", error)
        }
        do {
            try SecretMemory.lock(address, size: size)
            memoryLockError = nil
        } catch {
            memoryLockError = error.code
        }
        self.count = count
        region = Region(base: address, size: size)
    }

    /// A copy of `bytes` in locked pages. The caller still owns `bytes` and should zero it.
    public convenience init(copying bytes: UnsafeRawBufferPointer) throws(VaultError) {
        try self.init(count: bytes.count)
        withUnsafeMutableBytes { target in target.copyMemory(from: bytes) }
    }

    deinit {
        wipe()
        if memoryLockError == nil { SecretMemory.unlock(region.base, size: region.size) }
        SecretMemory.unmap(region.base, size: region.size)
    }

    /// Whether ``wipe()`` ran.
    public var isWiped: Bool { wiped.withLock { $0 } }

    /// Zeroes the bytes (all the mapped pages) in a way the compiler cannot leave out. Idempotent.
    public func wipe() {
        wiped.withLock { wiped in
            SecretMemory.wipe(region.base, count: region.size)
            wiped = true
        }
    }

    /// Calls `body` with the bytes (zeros once wiped). Do not let the pointer escape.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try wiped.withLock { _ in try body(UnsafeRawBufferPointer(start: region.base, count: count)) }
    }

    /// Calls `body` with the bytes to change them. Do not let the pointer escape.
    func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try wiped.withLock { _ in try body(UnsafeMutableRawBufferPointer(start: region.base, count: count)) }
    }

    /// Whether the mapping starts on a page boundary and covers whole pages (for the tests).
    var isPageAligned: Bool {
        let page = SecretMemory.pageSize
        return Int(bitPattern: region.base) % page == 0 && region.size % page == 0 && region.size >= count
    }

    /// The mapping's start (for the tests: `/proc/self/smaps` names it).
    var address: UInt { UInt(bitPattern: region.base) }
}
