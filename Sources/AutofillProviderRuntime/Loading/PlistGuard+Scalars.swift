/// The text of XML elements Foundation converts (numbers and dates), checked before Foundation sees
/// it: its XML decoder trapped on an `<integer>` holding seven 0xFF bytes (found by fuzzing), which
/// ended `autofill providers list` for a bundle merely lying in a plugin folder. Only the plain forms
/// an Info.plist needs pass: a decimal 64-bit integer, a decimal or exponent real (or nan/inf), and
/// the plist date `YYYY-MM-DDTHH:MM:SSZ`. Tests/AutofillHostTests/PlistFuzzTests.swift fuzzes it.
extension PlistGuard {
    enum ScalarTag: String {
        case integer, real, date

        /// The scalar element whose start tag's name begins at `start`, if it is one.
        init?(_ bytes: [UInt8], nameAt start: Int) {
            var end = start
            while end < bytes.count, bytes[end] >= UInt8(ascii: "a"), bytes[end] <= UInt8(ascii: "z") { end += 1 }
            guard let tag = ScalarTag(rawValue: String(decoding: bytes[start..<end], as: UTF8.self)),
                end < bytes.count, !Self.isNameByte(bytes[end])
            else { return nil }
            self = tag
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            byte >= 0x80 || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
        }

        /// Checks the element's text, which starts at `start`, and returns the index of its end tag.
        package func check(_ bytes: [UInt8], contentAt start: Int) throws(Refusal) -> Int {
            // The start tag must be plain `<integer>`: no attributes, nothing Foundation might read otherwise.
            guard start >= 1, bytes[start - 1] == UInt8(ascii: ">"),
                start >= rawValue.utf8.count + 2, bytes[start - rawValue.utf8.count - 2] == UInt8(ascii: "<")
            else { throw refusal("has attributes") }
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "<") { end += 1 }
            let close = Array("</\(rawValue)>".utf8)
            guard end + close.count <= bytes.count, bytes[end..<end + close.count].elementsEqual(close) else {
                throw refusal("holds markup or is not closed")
            }
            var text = bytes[start..<end]
            while let first = text.first, Self.isSpace(first) { text = text.dropFirst() }
            while let last = text.last, Self.isSpace(last) { text = text.dropLast() }
            let valid: Bool =
                switch self {
                case .integer: Self.isInteger(Array(text))
                case .real: Self.isReal(Array(text))
                case .date: Self.isDate(Array(text))
                }
            guard valid else {
                throw refusal(self == .integer ? "is not a decimal integer from -2^63 to 2^63-1"
                              : self == .real ? "is not a decimal number" : "is not a date written YYYY-MM-DDTHH:MM:SSZ")
            }
            return end
        }

        private func refusal(_ why: String) -> Refusal {
            Refusal("has an <\(rawValue)> that \(why), so it is not read")
        }

        static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        static func isInteger(_ text: [UInt8]) -> Bool {
            var digits = text[...]
            let negative = digits.first == UInt8(ascii: "-")
            if negative || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.count <= 19, digits.allSatisfy(isDigit) else { return false }
            var value: UInt64 = 0
            for digit in digits { value = value * 10 + UInt64(digit - UInt8(ascii: "0")) }
            return value <= (negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max))
        }

        static func isReal(_ text: [UInt8]) -> Bool {
            guard !text.isEmpty, text.count <= 64 else { return false }
            var rest = text[...]
            if rest.first == UInt8(ascii: "-") || rest.first == UInt8(ascii: "+") { rest = rest.dropFirst() }
            let word = String(decoding: rest, as: UTF8.self).lowercased()
            if ["nan", "inf", "infinity"].contains(word) { return true }
            let mantissa = rest.prefix { isDigit($0) || $0 == UInt8(ascii: ".") }
            guard mantissa.filter({ $0 == UInt8(ascii: ".") }).count <= 1, mantissa.contains(where: isDigit) else { return false }
            rest = rest.dropFirst(mantissa.count)
            if rest.isEmpty { return true }
            guard rest.first == UInt8(ascii: "e") || rest.first == UInt8(ascii: "E") else { return false }
            rest = rest.dropFirst()
            if rest.first == UInt8(ascii: "-") || rest.first == UInt8(ascii: "+") { rest = rest.dropFirst() }
            return !rest.isEmpty && rest.count <= 4 && rest.allSatisfy(isDigit)
        }

        static func isDate(_ text: [UInt8]) -> Bool {
            let shape = Array("dddd-dd-ddTdd:dd:ddZ".utf8)
            guard text.count == shape.count else { return false }
            for (byte, expected) in zip(text, shape) {
                if expected == UInt8(ascii: "d") ? !isDigit(byte) : byte != expected { return false }
            }
            func number(_ range: Range<Int>) -> Int { text[range].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } }
            return (1...12).contains(number(5..<7)) && (1...31).contains(number(8..<10)) && number(11..<13) <= 23
                && number(14..<16) <= 59 && number(17..<19) <= 59
        }
    }
}
