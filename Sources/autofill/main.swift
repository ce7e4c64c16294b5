// `autofill`: the small client every invocation starts (docs/AGENT.md). It parses nothing and links
// neither Foundation nor any of the host's libraries: the commands the agent serves go to the agent
// (started on first use), everything else, and every command when the agent is off or unreachable,
// runs in `autofill-cli` beside this executable, which replaces this process (execv).
import AutofillWire

ClientLauncher.run(Array(CommandLine.arguments.dropFirst()))
