import ArgumentParser
import AutofillABI
import AutofillCore
import AutofillHost
import AutofillWire
import AutofillSystem

/// The `autofill` command.
@main
struct Autofill: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "autofill",
        abstract: "A multi-provider credential AutoFill host: password managers plug in as providers.",
        discussion: """
            Providers are plugins (.afprovider bundles) that declare their \
            capabilities in an Info.plist. At most three are enabled at once, in \
            the order you choose. Each provider keeps a store of identities \
            (credentials without their secrets); autofill suggests from the \
            stores without running any provider.

            Configuration lookup: --config PATH, then $AUTOFILL_CONFIG, then \
            $XDG_CONFIG_HOME/autofill/config.plist. An installed autofill without \
            one asks you to write it (`autofill init`); one run from the checkout \
            it was built from falls back to that checkout's demo configuration \
            (Config/). Changes are written to the file that was read, or to \
            $XDG_CONFIG_HOME/autofill/config.plist when the demo was read.

            The documents messages name (docs/CONFIGURATION.md, docs/SANDBOX.md, …) \
            are installed with autofill in PREFIX/share/doc/autofill (~/.local/share/doc/autofill \
            by default).

            \(AgentRoute.listed(AgentRoute.startingCommands + AgentRoute.joiningCommands)) \
            run in the agent, a per-user daemon started on first use that \
            keeps providers (and what they unlocked) in memory between \
            commands; AUTOFILL_AGENT=off or --no-agent runs them in this \
            process (`autofill agent --help`).

            Exit status (sysexits.h):
              0   success
              64  usage error (unknown provider id, bad argument)
              65  invalid plugin (plist, library, ABI, entry points) or input
              66  a named file or bundle does not exist
              69  a provider failed or could not be reached
              70  internal error
              74  a file could not be read or written
              75  try again later (an identity store is busy)
              77  refused: a provider whose files changed since you approved
                  them, that you never approved, that other users could
                  change, or that is quarantined (`autofill providers list`
                  says which); or a host file other users could write
              78  configuration error or refused change (a fourth provider)

            Examples:
              autofill suggest example.com
              autofill fill example.com
              autofill fill example.com --clip
              autofill providers list
              autofill help fill
            """,
        version: Autofill.versionText,
        subcommands: [
            FillCommand.self, SuggestCommand.self, TextCommand.self, PasskeyCommand.self, LockCommand.self, UnlockCommand.self,
            IdentitiesCommand.self, ProvidersCommand.self, PluginCommand.self, AgentCommand.self,
            SaveCommand.self, GenerateCommand.self, ReportCommand.self, GitCredentialCommand.self, InitCommand.self,
            BrowserCommand.self, ClipboardClearerCommand.self,
        ]
    )

    /// What `autofill --version` prints: autofill's version, the provider ABI it speaks
    /// (`AF_ABI_VERSION` of autofill_provider.h) and the Swift compiler that built it (a Swift plugin
    /// runs on the host's Swift runtime, so its author needs it).
    static let versionText = """
        autofill \(AutofillBuild.version)
        provider ABI version \(providerABIVersion) (AF_ABI_VERSION)
        built with Swift \(AutofillBuild.swiftCompiler)
        """

    /// Runs the command in this process. Users run `autofill`, the small client
    /// (Sources/autofill), which sends the commands the agent serves to the agent and runs
    /// this program, `autofill-cli`, for everything else (docs/AGENT.md).
    static func main() async {
        Processes.exit(await execute(Array(CommandLine.arguments.dropFirst())))
    }

    /// The subcommand named `name` when it has no subcommands of its own (`fill`, `suggest`, `lock`, …).
    static func leafCommand(named name: String) -> (any ParsableCommand.Type)? {
        configuration.subcommands.first { command in
            command.configuration.subcommands.isEmpty && (command._commandName == name || command.configuration.aliases.contains(name))
        }
    }

    /// `arguments` parsed as `parseAsRoot` parses them, faster for the commands the agent runs most.
    ///
    /// Parsing was a quarter of the agent's CPU for a warm fill (docs/PERFORMANCE.md), most of it
    /// ArgumentParser making the command's argument definitions by reflection, which `parseAsRoot`
    /// does once more for the subcommand while decoding the root, besides building the command tree.
    /// So a command line that starts with a leaf subcommand's name is first parsed by that subcommand
    /// alone, with the same definitions; its value is taken only when that succeeds and is that
    /// subcommand (not help). Anything else (help, --version, completions, a usage error) is parsed
    /// again the full way, so what a user sees (usage, help, error text) is what `parseAsRoot` says.
    /// Before all that, a plain `fill` or `suggest` command line is read without ArgumentParser
    /// (``PlainCommandLine``), on the same terms.
    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        if let plain = parsePlain(arguments) { return plain }
        if let name = arguments.first, let leaf = leafCommand(named: name),
            let command = try? leaf.parseAsRoot(Array(arguments.dropFirst())), type(of: command) == leaf
        {
            return command
        }
        return try parseAsRoot(arguments)
    }

    /// Parses and runs `arguments` (without the program name) in the current ``ClientContext``,
    /// writing help, usage errors and error messages to its console; the exit status. The same for a
    /// command run in this process and one the agent runs for a client.
    static func execute(_ arguments: [String]) async -> Int32 {
        do {
            var command = try parse(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            if let typo = CommandSpelling.typo(root: Self.self, arguments: arguments) {
                ClientContext.current.console.write(typo.message + "\n", to: .error)
                return ExitStatus.usage.rawValue
            }
            // The host's errors: their message and the one table's status (ExitStatus).
            if let status = ExitStatus(error) {
                if case FillFailure.declined = error {} else { ClientContext.current.console.write("autofill: \(error)\n", to: .error) }
                return status.rawValue
            }
            let code = exitCode(for: error).rawValue
            let message = fullMessage(for: error)
            if !message.isEmpty {
                ClientContext.current.console.write(message + "\n", to: code == 0 ? .output : .error)
            }
            return code
        }
    }
}

extension CommandConfiguration {
    /// This configuration of a leaf subcommand the agent runs, for ``Autofill/parse(_:)``'s parse of
    /// it alone: with `autofill` as its super command, ArgumentParser does not parse the command line
    /// twice more as `--generate-completion-script` (two sets of argument definitions made by
    /// reflection, ≈ 4 % of the agent's CPU for a fill). Nothing a user sees changes: help, usage
    /// errors and completions come from the full parse from the root, whose own configuration alone
    /// names the tool in them; and `--generate-completion-script` after a leaf's name is no option
    /// of the leaf, so its parse alone fails and the full parse answers it.
    var parsedAlone: CommandConfiguration {
        var configuration = self
        configuration._superCommandName = "autofill"
        return configuration
    }
}
