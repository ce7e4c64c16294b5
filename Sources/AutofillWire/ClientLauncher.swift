internal import AutofillSystem

/// What the small clients do (`autofill`, and `git-credential-autofill`, which is `autofill
/// git-credential`): a command the agent serves goes to the agent (started on first use); anything
/// else, and every command when the agent is off or unreachable, runs in `autofill-cli` beside the
/// executable, which replaces this process (execv).
package enum ClientLauncher {
    /// Runs `arguments` (without the program name) with this process's environment; never returns.
    package static func run(_ arguments: [String]) -> Never {
        let environment = ClientEnvironment.current()
        let host = ClientProcess.folder() + "/autofill-cli"
        if let route = AgentRoute(arguments, agentSwitch: environment[AgentProtocol.switchEnvironmentKey]) {
            switch AgentClient.run(arguments, environment: environment, start: route.startsAgent, agentExecutable: host) {
            case .exited(let status):
                Processes.exit(status)
            case .runHere(let reason):
                if arguments.contains("-v") || arguments.contains("--verbose") {
                    ClientProcess.writeError("autofill: running in this process: \(reason)\n")
                }
            }
        }
        ClientProcess.replace(with: host, arguments: arguments)
    }
}
