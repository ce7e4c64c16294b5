/// Which commands the agent runs (the ones that fill, git's credential `get` among them, and locking),
/// and whether one may start it.
package struct AgentRoute {
    /// The commands that start an agent when none runs and run in it: the one list, which help and
    /// the docs name (``listed(_:)``; a test holds the docs to it). git's credential `get` starts it too.
    package static let startingCommands = ["fill", "suggest", "text", "passkey", "save", "generate", "report", "unlock"]

    /// The commands that run in the agent only when one runs (without one nothing is unlocked); so do
    /// git's credential `store` and `erase`, and `agent status`.
    package static let joiningCommands = ["lock"]

    /// `names` as a sentence names them: "fill, suggest and text".
    package static func listed(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }

    /// Whether this command starts an agent when none runs (`lock` and `agent status` do not).
    package let startsAgent: Bool

    /// The route of `arguments`, or nil to run in this process: a command the agent does not serve,
    /// help, `--no-agent`, or `AUTOFILL_AGENT=off`.
    package init?(_ arguments: [String], environment: [String: String]) {
        self.init(arguments, agentSwitch: environment[AgentProtocol.switchEnvironmentKey])
    }

    /// The route of `arguments` when `AUTOFILL_AGENT` is `agentSwitch` (nil: not set).
    package init?(_ arguments: [String], agentSwitch: String?) {
        guard agentSwitch != "off", let command = arguments.first else { return nil }
        let options = arguments.prefix { $0 != "--" }
        guard !options.contains(where: { ["-h", "--help", "help", "--no-agent", "--version"].contains($0) }) else { return nil }
        switch command {
        // save, generate and report reach the providers the agent keeps warm (a save needs the unlocked vault).
        case _ where Self.startingCommands.contains(command): startsAgent = true
        case "git-credential" where arguments.last == "get": startsAgent = true  // git appends the operation
        // store and erase reach the providers the user unlocked; with no agent, nothing was unlocked.
        case "git-credential" where arguments.last == "store" || arguments.last == "erase": startsAgent = false
        case _ where Self.joiningCommands.contains(command): startsAgent = false
        case "agent" where arguments.dropFirst().first == "status": startsAgent = false
        default: return nil
        }
    }
}
