internal import FoundationEssentials

/// A property-list value of any type, so a plist can be checked key by key and every
/// problem reported, instead of stopping at the first one as a `Codable` model would.
enum PlistValue: Decodable, Equatable {
    case bool(Bool)
    case integer(Int)
    case real(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case array([PlistValue])
    case dictionary([String: PlistValue])

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        // PlistGuard checked the nesting before decoding; this keeps the recursion bounded whatever the input.
        guard decoder.codingPath.count < PlistGuard.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "nested more than \(PlistGuard.maximumDepth) levels deep"))
        }
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            var dictionary: [String: PlistValue] = [:]
            for key in keyed.allKeys { dictionary[key.stringValue] = try keyed.decode(PlistValue.self, forKey: key) }
            self = .dictionary(dictionary)
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [PlistValue] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(PlistValue.self)) }
            self = .array(array)
        } else {
            let single = try decoder.singleValueContainer()
            if let value = try? single.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? single.decode(Int.self) {
                self = .integer(value)
            } else if let value = try? single.decode(Double.self) {
                self = .real(value)
            } else if let value = try? single.decode(String.self) {
                self = .string(value)
            } else if let value = try? single.decode(Data.self) {
                self = .data(value)
            } else {
                self = .date(try single.decode(Date.self))
            }
        }
    }

    /// Reads a plist (XML or binary) that ``PlistGuard`` checked first: at most 1 MiB, 64 levels deep,
    /// no reference cycles. Throws the guard's ``PlistGuard/Refusal`` or Foundation's decoding error.
    static func read(contentsOf data: Data) throws -> PlistValue {
        try PlistGuard.check(data)
        return try PropertyListDecoder().decode(PlistValue.self, from: data)
    }

    /// The type name with its article ("an Array", "a String").
    var typeNameWithArticle: String {
        let name = typeName
        return "AEIOU".contains(name.first!) ? "an \(name)" : "a \(name)"
    }

    /// The plist type name, as Apple's documentation spells it.
    var typeName: String {
        switch self {
        case .bool: "Boolean"
        case .integer: "Number (integer)"
        case .real: "Number (real)"
        case .string: "String"
        case .data: "Data"
        case .date: "Date"
        case .array: "Array"
        case .dictionary: "Dictionary"
        }
    }
}
