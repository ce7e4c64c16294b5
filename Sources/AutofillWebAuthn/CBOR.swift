/// A CBOR data item (RFC 8949), limited to what WebAuthn and CTAP2 use.
///
/// Integers, byte and text strings, arrays, maps, booleans and null. Tags, floating-point numbers,
/// `undefined` and other simple values are not represented: WebAuthn's attestation objects,
/// authenticator data and COSE keys never need them, and ``decode(_:)`` refuses them.
///
/// ``encoded()`` writes **CTAP2 canonical CBOR** (shortest heads, definite lengths, map keys sorted
/// by major type, then encoded length, then bytewise), so one value has exactly one encoding.
///
/// ```swift
/// let key: CBOR = [1: 2, 3: -7, -1: 1, -2: .bytes(x), -3: .bytes(y)]
/// let bytes = key.encoded()
/// let back = try CBOR.decode(bytes)
/// back[3]?.intValue   // -7
/// ```
public enum CBOR: Hashable, Sendable {
    /// An unsigned integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1) whose value is −1 − n.
    case negative(UInt64)
    /// A byte string (major type 2).
    case bytes([UInt8])
    /// A UTF-8 text string (major type 3).
    case text(String)
    /// An array (major type 4).
    case array([CBOR])
    /// A map (major type 5); keys are unique, their order is the canonical one when encoded.
    case map([CBOR: CBOR])
    /// `true` or `false`.
    case boolean(Bool)
    /// `null`.
    case null

    /// The integer `value` as CBOR: ``unsigned(_:)`` from 0 up, ``negative(_:)`` below.
    public init(_ value: Int) {
        self = value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    // MARK: Reading values

    /// The value of a map entry whose key is the text `key`; nil when this is not a map or has no such key.
    public subscript(key: String) -> CBOR? {
        mapValue?[.text(key)]
    }

    /// The value of a map entry whose key is the integer `key` (COSE labels such as `3` or `-2`);
    /// nil when this is not a map or has no such key. Arrays are read with ``arrayValue``.
    public subscript(key: Int) -> CBOR? {
        mapValue?[CBOR(key)]
    }

    /// The integer, if this is one that fits an `Int`.
    public var intValue: Int? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: nil
        }
    }

    /// The unsigned integer, if this is one.
    public var unsignedValue: UInt64? {
        if case .unsigned(let n) = self { n } else { nil }
    }

    /// The bytes, if this is a byte string.
    public var bytesValue: [UInt8]? {
        if case .bytes(let bytes) = self { bytes } else { nil }
    }

    /// The text, if this is a text string.
    public var textValue: String? {
        if case .text(let text) = self { text } else { nil }
    }

    /// The items, if this is an array.
    public var arrayValue: [CBOR]? {
        if case .array(let items) = self { items } else { nil }
    }

    /// The entries, if this is a map.
    public var mapValue: [CBOR: CBOR]? {
        if case .map(let entries) = self { entries } else { nil }
    }

    /// The Boolean, if this is `true` or `false`.
    public var boolValue: Bool? {
        if case .boolean(let value) = self { value } else { nil }
    }

    /// What kind of item this is, for messages ("a map", "a byte string").
    public var kindDescription: String {
        switch self {
        case .unsigned, .negative: "an integer"
        case .bytes: "a byte string"
        case .text: "a text string"
        case .array: "an array"
        case .map: "a map"
        case .boolean: "a Boolean"
        case .null: "null"
        }
    }
}

extension CBOR: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(integerLiteral value: Int) { self.init(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(arrayLiteral elements: CBOR...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }

    /// A map from the pairs; a key given twice keeps its last value.
    public init(dictionaryLiteral elements: (CBOR, CBOR)...) {
        self = .map(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension CBOR: CustomStringConvertible {
    /// CBOR diagnostic notation (RFC 8949 §8), maps in canonical order: `{1: 2, 3: -7, -1: h'01'}`.
    ///
    /// Byte strings print in full: do not print a CBOR value that holds a secret.
    public var description: String {
        switch self {
        case .unsigned(let n): String(n)
        case .negative(let n): n == .max ? "-18446744073709551616" : "-\(n + 1)"
        case .bytes(let bytes): "h'" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + "'"
        case .text(let text): "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
        case .array(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .map(let entries):
            "{" + Self.canonicalOrder(entries).map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .boolean(let value): value ? "true" : "false"
        case .null: "null"
        }
    }
}
