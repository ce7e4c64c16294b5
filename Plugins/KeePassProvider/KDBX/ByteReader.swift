/// Reads little-endian numbers and byte runs from a buffer, throwing ``KDBXError/Code/corrupt`` at
/// the end instead of trapping: every length in a KeePass file is untrusted input.
struct ByteReader {
    let bytes: [UInt8]
    /// The next byte to read.
    private(set) var offset: Int
    /// What is being read, for the message when it ends early.
    let what: String

    init(_ bytes: [UInt8], offset: Int = 0, what: String) {
        self.bytes = bytes
        self.offset = offset
        self.what = what
    }

    var isAtEnd: Bool { offset >= bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func read(_ count: Int) throws(KDBXError) -> [UInt8] {
        Array(try slice(count))
    }

    /// The next `count` bytes, without copying them.
    mutating func slice(_ count: Int) throws(KDBXError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw KDBXError(.corrupt, "the \(what) ends early: the file is truncated or damaged (restore it from a backup)")
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func uint8() throws(KDBXError) -> UInt8 { try read(1)[0] }
    mutating func uint16() throws(KDBXError) -> UInt16 { UInt16(truncatingIfNeeded: try integer(2)) }
    mutating func uint32() throws(KDBXError) -> UInt32 { UInt32(truncatingIfNeeded: try integer(4)) }
    mutating func uint64() throws(KDBXError) -> UInt64 { try integer(8) }

    private mutating func integer(_ size: Int) throws(KDBXError) -> UInt64 {
        try read(size).littleEndianInteger
    }
}

extension Array where Element == UInt8 {
    /// These bytes as a little-endian unsigned integer (at most 8 of them).
    var littleEndianInteger: UInt64 {
        reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// `value` as `size` little-endian bytes.
    init(littleEndian value: UInt64, size: Int) {
        self = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
