internal import AutofillSystem

/// The client side of the agent: what every `autofill` invocation of a command the agent serves
/// does before anything else (docs/AGENT.md).
///
/// It connects to the agent's socket, starting the agent first when none listens (as gpg starts
/// gpg-agent), and sends the command line with its standard descriptors and its controlling
/// terminal. The agent runs the command exactly as this process would have and answers with the
/// exit status, which this process exits with. It is kept small: it parses nothing and loads no
/// provider, so a command costs this process's start, one round trip and the agent's work.
package enum AgentClient {
    /// How long a client waits for an agent it started to listen.
    static let startWait: Duration = .seconds(10)

    /// What the client should do.
    package enum Outcome: Equatable {
        /// The agent ran the command: exit with this status.
        case exited(Int32)
        /// Run the command in this process (the agent is off, unreachable, or said so). The reason, for `--verbose`.
        case runHere(String)
    }

    /// Runs `arguments` (without the program name) through the agent. `start` says whether to start
    /// an agent when none runs (`lock` and `agent stop` do not: with no agent, nothing is unlocked).
    /// `streams` are the command's standard input, output and error (this process's own unless a
    /// client such as the browser's host collects the output); `terminal` whether the agent gets this
    /// process's controlling terminal for prompts.
    package static func run(_ arguments: [String], environment: [String: String], start: Bool, agentExecutable: String,
                            streams: [Int32] = [0, 1, 2], terminal passesTerminal: Bool = true) -> Outcome {
        run(arguments, runtimeDirectory: environment["XDG_RUNTIME_DIR"], start: start, agentExecutable: agentExecutable,
            streams: streams, terminal: passesTerminal,
            request: { arguments, program in
                AgentProtocol.Message.run(version: AgentProtocol.version, arguments: arguments, environment: environment, program: program).frame
            },
            startEnvironment: { environment })
    }

    /// ``run(_:environment:start:agentExecutable:streams:terminal:)`` with the environment as a
    /// process lists it (what the small clients pass: they build no dictionary, ``ClientEnvironment``).
    package static func run(_ arguments: [String], environment: ClientEnvironment, start: Bool, agentExecutable: String,
                            streams: [Int32] = [0, 1, 2], terminal passesTerminal: Bool = true) -> Outcome {
        run(arguments, runtimeDirectory: environment["XDG_RUNTIME_DIR"], start: start, agentExecutable: agentExecutable,
            streams: streams, terminal: passesTerminal,
            request: { arguments, program in AgentProtocol.Message.runFrame(arguments: arguments, environment: environment, program: program) },
            startEnvironment: { environment.variables })
    }

    /// Both: `request` makes the `run` frame of the arguments (file options made absolute) and the
    /// program; `startEnvironment` gives the environment an agent this client starts is given
    /// (filtered, ``AgentProtocol/startEnvironment(_:)``).
    private static func run(_ arguments: [String], runtimeDirectory: String?, start: Bool, agentExecutable: String,
                            streams: [Int32], terminal passesTerminal: Bool,
                            request: (_ arguments: [String], _ program: String) -> [UInt8],
                            startEnvironment: () -> [String: String]) -> Outcome {
        guard let paths = AgentPaths(runtimeDirectory: runtimeDirectory) else { return .runHere(AgentPaths.noRuntimeFolder) }
        // An agent is reached only through the user's own folders: another user could have put the socket there.
        if let problem = paths.unsafeFolder() { return .runHere("no agent: \(problem)") }
        var socket = (try? UnixSocket.connect(paths.socket)) ?? -1
        if socket < 0 {
            guard start else { return .runHere("no agent is running") }
            switch startAgent(paths, environment: startEnvironment(), executable: agentExecutable) {
            case .success(let connected): socket = connected
            case .failure(let reason): return .runHere(reason.description)
            }
        }
        defer { Descriptors.closeQuietly(socket) }
        // The agent gets this process's terminal and output: never hand them to another user's process.
        let peer = try? UnixSocket.peerCredentials(socket)
        guard let peer, peer.uid == Users.current else {
            writeError("autofill: \(paths.socket) is served by uid \(peer?.uid ?? 0), not by you; autofill talks to no other user's agent. Remove the socket, or run with AUTOFILL_AGENT=off (docs/AGENT.md).\n")
            return .exited(ExitStatus.refused.rawValue)
        }
        let frame = request(absolutePaths(arguments), resolved(agentExecutable))
        var descriptors = streams
        let terminal = passesTerminal ? (try? Descriptors.open("/dev/tty", [.readWrite, .noControllingTerminal])) ?? -1 : -1
        let saved = terminal >= 0 ? try? TerminalSettings(of: terminal) : nil
        if terminal >= 0 { descriptors.append(terminal) }
        defer {
            if terminal >= 0 {
                // A prompt the agent left with echo off (it was stopped mid-question) is restored here.
                if let saved, let now = try? TerminalSettings(of: terminal), now.echoes != saved.echoes {
                    try? saved.apply(to: terminal)
                }
                Descriptors.closeQuietly(terminal)
            }
        }
        guard AgentProtocol.Message.send(frame, on: socket, descriptors: descriptors) else {
            return .runHere("the agent closed the connection before the request was sent")
        }
        var passed: [Int32] = []
        let answer: AgentProtocol.Message?
        do {
            answer = try AgentProtocol.Message.receive(from: socket, descriptors: &passed)
        } catch {
            answer = nil
        }
        for descriptor in passed { Descriptors.closeQuietly(descriptor) }
        switch answer {
        case .exit(let status)?: return .exited(status)
        case .runHere(let reason)?: return .runHere(reason)
        case .busy(let reason)?:
            writeError("autofill: \(reason)\n")
            return .exited(ExitStatus.temporaryFailure.rawValue)
        case .run?, nil:
            writeError("autofill: the agent ended before it answered (it was stopped or crashed); nothing more happened. The next command starts a new agent (docs/AGENT.md).\n")
            return .exited(ExitStatus.unavailable.rawValue)
        }
    }

    /// Starts `executable agent serve` detached and connects once it listens.
    private static func startAgent(_ paths: AgentPaths, environment: [String: String], executable: String) -> Result<Int32, StartFailure> {
        let arguments = [executable, "agent", "serve"]
        let variables = AgentProtocol.startEnvironment(environment).map { "\($0.key)=\($0.value)" }
        let pid: Int32
        do throws(SystemError) {
            pid = try Spawn.detached(executable, arguments: arguments, environment: variables)
        } catch {
            return .failure(StartFailure("cannot start \(executable) agent serve: \(error.reason)"))
        }
        let deadline = ContinuousClock.now + startWait
        var reaped = false
        while ContinuousClock.now < deadline {
            if let socket = try? UnixSocket.connect(paths.socket) { return .success(socket) }
            // An agent that exits at once is reaped here: another one won the race (status 0: the
            // winner listens already or soon), or it could not start (it said why in its own log).
            if !reaped {
                if let ended = try? Processes.reapIfEnded(pid) {
                    reaped = true
                    if ended.rawValue != 0 {
                        return .failure(StartFailure("the agent could not start (exit status \(ended.rawValue >> 8); run `autofill agent serve -v` to see why)"))
                    }
                }
            }
            SystemClock.sleep(milliseconds: 2)
        }
        return .failure(StartFailure("the agent did not start listening on \(paths.socket) within \(startWait.components.seconds) s (run `autofill agent serve -v` to see why)"))
    }

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Options whose values are files, made absolute against this process's folder: the agent runs
    /// in a folder of its own. (An array: a set's generic metadata would be built at every client's
    /// start, docs/PERFORMANCE.md, Run R.)
    static let pathOptions = ["--config", "--ui-script", "--options"]

    static func absolutePaths(_ arguments: [String]) -> [String] {
        guard let cwd = try? Paths.currentFolder() else { return arguments }
        func absolute(_ path: String) -> String {
            path.hasPrefix("/") || path == "-" || path.isEmpty ? path : (cwd == "/" ? "" : cwd) + "/" + path
        }
        var result: [String] = []
        var pendingOption = false
        for argument in arguments {
            if pendingOption {
                result.append(absolute(argument))
                pendingOption = false
            } else if pathOptions.contains(argument) {
                result.append(argument)
                pendingOption = true
            } else if let equals = argument.firstIndex(of: "="), pathOptions.contains(String(argument[..<equals])) {
                result.append(String(argument[...equals]) + absolute(String(argument[argument.index(after: equals)...])))
            } else {
                result.append(argument)
                if argument == "--" { pendingOption = false }
            }
        }
        return result
    }

    /// `path` with its symbolic links resolved (the agent compares it with its `/proc/self/exe`).
    static func resolved(_ path: String) -> String {
        RealPath.resolveUnremembered(path) ?? path
    }

    private static func writeError(_ text: String) {
        try? Descriptors.write(2, text)
    }
}

