#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The key of a one-time-code generator (the `secret` of an `otpauth://` URI, decoded).
///
/// It never prints: `description`, `debugDescription`, string interpolation, `dump` and
/// mirrors all show `<REDACTED>`. The bytes live in memory of their own, which is wiped
/// when the last copy of the secret is released. Comparing two secrets takes the same time
/// wherever they differ.
public struct OTPSecret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let storage: KeyStorage

    /// A secret holding a copy of `bytes`. Wipe your own copy when you are done with it.
    public init(bytes: some Collection<UInt8>) {
        storage = KeyStorage(count: bytes.count)
        for (index, byte) in bytes.enumerated() { storage.buffer[index] = byte }
    }

    /// The secret written in Base32 (RFC 4648): any case, padding optional, spaces and hyphens ignored.
    public init(base32 text: String) throws(OTPError) {
        let count: Int
        do {
            count = try Base32.measure(text)
        } catch {
            throw Base32.error(error)
        }
        self.init(base32: text, measuredCount: count)
    }

    /// The secret of Base32 `text` that ``Base32/measure(_:)`` found to hold `count` bytes.
    init(base32 text: String, measuredCount count: Int) {
        storage = KeyStorage(count: count)
        Base32.decode(text, into: storage.buffer)
    }

    /// The key length in bytes.
    public var count: Int { storage.buffer.count }

    /// Calls `body` with the key bytes. Don't copy them out of the closure.
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(storage.buffer))
    }

    /// The secret in Base32 without padding, as `otpauth://` URIs carry it. Reveals the secret:
    /// use it only to hand the secret to its owner (an export), never in a log or a message.
    public func revealedBase32() -> String {
        Base32.encode(UnsafeRawBufferPointer(storage.buffer))
    }

    public var description: String { "<REDACTED>" }
    public var debugDescription: String { "<REDACTED>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// Constant-time comparison (the lengths are not secret).
    public static func == (lhs: OTPSecret, rhs: OTPSecret) -> Bool {
        let a = lhs.storage.buffer
        let b = rhs.storage.buffer
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// Memory of its own for key bytes, wiped (in a way the optimizer keeps) before it is freed.
private final class KeyStorage: @unchecked Sendable {
    // @unchecked: the bytes are written only during the owning OTPSecret's init, before the
    // storage is shared, and only read afterwards.
    private let base: UnsafeMutableRawPointer
    private let count: Int

    init(count: Int) {
        self.count = count
        base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 1)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: max(count, 1))
    }

    var buffer: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: base, count: count) }

    deinit {
        wipe(UnsafeMutableRawBufferPointer(start: base, count: max(count, 1)))
        base.deallocate()
    }
}

/// Zeroes `buffer` with a call the compiler may not remove as a dead store.
func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    #if canImport(Darwin)
    _ = memset_s(base, buffer.count, 0, buffer.count)
    #else
    explicit_bzero(base, buffer.count)
    #endif
}
