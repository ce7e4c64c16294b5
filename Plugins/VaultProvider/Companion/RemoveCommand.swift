import ArgumentParser
import VaultCore

/// `autofill-vault remove`: delete entries by id.
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove entries by id (all or none: an unknown id removes nothing).", discussion: """
            Examples:
              autofill-vault list
              autofill-vault remove 6F1C0E2A-…
            """)

    @OptionGroup var options: VaultOptions

    @Argument(help: ArgumentHelp("The ids of the entries (`autofill-vault list` shows them).", valueName: "id"))
    var ids: [String]

    func validate() throws {
        guard !ids.isEmpty else { throw ValidationError("name at least one entry id to remove") }
    }

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            try access.update({ contents in
                try ids.map { id in
                    guard let entry = contents.remove(id: id) else {
                        throw CommandFailure(.badInput, "no entry \(id) in \(access.path); nothing was removed (`autofill-vault list` shows the ids)")
                    }
                    return entry
                }
            }, announce: { removed in
                for entry in removed { print("Removed \(entry.kind) \(entry.id).") }
            })
        }
    }
}
