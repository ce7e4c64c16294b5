/// Reading CBOR strictly.
extension CBOR {
    /// The deepest nesting of arrays and maps ``decode(_:requireCanonical:)`` accepts (a top-level map is level 1).
    public static let maximumDepth = 16

    /// The one item that `bytes` hold, read strictly.
    ///
    /// Refused, with the offset and the problem (``CBORError``): truncated input, bytes after the
    /// item, indefinite lengths, a stray break, nesting deeper than ``maximumDepth``, lengths
    /// beyond the input, reserved initial bytes, tags, floats, `undefined` and other simple values,
    /// text that is not UTF-8 and duplicate map keys. With `requireCanonical`, also any head longer
    /// than needed and map keys out of CTAP2's canonical order (what an authenticator must refuse);
    /// without it such input is read, and ``encoded()`` gives the canonical form.
    public static func decode(_ bytes: [UInt8], requireCanonical: Bool = false) throws(CBORError) -> CBOR {
        let (item, end) = try decode(bytes, from: 0, requireCanonical: requireCanonical)
        guard end == bytes.count else { throw CBORError(offset: end, problem: .trailingBytes(count: bytes.count - end)) }
        return item
    }

    /// The item starting at `offset` in `bytes` and the offset just after it; bytes may follow it
    /// (authenticator data puts the extensions map right after the credential public key).
    public static func decode(
        _ bytes: [UInt8], from offset: Int, requireCanonical: Bool = false
    ) throws(CBORError) -> (item: CBOR, end: Int) {
        var reader = Reader(bytes: bytes, position: offset, requireCanonical: requireCanonical)
        let item = try reader.item(depth: 0)
        return (item, reader.position)
    }

    /// A cursor over the input.
    private struct Reader {
        let bytes: [UInt8]
        var position: Int
        let requireCanonical: Bool

        var remaining: Int { bytes.count - position }

        mutating func item(depth: Int) throws(CBORError) -> CBOR {
            let start = position
            guard remaining >= 1 else { throw CBORError(offset: start, problem: .truncated(needed: 1)) }
            let initial = bytes[position]
            position += 1
            let major = initial >> 5
            let info = initial & 0x1F

            if major == 7 { return try simple(info, at: start) }
            if info == 31 {
                if major == 2 || major == 3 || major == 4 || major == 5 {
                    throw CBORError(offset: start, problem: .indefiniteLength)
                }
                throw CBORError(offset: start, problem: .reservedAdditionalInformation(31))
            }
            let argument = try self.argument(info, at: start)
            switch major {
            case 0:
                return .unsigned(argument)
            case 1:
                return .negative(argument)
            case 2:
                return .bytes(try take(argument, at: start))
            case 3:
                let utf8 = try take(argument, at: start)
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw CBORError(offset: start, problem: .invalidUTF8)
                }
                return .text(text)
            case 4:
                try enter(depth, at: start)
                try checkCount(argument, itemsPer: 1, at: start)
                var items: [CBOR] = []
                items.reserveCapacity(Int(argument))
                for _ in 0..<argument { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                try enter(depth, at: start)
                try checkCount(argument, itemsPer: 2, at: start)
                var entries: [CBOR: CBOR] = [:]
                entries.reserveCapacity(Int(argument))
                var previousKey: [UInt8]?
                for _ in 0..<argument {
                    let keyStart = position
                    let key = try item(depth: depth + 1)
                    if requireCanonical {
                        let keyBytes = Array(bytes[keyStart..<position])
                        if let previousKey, !CBOR.canonicallyPrecedes(previousKey, keyBytes) {
                            throw CBORError(offset: keyStart, problem: previousKey == keyBytes
                                ? .duplicateMapKey : .notCanonical("map keys out of canonical order"))
                        }
                        previousKey = keyBytes
                    }
                    let value = try item(depth: depth + 1)
                    guard entries.updateValue(value, forKey: key) == nil else {
                        throw CBORError(offset: keyStart, problem: .duplicateMapKey)
                    }
                }
                return .map(entries)
            default:  // 6
                throw CBORError(offset: start, problem: .unsupported("a tag (major type 6)"))
            }
        }

        /// Major type 7: false, true, null; everything else is refused.
        mutating func simple(_ info: UInt8, at start: Int) throws(CBORError) -> CBOR {
            switch info {
            case 20: return .boolean(false)
            case 21: return .boolean(true)
            case 22: return .null
            case 23: throw CBORError(offset: start, problem: .unsupported("undefined"))
            case 24: throw CBORError(offset: start, problem: .unsupported("a one-byte simple value"))
            case 25, 26, 27: throw CBORError(offset: start, problem: .unsupported("a floating-point number"))
            case 28, 29, 30: throw CBORError(offset: start, problem: .reservedAdditionalInformation(info))
            case 31: throw CBORError(offset: start, problem: .unexpectedBreak)
            default: throw CBORError(offset: start, problem: .unsupported("simple value \(info)"))
            }
        }

        /// The head's argument: `info` itself, or the 1, 2, 4 or 8 bytes that follow.
        mutating func argument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64 {
            let size: Int
            switch info {
            case 0..<24: return UInt64(info)
            case 24: size = 1
            case 25: size = 2
            case 26: size = 4
            case 27: size = 8
            default: throw CBORError(offset: start, problem: .reservedAdditionalInformation(info))
            }
            guard remaining >= size else { throw CBORError(offset: start, problem: .truncated(needed: size - remaining)) }
            var value: UInt64 = 0
            for byte in bytes[position..<(position + size)] { value = value << 8 | UInt64(byte) }
            position += size
            if requireCanonical {
                let shortest: Int = switch value {
                case 0..<24: 0
                case 24...0xFF: 1
                case 0x100...0xFFFF: 2
                case 0x1_0000...0xFFFF_FFFF: 4
                default: 8
                }
                guard size == shortest else {
                    throw CBORError(offset: start, problem: .notCanonical("argument \(value) takes \(size + 1) bytes, its shortest form \(shortest + 1)"))
                }
            }
            return value
        }

        /// The next `length` bytes, refusing a length beyond the input before allocating anything.
        mutating func take(_ length: UInt64, at start: Int) throws(CBORError) -> [UInt8] {
            guard length <= UInt64(remaining) else {
                throw CBORError(offset: start, problem: .lengthBeyondInput(length: length, remaining: remaining))
            }
            let bytes = Array(self.bytes[position..<(position + Int(length))])
            position += Int(length)
            return bytes
        }

        /// Refuses a count of items that the remaining input cannot hold (each item takes a byte at least).
        func checkCount(_ count: UInt64, itemsPer entry: UInt64, at start: Int) throws(CBORError) {
            let (needed, overflow) = count.multipliedReportingOverflow(by: entry)
            guard !overflow, needed <= UInt64(remaining) else {
                throw CBORError(offset: start, problem: .lengthBeyondInput(length: count, remaining: remaining))
            }
        }

        /// Refuses one more level of nesting beyond the limit.
        func enter(_ depth: Int, at start: Int) throws(CBORError) {
            guard depth < CBOR.maximumDepth else { throw CBORError(offset: start, problem: .tooDeep(limit: CBOR.maximumDepth)) }
        }
    }
}
