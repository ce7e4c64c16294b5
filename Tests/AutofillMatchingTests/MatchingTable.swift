import AutofillCore
import Foundation
import Testing

/// The rows of the table in docs/MATCHING.md, read from the file so the doc and the tests agree.
struct MatchingTableRow: Sendable, CustomTestStringConvertible {
    let number: String
    let query: String
    let identity: CredentialIdentity
    let identityText: String
    let result: String
    let why: String

    var testDescription: String { "\(number): \(query) vs \(identityText) → \(result)" }
}

enum MatchingTable {
    static let path = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/MATCHING.md").path

    /// Every "| M… |" line of the doc, parsed; a malformed row is a test failure, not a skip.
    static let rows: [MatchingTableRow] = {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { $0.hasPrefix("| M") }
            .map { parse(String($0)) }
    }()

    /// The text between the first and last backtick of a cell, or "" for *(empty)*.
    static func code(_ cell: Substring) -> String {
        let cell = cell.trimmingCharacters(in: .whitespaces)
        if cell == "*(empty)*" { return "" }
        guard let first = cell.firstIndex(of: "`"), let last = cell.lastIndex(of: "`"), first < last else {
            return "<malformed cell: \(cell)>"
        }
        return String(cell[cell.index(after: first)..<last])
    }

    static func parse(_ line: String) -> MatchingTableRow {
        let cells = line.split(separator: "|", omittingEmptySubsequences: false)
        // "", number, query, identity, result, why, ""
        guard cells.count == 7 else {
            return MatchingTableRow(number: line, query: "", identity: placeholder, identityText: "", result: "<malformed row>", why: "")
        }
        let number = cells[1].trimmingCharacters(in: .whitespaces)
        let identityCell = cells[3]
        let service: String
        let head: Substring
        if let tick = identityCell.firstIndex(of: "`") {
            service = code(identityCell)
            head = identityCell[..<tick]
        } else if let star = identityCell.range(of: "*(empty)*") {
            service = ""
            head = identityCell[..<star.lowerBound]
        } else {
            service = "<malformed>"
            head = identityCell
        }
        let parts = head.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let kind = parts.first ?? "", type = parts.count > 1 ? parts[1] : ""
        let serviceIdentifier = ServiceIdentifier(identifier: service, type: type == "URL" ? .url : .domain)
        let identity: CredentialIdentity
        var result = cells[4].trimmingCharacters(in: .whitespaces)
        switch (kind, type) {
        case ("password", "domain"), ("password", "URL"):
            identity = .password(PasswordCredentialIdentity(serviceIdentifier: serviceIdentifier, user: "alice"))
        case ("oneTimeCode", "domain"), ("oneTimeCode", "URL"):
            identity = .oneTimeCode(OneTimeCodeCredentialIdentity(serviceIdentifier: serviceIdentifier, label: "alice"))
        case ("passkey", "rpId"):
            identity = .passkey(PasskeyCredentialIdentity(
                relyingPartyIdentifier: service, userName: "alice", credentialID: [1], userHandle: [2]))
        default:
            identity = placeholder
            result = "<malformed identity: \(identityCell)>"
        }
        return MatchingTableRow(
            number: number, query: code(cells[2]), identity: identity,
            identityText: "\(kind) \(type) \(service)", result: result,
            why: cells[5].trimmingCharacters(in: .whitespaces))
    }

    static let placeholder = CredentialIdentity.password(
        PasswordCredentialIdentity(serviceIdentifier: ServiceIdentifier(identifier: "", type: .domain), user: ""))
}
