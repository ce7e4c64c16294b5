/// The limits of both protocols framed here (the helper protocol and the agent's).
package enum Wire {
    /// The largest frame either side accepts (a `store_replace` of many identities is the big one).
    package static let maximumFrameBytes = 64 << 20
    /// The largest string or byte field (the C ABI's own limit for byte buffers, `AF_MAX_BYTES_LENGTH`).
    package static let maximumFieldBytes = 1 << 20
    /// The environment variable naming the provider helper executable (`HelperProtocol`).
    package static let helperExecutableKey = "AUTOFILL_PROVIDER_HELPER"
}

/// The primitives of the helper protocol's binary encoding: little-endian integers, length-prefixed
/// UTF-8 strings and byte arrays, counted arrays, and optionals as a presence byte.
///
/// A frame is `u32 length` (of what follows) + `u8 message tag` + the message's fields. Readers
/// never trust a length or a count: each is checked against the bytes left and a limit before
/// anything is allocated, and an error names the field, never its contents (frames carry secrets).
package struct FrameWriter {
    package private(set) var bytes: [UInt8]

    /// Starts a frame for message `tag`.
    package init(tag: UInt8) {
        bytes = [0, 0, 0, 0, tag]
        bytes.reserveCapacity(64)
    }

    /// The finished frame, its length filled in.
    package var frame: [UInt8] {
        var frame = bytes
        let length = UInt32(frame.count - 4)
        for index in 0..<4 { frame[index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(index))) }
        return frame
    }

    /// The frame's size so far, length prefix included.
    package var count: Int { bytes.count }

    package mutating func u8(_ value: UInt8) { bytes.append(value) }
    package mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }
    package mutating func u32(_ value: UInt32) { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) } }
    package mutating func u64(_ value: UInt64) { for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }
    package mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }
    package mutating func i64(_ value: Int64) { u64(UInt64(bitPattern: value)) }
    package mutating func int(_ value: Int) { i64(Int64(value)) }

    package mutating func bytes(_ value: [UInt8]) {
        u32(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    package mutating func string(_ value: Substring) {
        var value = value
        value.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    package mutating func optional<T>(_ value: T?, _ write: (inout FrameWriter, T) -> Void) {
        guard let value else { return u8(0) }
        u8(1)
        write(&self, value)
    }

    package mutating func array<T>(_ values: [T], _ write: (inout FrameWriter, T) -> Void) {
        u32(UInt32(values.count))
        for value in values { write(&self, value) }
    }
}

/// A field that does not decode: a protocol violation. The message names the field only.
package struct FrameError: Error, Sendable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// Reads one frame's fields in order; see ``FrameWriter``.
package struct FrameReader {
    private let bytes: [UInt8]
    private var offset: Int

    /// A reader over a frame's body (after the length prefix), starting at its tag.
    package init(body: [UInt8]) {
        bytes = body
        offset = 0
    }

    package var remaining: Int { bytes.count - offset }

    private mutating func take(_ count: Int, _ field: String) throws(FrameError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw FrameError("\(field): the frame ends early") }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    package mutating func u8(_ field: String) throws(FrameError) -> UInt8 { try take(1, field).first! }

    package mutating func bool(_ field: String) throws(FrameError) -> Bool {
        switch try u8(field) {
        case 0: return false
        case 1: return true
        default: throw FrameError("\(field): not a Boolean")
        }
    }

    package mutating func u32(_ field: String) throws(FrameError) -> UInt32 {
        try take(4, field).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    package mutating func u64(_ field: String) throws(FrameError) -> UInt64 {
        try take(8, field).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    package mutating func i32(_ field: String) throws(FrameError) -> Int32 { Int32(bitPattern: try u32(field)) }
    package mutating func i64(_ field: String) throws(FrameError) -> Int64 { Int64(bitPattern: try u64(field)) }
    package mutating func int(_ field: String) throws(FrameError) -> Int { Int(try i64(field)) }

    /// A byte array of at most `limit` bytes.
    package mutating func bytes(_ field: String, limit: Int = Wire.maximumFieldBytes) throws(FrameError) -> [UInt8] {
        let count = Int(try u32(field))
        guard count <= limit else { throw FrameError("\(field): \(count) bytes, over the limit of \(limit)") }
        return Array(try take(count, field))
    }

    /// A UTF-8 string of at most `limit` bytes; anything else is a protocol violation.
    package mutating func string(_ field: String, limit: Int = Wire.maximumFieldBytes) throws(FrameError) -> String {
        let count = Int(try u32(field))
        guard count <= limit else { throw FrameError("\(field): \(count) bytes, over the limit of \(limit)") }
        let slice = try take(count, field)
        guard let string = String(validating: slice, as: UTF8.self) else { throw FrameError("\(field): not valid UTF-8") }
        return string
    }

    package mutating func optional<T>(_ field: String, _ read: (inout FrameReader) throws(FrameError) -> T) throws(FrameError) -> T? {
        try bool(field) ? try read(&self) : nil
    }

    /// A counted array whose elements take at least `minimumElementSize` bytes each, so a forged
    /// count cannot make the reader allocate more than the frame holds.
    package mutating func array<T>(
        _ field: String, minimumElementSize: Int = 1, _ read: (inout FrameReader) throws(FrameError) -> T
    ) throws(FrameError) -> [T] {
        let count = Int(try u32(field))
        guard count * max(1, minimumElementSize) <= remaining else {
            throw FrameError("\(field): \(count) elements do not fit the frame")
        }
        var values: [T] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try read(&self)) }
        return values
    }

    /// Checks every byte was read (`message`, which names the frame, is made only for the error).
    package func finish(_ message: @autoclosure () -> String) throws(FrameError) {
        guard remaining == 0 else { throw FrameError("\(message()): \(remaining) bytes left over") }
    }
}
