import ArgumentParser
import AutofillCore
import Foundation
import AutofillSystem
import VaultCore

/// `autofill-vault show`: one entry's fields; its secret only when asked.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one entry, named by its site (and user) or id; secrets only with --reveal or --password.",
        discussion: """
            Without a flag, show prints the entry's names (site, user, title, rank, id) and says which secrets it \
            holds, never their values. --reveal adds them to the listing: the password and notes of a login, the \
            current code of a one-time-code entry (not its seed), the text of a text entry. --password prints the \
            secret alone on one line, for a pipe (`| wl-copy`): the password, the current code, or the text. \
            Everything shown is escaped for the terminal (escape sequences show as \\u{1b}); --password into a \
            pipe or file writes the secret exactly as stored.

            Examples:
              autofill-vault show github.com                  the one entry for github.com
              autofill-vault show github.com --user alice     one of several
              autofill-vault show github.com --kind otp --password
              autofill-vault show 3f0c…-uuid --reveal         by id
            """)

    @OptionGroup var options: VaultOptions
    @OptionGroup var selection: EntrySelection

    @Flag(help: "Also show the secrets: password and notes, the current one-time code, the text.")
    var reveal = false

    @Flag(help: "Print only the secret (password, current code, or text) on one line.")
    var password = false

    func validate() throws {
        guard !(reveal && password) else { throw ValidationError("--reveal and --password do not go together: choose one") }
    }

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            let vault = try access.open(at: access.path)
            let entry = try selection.resolve(in: vault.contents, path: vault.path)
            if password {
                try printSecret(of: entry)
                return
            }
            var fields = EntryDisplay.fields(entry)
            fields += secrets(of: entry)
            let width = fields.map(\.0.count).max() ?? 0
            for (name, value) in fields { print("\((name + ":").padding(toLength: width + 1, withPad: " ", startingAt: 0)) \(value)") }
        }
    }

    /// The secret fields: their values with --reveal, else whether they are set.
    private func secrets(of entry: VaultEntry) -> [(String, String)] {
        let hidden = "(hidden: --reveal shows it)"
        switch entry {
        case .password(let login):
            let notes = login.notes.map { reveal ? EntryDisplay.safe($0.revealed) : hidden } ?? "(none)"
            return [("password", reveal ? EntryDisplay.safe(login.password.revealed) : hidden), ("notes", notes)]
        case .oneTimeCode(let code):
            return [("code", reveal ? currentCode(code) : hidden), ("seed", "(never shown: it is in the otpauth URI)")]
        case .text(let text):
            return [("text", reveal ? EntryDisplay.safe(text.text.revealed) : hidden)]
        case .passkey:
            return [("private key", "(never shown)")]
        case .unknown:
            return []
        }
    }

    private func currentCode(_ code: OneTimeCodeEntry) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        guard let current = try? code.code(atUnixTime: now) else { return "(cannot make codes: the URI is unreadable)" }
        return "\(current.revealed) (\(code.secondsRemaining(atUnixTime: now).map { "\($0) s left" } ?? "unreadable"))"
    }

    /// Prints the entry's one secret: exact into a pipe or file, escaped at a terminal.
    private func printSecret(of entry: VaultEntry) throws(CommandFailure) {
        let secret: String
        switch entry {
        case .password(let login): secret = login.password.revealed
        case .text(let text): secret = text.text.revealed
        case .oneTimeCode(let code):
            guard let current = try? code.code(atUnixTime: Int64(Date().timeIntervalSince1970)) else {
                throw CommandFailure(.badInput, "the one-time-code entry \(EntryDisplay.safe(code.id)) cannot make codes (its URI is unreadable)")
            }
            secret = current.revealed
        case .passkey, .unknown:
            throw CommandFailure(.usage, "a \(EntryDisplay.kind(entry)) entry has no secret to print (a passkey's private key is never shown)")
        }
        if Descriptors.isTerminal(1), DisplayText.needsEscaping(secret, keepingNewlines: false) {
            printWarning("the secret holds control characters or escape sequences; shown escaped (a pipe gets it exactly)")
            print(EntryDisplay.safe(secret))
        } else {
            print(secret)
        }
    }
}
