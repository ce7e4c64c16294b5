/// Why bytes were refused as CBOR: the offset of the offending item and what was wrong with it.
///
/// Messages never quote the bytes themselves (they may come from a provider and hold anything).
public struct CBORError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong.
    public enum Problem: Hashable, Sendable {
        /// The input ended inside an item (`needed` more bytes were expected).
        case truncated(needed: Int)
        /// A complete item was read but `count` bytes follow it.
        case trailingBytes(count: Int)
        /// An indefinite-length string, array or map (CTAP2 allows definite lengths only).
        case indefiniteLength
        /// A `break` byte (0xFF) outside an indefinite-length item.
        case unexpectedBreak
        /// Arrays and maps nested deeper than ``CBOR/maximumDepth``.
        case tooDeep(limit: Int)
        /// A string, array or map claims `length` items or bytes, more than the `remaining` input holds.
        case lengthBeyondInput(length: UInt64, remaining: Int)
        /// Additional information 28–30 in an initial byte: reserved, never valid.
        case reservedAdditionalInformation(UInt8)
        /// A tag, a floating-point number, `undefined` or another simple value: not used by WebAuthn.
        case unsupported(String)
        /// A text string that is not valid UTF-8.
        case invalidUTF8
        /// A map key given twice.
        case duplicateMapKey
        /// Canonical form was required and this item is not in it (what is wrong is named).
        case notCanonical(String)
    }

    /// The byte offset of the item (or byte) that was refused.
    public var offset: Int
    /// What was wrong there.
    public var problem: Problem

    /// Creates an error.
    public init(offset: Int, problem: Problem) {
        self.offset = offset
        self.problem = problem
    }

    public var description: String {
        let what: String = switch problem {
        case .truncated(let needed): "the input ends \(needed) \(needed == 1 ? "byte" : "bytes") too early"
        case .trailingBytes(let count): "\(count) \(count == 1 ? "byte follows" : "bytes follow") the complete item"
        case .indefiniteLength: "indefinite-length item; CTAP2 CBOR allows definite lengths only"
        case .unexpectedBreak: "break byte 0xff outside an indefinite-length item"
        case .tooDeep(let limit): "arrays and maps nested deeper than \(limit) levels"
        case .lengthBeyondInput(let length, let remaining): "length \(length) is more than the \(remaining) bytes left"
        case .reservedAdditionalInformation(let value): "reserved additional information \(value) in the initial byte"
        case .unsupported(let kind): "\(kind) is not supported (WebAuthn data uses none)"
        case .invalidUTF8: "text string is not valid UTF-8"
        case .duplicateMapKey: "a map key appears twice"
        case .notCanonical(let why): "not canonical CBOR: \(why)"
        }
        return "invalid CBOR at offset \(offset): \(what)"
    }
}
