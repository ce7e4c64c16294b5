import AutofillCore
import Foundation
import VaultCore

/// An entry's names as autofill-vault prints them: every text an entry holds came from whoever
/// wrote it (an imported CSV, a site's passkey user name), so each is escaped for the terminal
/// (``DisplayText``: escape sequences, control and bidi characters show as `\u{1b}`).
enum EntryDisplay {
    /// One line of `text` that cannot control the terminal.
    static func safe(_ text: String) -> String {
        DisplayText.escaped(text, keepingNewlines: false)
    }

    /// The kind as `list` shows it.
    static func kind(_ entry: VaultEntry) -> String {
        switch entry {
        case .password: "password"
        case .oneTimeCode: "otp"
        case .text: "text"
        case .passkey: "passkey"
        case .unknown(let other): safe(other.kind)
        }
    }

    /// Rows of KIND, SITE / TITLE, USER, ID for `entries`, aligned: a search's result, the candidates of an ambiguous name.
    static func table(_ entries: [VaultEntry]) -> [String] {
        let rows = [["KIND", "SITE / TITLE", "USER / LABEL", "ID"]] + entries.map { entry in
            [kind(entry), safe(EntryQuery.site(of: entry) ?? ""), safe(EntryQuery.user(of: entry) ?? ""), safe(entry.id)]
        }
        return tableLines(rows)
    }

    /// The non-secret fields of `entry`, as `name: value` pairs.
    static func fields(_ entry: VaultEntry) -> [(String, String)] {
        var fields = [("id", safe(entry.id)), ("kind", kind(entry))]
        switch entry {
        case .password(let login):
            fields += [("site", safe(login.service.identifier)), ("user", safe(login.user)), ("rank", String(login.rank))]
        case .oneTimeCode(let code):
            fields += [("site", safe(code.service.identifier)), ("label", safe(code.label)), ("rank", String(code.rank))]
        case .text(let text):
            fields += [("title", safe(text.title))]
        case .passkey(let passkey):
            fields += [("relying party", safe(passkey.relyingParty)), ("user", safe(passkey.userName)), ("rank", String(passkey.rank)),
                       ("created", ListCommand.utc(passkey.created)), ("signature count", String(passkey.signCount))]
        case .unknown:
            fields += [("note", "written by a newer autofill; shown as it is, never changed")]
        }
        return fields
    }
}

/// `rows` as left-aligned columns separated by two spaces (cells already escaped).
func tableLines(_ rows: [[String]]) -> [String] {
    let count = rows.map(\.count).max() ?? 0
    let widths = (0..<count).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
    return rows.map { row in
        row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }
}
