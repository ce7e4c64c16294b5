import AutofillTestSupport

/// Deterministic mutations of an input (SplitMix64 from a seed): bit flips, interesting bytes,
/// deletions, insertions, duplications, XML tokens that upset parsers, splices with other inputs.
struct Mutator {
    private var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// Tokens the reader has tripped on, or might: structure out of place, processing instructions
    /// without data, names that are not UTF-8, entities, CDATA, protected values.
    static let tokens: [[UInt8]] = [
        "<Group>", "</Group>", "<Entry>", "</Entry>", "<UUID>", "</UUID>", "<Name>", "</Name>", "<History>", "</History>",
        "<String><Key>Password</Key><Value Protected=\"True\">QUJD</Value></String>", "<Value Protected=\"True\">", "</Value>",
        "<Times><Expires>True</Expires><ExpiryTime>AAAAAAAAAAA=</ExpiryTime></Times>", "<?x?>", "<?xml?>", "<?xml version=\"1.0\"?>",
        "<!DOCTYPE a [<!ENTITY e \"&e;&e;\">]>", "&e;", "&#0;", "&#x110000;", "&lt;", "<![CDATA[", "]]>", "<!--", "-->", "Protected=\"True\"",
        "<Binary ID=\"0\" Protected=\"True\">", "</Binary>", "<Meta>", "</Meta>", "<Root>", "</Root>", "{REF:P@I:", "{PASSWORD}", "{S:",
    ].map { Array($0.utf8) } + [[0xFF, 0xFE], [0xC0, 0x80], [0x3C, 0xFF, 0x61, 0x3E], [0x3C, 0xE0, 0x80, 0x3E], [0xED, 0xA0, 0x80], [0x00]]

    mutating func number(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(random.next() % UInt64(bound)) }

    /// `input` changed one to six times; `other` is spliced in sometimes.
    mutating func mutate(_ input: [UInt8], other: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0...number(6) {
            let at = number(bytes.count + 1)
            switch number(8) {
            case 0 where !bytes.isEmpty: bytes[min(at, bytes.count - 1)] ^= UInt8(1 << number(8))
            case 1 where !bytes.isEmpty: bytes[min(at, bytes.count - 1)] = [0, 0xFF, 0x7F, 0x80, 0x3C, 0x3E, 0x2F, 0x3F, 0x26][number(9)]
            case 2: bytes.removeSubrange(at..<min(bytes.count, at + 1 + number(64)))
            case 3: bytes.insert(contentsOf: (0...number(16)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
            case 4:
                let start = number(bytes.count)
                bytes.insert(contentsOf: bytes[start..<min(bytes.count, start + 1 + number(256))], at: at)
            case 5, 6: bytes.insert(contentsOf: Self.tokens[number(Self.tokens.count)], at: at)
            case 7 where !other.isEmpty:
                let start = number(other.count)
                bytes = Array(bytes.prefix(at)) + other[start..<min(other.count, start + number(512))]
            default: break
            }
        }
        return bytes
    }
}
