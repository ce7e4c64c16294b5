import ArgumentParser
import VaultCore

/// `autofill-vault search`: entries by part of their names.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "Find entries whose site, title, user, label or id contains TEXT (ignoring case; never secrets).",
        discussion: """
            Examples:
              autofill-vault search github          every entry for a site with "github" in it
              autofill-vault search alice           every entry of a user with "alice" in it
            Then `autofill-vault show SITE --user USER` (or the id) shows one.
            """)

    @OptionGroup var options: VaultOptions

    @Argument(help: ArgumentHelp("The text to look for in sites, titles, users, labels and ids.", valueName: "text"))
    var text: String

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            let vault = try access.open(at: access.path)
            let found = EntryQuery.search(text, in: vault.contents)
            guard !found.isEmpty else {
                printError("no entry's site, title, user, label or id contains the text in \(vault.path)")
                throw ExitCode(1)
            }
            for line in EntryDisplay.table(found) { print("  " + line) }
        }
    }
}
