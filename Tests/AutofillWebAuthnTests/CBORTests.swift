import AutofillWebAuthn
import Testing

/// Encoding and decoding against RFC 8949 Appendix A, and CTAP2's canonical map order.
struct CBORTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let value: CBOR
        let hex: String
        var testDescription: String { "\(value) = \(hex)" }
    }

    /// Every Appendix A example that WebAuthn's subset represents (floats, tags, undefined and
    /// indefinite lengths are refused by design; see CBORDecoderTests).
    static let appendixA: [Vector] = [
        Vector(value: 0, hex: "00"), Vector(value: 1, hex: "01"), Vector(value: 10, hex: "0a"),
        Vector(value: 23, hex: "17"), Vector(value: 24, hex: "1818"), Vector(value: 25, hex: "1819"),
        Vector(value: 100, hex: "1864"), Vector(value: 1000, hex: "1903e8"), Vector(value: 1_000_000, hex: "1a000f4240"),
        Vector(value: 1_000_000_000_000, hex: "1b000000e8d4a51000"),
        Vector(value: .unsigned(18_446_744_073_709_551_615), hex: "1bffffffffffffffff"),
        Vector(value: .negative(18_446_744_073_709_551_615), hex: "3bffffffffffffffff"),  // -18446744073709551616
        Vector(value: -1, hex: "20"), Vector(value: -10, hex: "29"), Vector(value: -100, hex: "3863"),
        Vector(value: -1000, hex: "3903e7"),
        Vector(value: false, hex: "f4"), Vector(value: true, hex: "f5"), Vector(value: nil, hex: "f6"),
        Vector(value: .bytes([]), hex: "40"), Vector(value: .bytes([1, 2, 3, 4]), hex: "4401020304"),
        Vector(value: "", hex: "60"), Vector(value: "a", hex: "6161"), Vector(value: "IETF", hex: "6449455446"),
        Vector(value: "\"\\", hex: "62225c"), Vector(value: "\u{00fc}", hex: "62c3bc"), Vector(value: "\u{6c34}", hex: "63e6b0b4"),
        Vector(value: "\u{10151}", hex: "64f0908591"),
        Vector(value: [], hex: "80"), Vector(value: [1, 2, 3], hex: "83010203"),
        Vector(value: [1, [2, 3], [4, 5]], hex: "8301820203820405"),
        Vector(value: .array((1...25).map { CBOR($0) }), hex: "98190102030405060708090a0b0c0d0e0f101112131415161718181819"),
        Vector(value: [:], hex: "a0"), Vector(value: [1: 2, 3: 4], hex: "a201020304"),
        Vector(value: ["a": 1, "b": [2, 3]], hex: "a26161016162820203"),
        Vector(value: ["a", ["b": "c"]], hex: "826161a161626163"),
        Vector(value: ["a": "A", "b": "B", "c": "C", "d": "D", "e": "E"], hex: "a56161614161626142616361436164614461656145"),
    ]

    @Test(arguments: appendixA)
    func encodesAppendixAExample(_ vector: Vector) {
        #expect(Hex.string(vector.value.encoded()) == vector.hex)
    }

    @Test(arguments: appendixA)
    func decodesAppendixAExampleStrictlyAndCanonically(_ vector: Vector) throws {
        #expect(try CBOR.decode(Hex.bytes(vector.hex)) == vector.value)
        #expect(try CBOR.decode(Hex.bytes(vector.hex), requireCanonical: true) == vector.value)
    }

    @Test func headsAreTheShortestAtEveryBoundary() {
        let cases: [(UInt64, String)] = [
            (23, "17"), (24, "1818"), (255, "18ff"), (256, "190100"), (65535, "19ffff"), (65536, "1a00010000"),
            (4_294_967_295, "1affffffff"), (4_294_967_296, "1b0000000100000000"),
        ]
        for (value, hex) in cases {
            #expect(Hex.string(CBOR.unsigned(value).encoded()) == hex)
            #expect(Hex.string(CBOR.negative(value).encoded()) == String(Character(hex.first == "1" ? "3" : "2")) + hex.dropFirst())
        }
        #expect(Hex.string(Array(CBOR.bytes([UInt8](repeating: 7, count: 24)).encoded().prefix(2))) == "5818")
        #expect(Hex.string(Array(CBOR.text(String(repeating: "x", count: 256)).encoded().prefix(3))) == "790100")
    }

    @Test func mapKeysFollowCTAP2CanonicalOrder() {
        // CTAP2: lower major type first, then shorter encoding, then bytewise.
        let map: CBOR = [false: 9, "aa": 8, "z": 7, .bytes([0]): 6, -1000: 5, -1: 4, 1000: 3, 100: 2, 10: 1]
        #expect(Hex.string(map.encoded()) == "a9" + "0a01" + "186402" + "1903e803" + "2004" + "3903e705" + "410006" + "617a07" + "62616108" + "f409")
        // The COSE key order WebAuthn relying parties see.
        let key: CBOR = [-3: .bytes([3]), -2: .bytes([2]), -1: 1, 3: -7, 1: 2]
        #expect(Hex.string(key.encoded()) == "a5" + "0102" + "0326" + "2001" + "214102" + "224103")
        // Text keys: shorter first, so "fmt" < "attStmt" < "authData".
        let object: CBOR = ["authData": .bytes([]), "attStmt": [:], "fmt": "none"]
        #expect(Hex.string(object.encoded()) == "a3" + "63666d74646e6f6e65" + "6761747453746d74a0" + "686175746844617461" + "40")
    }

    @Test func nestedMapsAreCanonicalToo() throws {
        let value: CBOR = ["outer": [2: "b", 1: "a"], "list": [[3: 0, -1: 0]]]
        let bytes = value.encoded()
        #expect(try CBOR.decode(bytes, requireCanonical: true) == value)
    }

    @Test func readsMapsByTextAndIntegerKeys() throws {
        let value = try CBOR.decode(Hex.bytes("a3" + "63666d74646e6f6e65" + "03" + "26" + "20" + "4101"))
        #expect(value["fmt"] == "none")
        #expect(value["fmt"]?.textValue == "none")
        #expect(value[3]?.intValue == -7)
        #expect(value[-1]?.bytesValue == [1])
        #expect(value["missing"] == nil)
        #expect(value[4] == nil)
        #expect(CBOR.array([1])[0] == nil)  // integer subscripts read maps, not arrays
        #expect(CBOR.array([1]).arrayValue == [1])
    }

    @Test func accessorsAnswerOnlyForTheirKind() {
        #expect(CBOR.unsigned(.max).intValue == nil)
        #expect(CBOR.negative(.max).intValue == nil)
        #expect(CBOR(Int.min).intValue == Int.min)
        #expect(CBOR(Int.max).intValue == Int.max)
        #expect(CBOR.text("x").bytesValue == nil)
        #expect(CBOR.boolean(true).boolValue == true)
        #expect(CBOR.null.mapValue == nil)
        #expect(CBOR.unsigned(5).unsignedValue == 5)
        #expect(CBOR.negative(4).unsignedValue == nil)
    }

    @Test func diagnosticNotationUsesCanonicalOrder() {
        let value: CBOR = [-2: .bytes([0xAB]), 1: [true, nil], "k": "v\"", -1: .negative(.max)]
        #expect(value.description == "{1: [true, null], -1: -18446744073709551616, -2: h'ab', \"k\": \"v\\\"\"}")
    }
}
