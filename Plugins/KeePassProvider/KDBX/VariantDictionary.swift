/// KDBX 4's typed key-value map (the KDF parameters, public custom data).
struct VariantDictionary: Sendable {
    /// One value; the types KDBX 4 defines.
    enum Value: Sendable, Equatable {
        case uint32(UInt32), uint64(UInt64), bool(Bool), int32(Int32), int64(Int64), string(String), bytes([UInt8])
    }

    private(set) var values: [String: Value] = [:]

    /// Parses a serialized dictionary: version 1.x, then items (type, key, value) up to type 0.
    init(parsing bytes: [UInt8]) throws(KDBXError) {
        var reader = ByteReader(bytes, what: "key derivation parameters")
        let version = try reader.uint16()
        guard version >> 8 == 1 else {
            throw KDBXError(.unsupported, "the key derivation parameters have format version \(version >> 8); this reader knows version 1")
        }
        while true {
            let type = try reader.uint8()
            if type == 0 { break }
            let keyLength = Int(try reader.uint32())
            let key = String(decoding: try reader.read(keyLength), as: UTF8.self)
            let data = try reader.read(Int(try reader.uint32()))
            values[key] = try Self.value(type: type, data)
        }
    }

    private static func value(type: UInt8, _ data: [UInt8]) throws(KDBXError) -> Value {
        func sized(_ size: Int) throws(KDBXError) -> UInt64 {
            guard data.count == size else { throw KDBXError(.corrupt, "a key derivation parameter has the wrong size: the file is damaged") }
            return data.littleEndianInteger
        }
        switch type {
        case 0x04: return .uint32(UInt32(try sized(4)))
        case 0x05: return .uint64(try sized(8))
        case 0x08: return .bool(try sized(1) != 0)
        case 0x0C: return .int32(Int32(bitPattern: UInt32(try sized(4))))
        case 0x0D: return .int64(Int64(bitPattern: try sized(8)))
        case 0x18: return .string(String(decoding: data, as: UTF8.self))
        case 0x42: return .bytes(data)
        default: throw KDBXError(.corrupt, "a key derivation parameter has an unknown type (\(type)): the file is damaged")
        }
    }

    func bytes(_ key: String) -> [UInt8]? {
        if case .bytes(let value) = values[key] { return value }
        return nil
    }

    /// An unsigned number, whichever width was stored.
    func number(_ key: String) -> UInt64? {
        switch values[key] {
        case .uint32(let value): UInt64(value)
        case .uint64(let value): value
        default: nil
        }
    }
}

extension VariantDictionary {
    /// The serialized dictionary `bytes` with the value of `key` (a byte array) replaced by `value`
    /// of the same length, every other byte kept: a key derivation's new salt.
    static func replacing(_ key: String, with value: [UInt8], in bytes: [UInt8]) throws(KDBXError) -> [UInt8] {
        var reader = ByteReader(bytes, what: "key derivation parameters")
        _ = try reader.uint16()
        while true {
            let type = try reader.uint8()
            if type == 0 { break }
            let name = String(decoding: try reader.read(Int(try reader.uint32())), as: UTF8.self)
            let size = Int(try reader.uint32())
            let start = reader.offset
            _ = try reader.read(size)
            if name == key {
                guard type == 0x42, size == value.count else { throw KDBXError(.corrupt, "the key derivation parameter \(key) is malformed: the file is damaged") }
                var changed = bytes
                changed.replaceSubrange(start..<start + size, with: value)
                return changed
            }
        }
        throw KDBXError(.corrupt, "the key derivation parameters have no \(key): the file is damaged")
    }
}
