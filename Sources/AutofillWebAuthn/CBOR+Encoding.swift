/// Writing CTAP2 canonical CBOR.
extension CBOR {
    /// The item as **CTAP2 canonical CBOR** (CTAP 2.1 §8 "Message Encoding"):
    ///
    /// * every head is as short as its value allows (0–23 in the initial byte, then 1, 2, 4 or 8 bytes);
    /// * every string, array and map has a definite length;
    /// * map keys are sorted by their encodings: the lower major type first, then the shorter
    ///   encoding, then bytewise (`10 < 100 < 1000 < -1 < -1000 < h'00' < "z" < "aa" < false`).
    ///   This is CTAP2's rule (what Chromium's and Yubico's `fido2` encoders do); it differs from
    ///   RFC 7049's length-first order only between keys of different major types (`1000` vs `-1`).
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    /// Appends the item's canonical encoding to `out`.
    public func encode(into out: inout [UInt8]) {
        switch self {
        case .unsigned(let n):
            Self.appendHead(major: 0, n, to: &out)
        case .negative(let n):
            Self.appendHead(major: 1, n, to: &out)
        case .bytes(let bytes):
            Self.appendHead(major: 2, UInt64(bytes.count), to: &out)
            out += bytes
        case .text(let text):
            let utf8 = Array(text.utf8)
            Self.appendHead(major: 3, UInt64(utf8.count), to: &out)
            out += utf8
        case .array(let items):
            Self.appendHead(major: 4, UInt64(items.count), to: &out)
            for item in items { item.encode(into: &out) }
        case .map(let entries):
            Self.appendHead(major: 5, UInt64(entries.count), to: &out)
            for entry in Self.canonicalOrder(entries) {
                out += entry.encodedKey
                entry.value.encode(into: &out)
            }
        case .boolean(let value):
            out.append(value ? 0xF5 : 0xF4)
        case .null:
            out.append(0xF6)
        }
    }

    /// The map's entries in canonical order, each with its key's encoding.
    static func canonicalOrder(_ entries: [CBOR: CBOR]) -> [(key: CBOR, value: CBOR, encodedKey: [UInt8])] {
        entries.map { (key: $0.key, value: $0.value, encodedKey: $0.key.encoded()) }
            .sorted { canonicallyPrecedes($0.encodedKey, $1.encodedKey) }
    }

    /// CTAP2's key order for two encoded keys: the lower major type first, then the shorter
    /// encoding, then bytewise.
    static func canonicallyPrecedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let (majorA, majorB) = (a.first.map { $0 >> 5 } ?? 0, b.first.map { $0 >> 5 } ?? 0)
        if majorA != majorB { return majorA < majorB }
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }

    /// Appends the shortest head for `major` type and argument `n`.
    static func appendHead(major: UInt8, _ n: UInt64, to out: inout [UInt8]) {
        let type = major << 5
        switch n {
        case 0..<24:
            out.append(type | UInt8(n))
        case 24...0xFF:
            out += [type | 24, UInt8(n)]
        case 0x100...0xFFFF:
            out += [type | 25, UInt8(n >> 8), UInt8(n & 0xFF)]
        case 0x1_0000...0xFFFF_FFFF:
            out.append(type | 26)
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(n >> UInt64(shift) & 0xFF)) }
        default:
            out.append(type | 27)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(n >> UInt64(shift) & 0xFF)) }
        }
    }
}
