import Foundation

/// The provider C ABI header, read from the source tree so the core models can be
/// checked against the names and numbers the C side actually declares.
enum ProviderHeader {
    /// `Sources/CAutofillProvider/include/autofill_provider.h`, found from this file's path.
    static var path: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // AutofillCoreTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .appendingPathComponent("Sources/CAutofillProvider/include/autofill_provider.h")
            .path
    }

    /// The header's text.
    static func text() throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    /// The text of `typedef struct name { ... } name;`.
    static func structBody(_ name: String) throws -> Substring {
        let text = try text()
        guard let start = text.range(of: "typedef struct \(name) {"),
              let end = text.range(of: "} \(name);", range: start.upperBound..<text.endIndex)
        else { throw HeaderError("no struct \(name) in \(path)") }
        return text[start.upperBound..<end.lowerBound]
    }

    /// The function-pointer fields of `af_provider`, in declaration order.
    static func providerEntryPointFields() throws -> [String] {
        try structBody("af_provider").matches(of: /\(\*([a-z_]+)\)\(/).map { String($0.output.1) }
    }

    /// `#define AF_ERROR_<NAME> <value>` lines, as `NAME: value`.
    static func errorCodes() throws -> [String: Int32] {
        var codes: [String: Int32] = [:]
        for match in try text().matches(of: /#define AF_ERROR_([A-Z_]+) (\d+)/) {
            codes[String(match.output.1)] = Int32(match.output.2)
        }
        return codes
    }

    /// The "capability (plist) / entry points it requires" table in the comment above
    /// `af_provider`, as plist key to C entry-point names.
    static func capabilityTable() throws -> [String: [String]] {
        let text = try text()
        guard let start = text.range(of: "capability (plist)"),
              let end = text.range(of: "*/", range: start.upperBound..<text.endIndex)
        else { throw HeaderError("no capability table in \(path)") }
        var table: [String: [String]] = [:]
        var current: String?
        // Skip the heading line itself.
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n").dropFirst() {
            var words = line.split(whereSeparator: { $0 == " " || $0 == "*" || $0 == "," }).map(String.init)
            guard let first = words.first else { continue }
            if first.first?.isUppercase == true {
                current = first
                words.removeFirst()
                table[first, default: []] += []
            }
            if let current { table[current, default: []] += words }
        }
        return table
    }

    struct HeaderError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
