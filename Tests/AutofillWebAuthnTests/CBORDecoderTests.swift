import AutofillWebAuthn
import Testing

/// Every way the strict decoder refuses input, with the offset and problem it names.
struct CBORDecoderTests {
    struct Rejection: Sendable, CustomTestStringConvertible {
        let hex: String
        let offset: Int
        let problem: CBORError.Problem
        let why: String
        var testDescription: String { "\(why): \(hex)" }
    }

    static let rejections: [Rejection] = [
        Rejection(hex: "", offset: 0, problem: .truncated(needed: 1), why: "empty input"),
        Rejection(hex: "18", offset: 0, problem: .truncated(needed: 1), why: "a one-byte argument missing"),
        Rejection(hex: "1a0001", offset: 0, problem: .truncated(needed: 2), why: "a four-byte argument cut short"),
        Rejection(hex: "830102", offset: 0, problem: .lengthBeyondInput(length: 3, remaining: 2), why: "an array's last item missing"),
        Rejection(hex: "821a0001", offset: 1, problem: .truncated(needed: 2), why: "an array item's argument cut short"),
        Rejection(hex: "a16161", offset: 3, problem: .truncated(needed: 1), why: "a map value missing"),
        Rejection(hex: "0001", offset: 1, problem: .trailingBytes(count: 1), why: "a byte after the item"),
        Rejection(hex: "a0a0a0", offset: 1, problem: .trailingBytes(count: 2), why: "two items where one is expected"),
        Rejection(hex: "5f42010243030405ff", offset: 0, problem: .indefiniteLength, why: "indefinite byte string (RFC 8949 A)"),
        Rejection(hex: "7f657374726561646d696e67ff", offset: 0, problem: .indefiniteLength, why: "indefinite text string (RFC 8949 A)"),
        Rejection(hex: "9fff", offset: 0, problem: .indefiniteLength, why: "indefinite array (RFC 8949 A)"),
        Rejection(hex: "83019f0203ff", offset: 2, problem: .indefiniteLength, why: "indefinite array inside a definite one"),
        Rejection(hex: "bf61610161629f0203ffff", offset: 0, problem: .indefiniteLength, why: "indefinite map (RFC 8949 A)"),
        Rejection(hex: "ff", offset: 0, problem: .unexpectedBreak, why: "a stray break"),
        Rejection(hex: String(repeating: "81", count: 17) + "00", offset: 16, problem: .tooDeep(limit: 16), why: "17 nested arrays"),
        Rejection(hex: String(repeating: "a101", count: 17) + "00", offset: 32, problem: .tooDeep(limit: 16), why: "17 nested maps"),
        Rejection(hex: "5b7fffffffffffffff00", offset: 0, problem: .lengthBeyondInput(length: 0x7fff_ffff_ffff_ffff, remaining: 1),
                  why: "a byte string longer than the input"),
        Rejection(hex: "6461", offset: 0, problem: .lengthBeyondInput(length: 4, remaining: 1), why: "a text string longer than the input"),
        Rejection(hex: "9bffffffffffffffff", offset: 0, problem: .lengthBeyondInput(length: .max, remaining: 0),
                  why: "an array of 2^64-1 items"),
        Rejection(hex: "bbffffffffffffffff", offset: 0, problem: .lengthBeyondInput(length: .max, remaining: 0),
                  why: "a map of 2^64-1 entries"),
        Rejection(hex: "a2010203", offset: 0, problem: .lengthBeyondInput(length: 2, remaining: 3), why: "a map with too few bytes for its entries"),
        Rejection(hex: "1c", offset: 0, problem: .reservedAdditionalInformation(28), why: "reserved additional information 28"),
        Rejection(hex: "5e", offset: 0, problem: .reservedAdditionalInformation(30), why: "reserved additional information 30"),
        Rejection(hex: "1f", offset: 0, problem: .reservedAdditionalInformation(31), why: "additional information 31 on an integer"),
        Rejection(hex: "fc", offset: 0, problem: .reservedAdditionalInformation(28), why: "reserved simple-value encoding"),
        Rejection(hex: "c074323031332d30332d32315432303a30343a30305a", offset: 0, problem: .unsupported("a tag (major type 6)"),
                  why: "a date tag (RFC 8949 A)"),
        Rejection(hex: "f90000", offset: 0, problem: .unsupported("a floating-point number"), why: "half-precision 0.0"),
        Rejection(hex: "fb3ff199999999999a", offset: 0, problem: .unsupported("a floating-point number"), why: "double 1.1"),
        Rejection(hex: "f7", offset: 0, problem: .unsupported("undefined"), why: "undefined"),
        Rejection(hex: "f0", offset: 0, problem: .unsupported("simple value 16"), why: "simple(16)"),
        Rejection(hex: "f8ff", offset: 0, problem: .unsupported("a one-byte simple value"), why: "simple(255)"),
        Rejection(hex: "62c328", offset: 0, problem: .invalidUTF8, why: "text that is not UTF-8"),
        Rejection(hex: "63eda080", offset: 0, problem: .invalidUTF8, why: "an encoded UTF-16 surrogate"),
        Rejection(hex: "a201020103", offset: 3, problem: .duplicateMapKey, why: "a duplicate integer key"),
        Rejection(hex: "a2616101616102", offset: 4, problem: .duplicateMapKey, why: "a duplicate text key"),
    ]

    @Test(arguments: rejections)
    func refusesWithOffsetAndProblem(_ rejection: Rejection) {
        #expect(throws: CBORError(offset: rejection.offset, problem: rejection.problem)) {
            try CBOR.decode(Hex.bytes(rejection.hex))
        }
    }

    static let nonCanonical: [Rejection] = [
        Rejection(hex: "1817", offset: 0, problem: .notCanonical("argument 23 takes 2 bytes, its shortest form 1"), why: "23 in two bytes"),
        Rejection(hex: "190017", offset: 0, problem: .notCanonical("argument 23 takes 3 bytes, its shortest form 1"), why: "23 in three bytes"),
        Rejection(hex: "3a000000ff", offset: 0, problem: .notCanonical("argument 255 takes 5 bytes, its shortest form 2"), why: "-256 in five bytes"),
        Rejection(hex: "5801ff", offset: 0, problem: .notCanonical("argument 1 takes 2 bytes, its shortest form 1"), why: "a long byte-string length"),
        Rejection(hex: "a203040102", offset: 3, problem: .notCanonical("map keys out of canonical order"), why: "keys 3 then 1"),
        Rejection(hex: "a220011864", offset: 3, problem: .notCanonical("map keys out of canonical order"), why: "key -1 before 100"),
        Rejection(hex: "a2626161016162" + "02", offset: 5, problem: .notCanonical("map keys out of canonical order"), why: "\"aa\" before \"b\""),
        Rejection(hex: "a201020103", offset: 3, problem: .duplicateMapKey, why: "a duplicate key is a duplicate, not an order problem"),
    ]

    @Test(arguments: nonCanonical)
    func refusesNonCanonicalFormWhenAskedTo(_ rejection: Rejection) {
        #expect(throws: CBORError(offset: rejection.offset, problem: rejection.problem)) {
            try CBOR.decode(Hex.bytes(rejection.hex), requireCanonical: true)
        }
    }

    @Test func readsNonCanonicalFormByDefaultAndReencodesItCanonically() throws {
        let value = try CBOR.decode(Hex.bytes("a203180401" + "02"))
        #expect(value == [1: 2, 3: 4])
        #expect(Hex.string(value.encoded()) == "a201020304")
        #expect(try CBOR.decode(Hex.bytes("1817")) == 23)
    }

    @Test func sixteenLevelsOfNestingAreAllowed() throws {
        let bytes = Hex.bytes(String(repeating: "81", count: 16) + "00")
        var value = try CBOR.decode(bytes)
        for _ in 0..<16 { value = try #require(value.arrayValue?.first) }
        #expect(value == 0)
    }

    @Test func decodingFromAnOffsetReportsWhereTheItemEnds() throws {
        let bytes = Hex.bytes("ff" + "a10102" + "a0")
        let (item, end) = try CBOR.decode(bytes, from: 1)
        #expect(item == [1: 2])
        #expect(end == 4)
    }

    @Test func errorsNameTheOffsetAndProblemButNotTheBytes() {
        let error = CBORError(offset: 7, problem: .lengthBeyondInput(length: 40, remaining: 3))
        #expect(error.description == "invalid CBOR at offset 7: length 40 is more than the 3 bytes left")
        #expect(CBORError(offset: 0, problem: .indefiniteLength).description
            == "invalid CBOR at offset 0: indefinite-length item; CTAP2 CBOR allows definite lengths only")
        #expect(CBORError(offset: 2, problem: .truncated(needed: 1)).description == "invalid CBOR at offset 2: the input ends 1 byte too early")
    }
}
