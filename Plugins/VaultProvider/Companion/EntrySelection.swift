import ArgumentParser
import AutofillCore
import VaultCore

/// How a command names one entry: its id, or its site (and user, when the site has several).
struct EntrySelection: ParsableArguments {
    @Argument(help: ArgumentHelp(
        "The entry: its site (github.com, or the login's URL), a text's title, or its id (`list` shows ids).", valueName: "entry"))
    var entry: String

    @Option(help: ArgumentHelp("The user (a login's user name, a code's label), when the site has several entries.", valueName: "user"))
    var user: String?

    @Option(help: ArgumentHelp("Only entries of this kind: password, otp, text or passkey.", valueName: "kind"), transform: Self.kind(named:))
    var kind: EntryQuery.Kind?

    private static func kind(named name: String) throws -> EntryQuery.Kind {
        guard let kind = EntryQuery.Kind(rawValue: name) else { throw ValidationError("--kind is one of password, otp, text, passkey") }
        return kind
    }

    /// The one entry these options name in `contents`, among `kinds` (with --kind's, when given);
    /// none or several is a failure that lists the candidates by kind, site, user and id, never a secret.
    func resolve(in contents: VaultContents, path: String, kinds: Set<EntryQuery.Kind> = []) throws(CommandFailure) -> VaultEntry {
        var kinds = kinds
        if let kind {
            guard kinds.isEmpty || kinds.contains(kind) else {
                throw CommandFailure(.usage, "--kind \(kind.rawValue) does not go with this change (it applies to \(Self.names(kinds)))")
            }
            kinds = [kind]
        }
        let named = "\"\(DisplayText.line(entry, limit: 200))\"" + (user.map { " with user \"\(DisplayText.line($0, limit: 200))\"" } ?? "")
        switch EntryQuery(entry, user: user, kinds: kinds).resolve(in: contents) {
        case .found(let found):
            return found
        case .none:
            let among = kinds.isEmpty ? "" : " among the \(Self.names(kinds)) entries"
            throw CommandFailure(.badInput, "no entry \(named)\(among) in \(path); `autofill-vault search TEXT` finds entries by part of their names")
        case .ambiguous(let candidates):
            let rows = EntryDisplay.table(candidates).map { "  " + $0 }.joined(separator: "\n")
            throw CommandFailure(.badInput, """
                \(named) names \(candidates.count) entries in \(path); say which with --user USER, --kind KIND or its id:
                \(rows)
                """)
        }
    }

    private static func names(_ kinds: Set<EntryQuery.Kind>) -> String {
        EntryQuery.Kind.allCases.filter(kinds.contains).map(\.rawValue).joined(separator: " or ")
    }
}

