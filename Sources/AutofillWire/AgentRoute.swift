/// Which commands the agent runs (the ones that fill, git's credential `get` among them, and locking),
/// and whether one may start it.
package struct AgentRoute {
    /// Whether this command starts an agent when none runs (`lock` and `agent status` do not).
    package let startsAgent: Bool

    /// The route of `arguments`, or nil to run in this process: a command the agent does not serve,
    /// help, `--no-agent`, or `AUTOFILL_AGENT=off`.
    package init?(_ arguments: [String], environment: [String: String]) {
        guard environment[AgentProtocol.switchEnvironmentKey] != "off", let command = arguments.first else { return nil }
        let options = arguments.prefix { $0 != "--" }
        guard !options.contains(where: { ["-h", "--help", "help", "--no-agent", "--version"].contains($0) }) else { return nil }
        switch command {
        case "fill", "suggest", "text", "passkey", "unlock": startsAgent = true
        case "git-credential" where arguments.last == "get": startsAgent = true  // git appends the operation
        case "lock": startsAgent = false
        case "agent" where arguments.dropFirst().first == "status": startsAgent = false
        default: return nil
        }
    }
}
