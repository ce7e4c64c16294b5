internal import AutofillSystem
internal import Glibc

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
        guard let paths = AgentPaths(environment: environment) else { return .runHere(AgentPaths.noRuntimeFolder) }
        // An agent is reached only through the user's own folders: another user could have put the socket there.
        if let problem = paths.unsafeFolder() { return .runHere("no agent: \(problem)") }
        var socket = (try? UnixSocket.connect(paths.socket)) ?? -1
        if socket < 0 {
            guard start else { return .runHere("no agent is running") }
            switch startAgent(paths, environment: environment, executable: agentExecutable) {
            case .success(let connected): socket = connected
            case .failure(let reason): return .runHere(reason.description)
            }
        }
        defer { close(socket) }
        // The agent gets this process's terminal and output: never hand them to another user's process.
        let peer = try? UnixSocket.peerCredentials(socket)
        guard let peer, peer.uid == getuid() else {
            writeError("autofill: \(paths.socket) is served by uid \(peer?.uid ?? 0), not by you; autofill talks to no other user's agent. Remove the socket, or run with AUTOFILL_AGENT=off (docs/AGENT.md).\n")
            return .exited(ExitStatus.refused.rawValue)
        }
        let request = AgentProtocol.Message.run(
            version: AgentProtocol.version, arguments: absolutePaths(arguments), environment: environment,
            program: resolved(agentExecutable))
        var descriptors = streams
        let terminal = passesTerminal ? open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC) : -1
        var saved = termios()
        let restorable = terminal >= 0 && tcgetattr(terminal, &saved) == 0
        if terminal >= 0 { descriptors.append(terminal) }
        defer {
            if terminal >= 0 {
                // A prompt the agent left with echo off (it was stopped mid-question) is restored here.
                var now = termios()
                if restorable && tcgetattr(terminal, &now) == 0 && now.c_lflag & tcflag_t(ECHO) != saved.c_lflag & tcflag_t(ECHO) {
                    tcsetattr(terminal, TCSAFLUSH, &saved)
                }
                close(terminal)
            }
        }
        guard request.send(on: socket, descriptors: descriptors) else {
            return .runHere("the agent closed the connection before the request was sent")
        }
        var passed: [Int32] = []
        let answer: AgentProtocol.Message?
        do {
            answer = try AgentProtocol.Message.receive(from: socket, descriptors: &passed)
        } catch {
            answer = nil
        }
        for descriptor in passed { close(descriptor) }
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
        let pid: pid_t
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
                var code: Int32 = 0
                if waitpid(pid, &code, WNOHANG) == pid {
                    reaped = true
                    if code != 0 {
                        return .failure(StartFailure("the agent could not start (exit status \(code >> 8); run `autofill agent serve -v` to see why)"))
                    }
                }
            }
            usleep(2_000)
        }
        return .failure(StartFailure("the agent did not start listening on \(paths.socket) within \(startWait.components.seconds) s (run `autofill agent serve -v` to see why)"))
    }

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Options whose values are files, made absolute against this process's folder: the agent runs
    /// in a folder of its own.
    static let pathOptions: Set<String> = ["--config", "--ui-script", "--options"]

    static func absolutePaths(_ arguments: [String]) -> [String] {
        var folder = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&folder, folder.count) != nil else { return arguments }
        let cwd = String(decoding: folder.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    private static func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}

