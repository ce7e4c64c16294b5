// `autofill`: the small client every invocation starts (docs/AGENT.md). It parses nothing and links
// neither Foundation nor any of the host's libraries: the commands the agent serves go to the agent
// (started on first use), everything else, and every command when the agent is off or unreachable,
// runs in `autofill-cli` beside this executable, which replaces this process (execv).
import AutofillWire
import CAutofillAgent
import Glibc

let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ClientProcess.environment()
let host = ClientProcess.folder() + "/autofill-cli"
if let route = AgentRoute(arguments, environment: environment) {
    switch AgentClient.run(arguments, environment: environment, start: route.startsAgent, agentExecutable: host) {
    case .exited(let status):
        exit(status)
    case .runHere(let reason):
        if arguments.contains("-v") || arguments.contains("--verbose") {
            ClientProcess.writeError("autofill: running in this process: \(reason)\n")
        }
    }
}
ClientProcess.replace(with: host, arguments: arguments)
