import ArgumentParser
import Foundation
import AutofillCompanion
import VaultCore

/// `autofill-vault list`: the entries, without secrets unless asked.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the entries; secrets only with --reveal.", discussion: """
            Examples:
              autofill-vault list
              autofill-vault list --reveal
            """)

    @OptionGroup var options: VaultOptions

    @Flag(help: "Also show passwords, current one-time codes and texts.")
    var reveal = false

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            let vault = try access.open(at: access.path)
            let entries = vault.contents.entries
            print("\(vault.path): \(entries.count) \(entries.count == 1 ? "entry" : "entries")")
            guard !entries.isEmpty else { return }
            let now = Int64(Date().timeIntervalSince1970)
            let created = !vault.contents.passkeys.isEmpty  // a CREATED column only when there are passkeys
            var rows = [["KIND", "ID", "SERVICE", "USER / LABEL / TITLE", "RANK"] + (created ? ["CREATED"] : []) + (reveal ? ["SECRET"] : [])]
            for entry in entries {
                var row: [String]
                var secret = ""
                switch entry {
                case .password(let login):
                    row = ["password", login.id, login.service.identifier, login.user, String(login.rank)]
                    secret = login.password.revealed
                case .oneTimeCode(let code):
                    row = ["otp", code.id, code.service.identifier, code.label, String(code.rank)]
                    if reveal {
                        secret = (try? code.code(atUnixTime: now)).map { current in
                            "\(current.revealed) (\(code.secondsRemaining(atUnixTime: now).map { "\($0) s left" } ?? "unreadable"))"
                        } ?? "(cannot make codes)"
                    }
                case .text(let text):
                    row = ["text", text.id, "", text.title, ""]
                    secret = text.text.revealed.replacingOccurrences(of: "\n", with: "\\n")
                case .passkey(let passkey):
                    row = ["passkey", passkey.id, passkey.relyingParty, passkey.userName, String(passkey.rank)]
                    secret = "(private key never shown)"
                case .unknown(let other):
                    row = [other.kind, other.id, "", "(written by a newer autofill)", ""]
                }
                if created {
                    if case .passkey(let passkey) = entry { row.append(Self.utc(passkey.created)) } else { row.append("") }
                }
                rows.append(row + (reveal ? [secret] : []))
            }
            printTable(rows)
        }
    }
}

extension ListCommand {
    /// `seconds` since 1970 in ISO 8601, UTC: `2026-11-22T07:45:09Z`.
    static func utc(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(Date.ISO8601FormatStyle())
    }
}

/// Prints `rows` as left-aligned columns separated by two spaces, every cell escaped for the terminal
/// (an entry's text may hold escape sequences: ``EntryDisplay``).
func printTable(_ rows: [[String]]) {
    for line in tableLines(rows.map { $0.map(EntryDisplay.safe) }) { print("  " + line) }
}
