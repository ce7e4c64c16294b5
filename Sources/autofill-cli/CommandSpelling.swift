import ArgumentParser
import AutofillCore
import AutofillHost

/// A subcommand typed with a typo (`autofill fil`), and the one meant: ArgumentParser suggests
/// options it nearly knows, but calls an unknown subcommand only "an unexpected argument".
struct CommandSpelling {
    /// The command path before the typo (`autofill providers`), the word typed, the word meant.
    let path: String
    let typed: String
    let meant: String

    /// The typo in `arguments` (without the program name) of `root`'s command tree: the first word
    /// where a subcommand is expected that is none but nearly one (``KeySpelling/nearest(_:among:)``).
    /// Nil when the command line names its commands right, has an option first, or the word is
    /// nothing like a command.
    static func typo(root: any ParsableCommand.Type, arguments: [String]) -> CommandSpelling? {
        var subcommands = visible(root.configuration.subcommands)
        var path = [root.configuration.commandName ?? "autofill"]
        for argument in arguments {
            guard !argument.hasPrefix("-"), !subcommands.isEmpty else { return nil }
            let names = subcommands.map(\.name)
            if let index = names.firstIndex(of: argument) {
                subcommands = visible(subcommands[index].type.configuration.subcommands)
                path.append(argument)
                continue
            }
            guard argument != "help", let meant = KeySpelling.nearest(argument, among: names + (path.count == 1 ? ["help"] : []))
            else { return nil }
            return CommandSpelling(path: path.joined(separator: " "), typed: argument, meant: meant)
        }
        return nil
    }

    /// The commands people see, with their names.
    private static func visible(_ commands: [any ParsableCommand.Type]) -> [(name: String, type: any ParsableCommand.Type)] {
        var result: [(name: String, type: any ParsableCommand.Type)] = []
        for command in commands {
            let configuration = command.configuration
            guard configuration.shouldDisplay else { continue }
            result.append((command._commandName, command))
        }
        return result
    }

    /// What to print (exit 64).
    var message: String {
        "Error: \(path) has no command '\(typed)'; did you mean '\(meant)'? (`\(path) --help` lists its commands)"
    }
}
