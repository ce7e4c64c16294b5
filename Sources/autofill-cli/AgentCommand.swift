import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillWire
import FoundationEssentials
import AutofillSystem
import Logging

/// `autofill agent …`: the per-user daemon that runs fills and keeps providers' unlocked state in
/// their own memory (docs/AGENT.md).
struct AgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run, stop or inspect the agent that keeps providers unlocked in memory between commands.",
        discussion: """
            \(AgentRoute.listed(AgentRoute.startingCommands)) (and git's credential get) start the agent on \
            first use and talk to it over $XDG_RUNTIME_DIR/autofill/agent/socket; \
            \(AgentRoute.listed(AgentRoute.joiningCommands)) talks to it only when it runs. You rarely need these. AUTOFILL_AGENT=off (or --no-agent) \
            runs a command in its own process instead: then nothing stays unlocked between commands.

            Examples:
              autofill agent status
              autofill agent stop
              autofill agent serve -v --idle-timeout 600
            """,
        subcommands: [Serve.self, Stop.self, Status.self])

    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the agent in the foreground (what commands start in the background).",
            discussion: """
                Exits at once, successfully, when an agent already runs. -v logs requests and providers' lines to stderr.

                Examples:
                  autofill agent serve
                  autofill agent serve -v --idle-timeout 600
                """)

        @Flag(name: .shortAndLong, help: "Log to stderr at debug level.") var verbose = false
        @Option(help: ArgumentHelp("Exit after this many seconds without a request (default: the configuration's AgentIdleTimeoutSeconds, else 900).", valueName: "seconds"))
        var idleTimeout: Double?

        func validate() throws {
            if let idleTimeout, !(idleTimeout > 0 && idleTimeout <= 86_400) {
                throw ValidationError("--idle-timeout takes a number of seconds above 0 and at most 86400")
            }
        }

        func run() throws {
            ConsoleLogHandler.bootstrap(level: verbose ? .debug : .notice)
            let environment = ClientContext.current.environment
            // The user's policy, held until the agent ends: no request may ask for less (docs/AGENT.md).
            let logger = Logger(label: "autofill.agent")
            let (policy, problem) = AgentPolicy.load(environment: environment)
            // The idle time is the user's too: their configuration's, never that of the request that started the agent.
            let configured = policy.configurationPath.flatMap { try? ConfigurationFile.locate(option: $0, environment: environment) }?.configuration.agentIdleTimeout
            let idle: Duration = idleTimeout.map { .milliseconds(Int64(($0 * 1000).rounded())) }
                ?? configured ?? HostConfiguration.defaultAgentIdleTimeout
            if let problem { logger.warning("holds pam until it restarts: \(problem)") }
            logger.info("holds the authentication policy \(policy) of \(policy.origin)")
            do {
                switch try AgentServer.start(environment: environment, idleTimeout: idle, idleTimeoutIsFixed: idleTimeout != nil, userPolicy: policy, logger: logger, handler: { arguments in
                    await Autofill.execute(arguments)
                }) {
                case .alreadyRunning(let paths):
                    printError("autofill: an agent already listens on \(paths.socket)")
                case .started(let server):
                    _ = server.wait()
                }
            } catch {
                throw reported(error)
            }
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop the agent: every provider it kept running ends, and with it what was unlocked.", discussion: """
                Examples:
                  autofill agent stop
                """)

        func run() throws {
            try reportingErrors {
                guard let paths = AgentPaths(environment: ClientContext.current.environment) else {
                    throw AutofillError(.configuration, AgentPaths.noRuntimeFolder)
                }
                guard let pid = try AgentProcess.find(paths) else {
                    print("No agent is running.")
                    return
                }
                try? Signals.send(.terminate, to: pid)
                guard AgentProcess.waitUntilGone(pid, socket: paths.socket, timeout: .seconds(10)) else {
                    throw AutofillError(.internal, "the agent (pid \(pid)) did not stop within 10 s of SIGTERM")
                }
                print("Stopped the agent (pid \(pid)); nothing it held stays unlocked.")
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say whether the agent runs, and which providers it keeps running.",
            discussion: """
                Exit status: 0 when it runs, 3 when it does not.

                Examples:
                  autofill agent status
                  autofill agent status --json
                """)

        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            guard let server = AgentServer.current else {
                // Run in this process: the agent was not reachable (the client starts none for this),
                // or the client did not ask it (AUTOFILL_AGENT=off, or its runtime folder is unfit).
                if let paths = AgentPaths(environment: ClientContext.current.environment), let pid = try? AgentProcess.find(paths) {
                    if json { return try printJSON(StatusReport(running: true, pid: pid, socket: paths.socket)) }
                    print("An agent runs (pid \(pid)) on \(paths.socket), but this command ran in its own process (-v says why).")
                    return
                }
                if json { try printJSON(StatusReport(running: false)) } else { print("No agent is running.") }
                throw ExitCode(ExitStatus.agentNotRunning)
            }
            let status = server.status
            let report = StatusReport(
                running: true, pid: status.pid, socket: status.socket, uptimeSeconds: Int(status.uptime.components.seconds),
                idleTimeoutSeconds: Int(status.idleTimeout.components.seconds), listensToLogind: server.listensToLogind,
                userAuthentication: server.pool.userPolicy.settings.policy.rawValue,
                providers: status.providers.map { .init(id: $0.id, helperPID: $0.pid) })
            if json { return try printJSON(report) }
            print("The agent runs (pid \(status.pid)) on \(status.socket), started \(report.uptimeSeconds ?? 0) s ago. It exits once \(report.idleTimeoutSeconds ?? 0) s pass with no request (this status counts as one).")
            print("It holds the authentication policy \(server.pool.userPolicy) of \(server.pool.userPolicy.origin); no request may ask for less.")
            print(server.listensToLogind
                ? "It locks every provider when the session locks or the system sleeps (logind)."
                : "It cannot hear logind (no system bus): it does not lock when the session locks or the system sleeps.")
            if status.providers.isEmpty { print("No provider is running.") }
            for provider in status.providers {
                print("  \(provider.id): " + (provider.pid.map { "helper pid \($0)" } ?? "in the agent's process, or not running since it last ended"))
            }
        }

        struct StatusReport: Encodable {
            struct Provider: Encodable {
                let id: String
                let helperPID: Int32?
            }

            var running: Bool
            var pid: Int32?
            var socket: String?
            var uptimeSeconds: Int?
            var idleTimeoutSeconds: Int?
            var listensToLogind: Bool?
            /// The policy the agent holds (the user's; docs/AGENT.md).
            var userAuthentication: String?
            var providers: [Provider]?
        }
    }
}

/// Finding the running agent from outside it.
enum AgentProcess {
    /// The pid of the agent listening on `paths.socket` (the kernel's word, SO_PEERCRED, and only if
    /// it runs as this user), or nil when none listens.
    static func find(_ paths: AgentPaths) throws(AutofillError) -> Int32? {
        guard let peer = AgentSocketPeer(path: paths.socket) else { return nil }
        guard peer.uid == Users.current else {
            throw AutofillError(.refused, "\(paths.socket) is served by uid \(peer.uid), not by you; remove it")
        }
        return peer.pid
    }

    /// Waits until `pid` has ended and nothing listens on `socket`.
    static func waitUntilGone(_ pid: Int32, socket: String, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if isGone(pid) && AgentSocketPeer(path: socket) == nil { return true }
            SystemClock.sleep(milliseconds: 10)
        }
        return false
    }

    /// Whether no process `pid` exists any more (signal 0 says ESRCH).
    private static func isGone(_ pid: Int32) -> Bool {
        do {
            try Signals.send(Signal(0), to: pid)
            return false
        } catch {
            return error.noSuchProcess
        }
    }
}
