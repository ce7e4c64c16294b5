internal import AutofillSystem
internal import AutofillWire
internal import Glibc
import Synchronization

/// One `autofill` command the host runs for the extension, as the `autofill` client runs it
/// (``AgentClient``: through the agent, started when none runs; in `autofill-cli` beside the host
/// when the agent is off or unreachable), with its output collected instead of written to a
/// terminal. The command gets no terminal: the host has none to give (a browser started it), so a
/// provider that needs its UI says so (exit 21) instead of asking on whatever terminal the browser
/// was started from. Its standard input is `input` (a password to save), else /dev/null.
struct CommandRun {
    /// The command's exit status, standard output and standard error (each cut at ``maximumOutputBytes``).
    let status: Int32
    let output: [UInt8]
    let errorText: String

    /// The most of each stream the host keeps (more is read and dropped, so the command never blocks).
    static let maximumOutputBytes = 4 << 20

    /// Runs `autofill arguments` with `environment`, and `input` on its standard input. With `ui`,
    /// the standard input is instead a socket (`--ui-channel`): each line the command writes there (a
    /// UI request, ChannelUserInterface) goes to `ui`, and what it returns is written back as the answer
    /// (nil ends the channel: the request is cancelled).
    static func run(_ arguments: [String], environment: [String: String], input: [UInt8] = [],
                    ui: ((String) -> String?)? = nil) -> CommandRun {
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            return CommandRun(status: 71, output: [], errorText: "autofill-browser-host: cannot make a pipe (\(String(cString: strerror(errno))))")
        }
        for descriptor in outPipe + errPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var channel: [Int32] = [-1, -1]
        if ui != nil, socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &channel) != 0 {
            return CommandRun(status: 71, output: [], errorText: "autofill-browser-host: cannot make a socket pair (\(String(cString: strerror(errno))))")
        }
        let null = ui != nil ? channel[1] : input.isEmpty ? open("/dev/null", O_RDONLY | O_CLOEXEC) : inputPipe(input)
        let status = ExitStatus()
        let writers = (outPipe[1], errPipe[1])
        let started = startDetachedThread {
            let code = runCommand(arguments, environment: environment, streams: [null, writers.0, writers.1])
            status.value.withLock { $0 = code }
            // The command is over: the pipes end once these (and the agent's copies) are closed.
            close(writers.0)
            close(writers.1)
        }
        guard started else {
            for descriptor in outPipe + errPipe + [null] { close(descriptor) }
            return CommandRun(status: 71, output: [], errorText: "autofill-browser-host: cannot start a thread")
        }
        let (output, errors) = drain(outPipe[0], errPipe[0], channel: channel[0], ui: ui)
        close(outPipe[0])
        close(errPipe[0])
        close(null)
        if channel[0] >= 0 { close(channel[0]) }
        return CommandRun(status: status.value.withLock { $0 } ?? 70, output: output, errorText: String(decoding: errors, as: UTF8.self))
    }

    /// A pipe holding `input` (at most a pipe's buffer: a password and a newline), its write end
    /// closed; its read end, or -1.
    private static func inputPipe(_ input: [UInt8]) -> Int32 {
        var ends: [Int32] = [-1, -1]
        guard input.count <= 4_096, pipe(&ends) == 0 else { return -1 }
        for descriptor in ends { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let written = input.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        guard written == input.count else {
            close(ends[0])
            return -1
        }
        return ends[0]
    }

    /// The command through the agent, or in `autofill-cli` when the agent says to run it here.
    private static func runCommand(_ arguments: [String], environment: [String: String], streams: [Int32]) -> Int32 {
        let cli = ClientProcess.folder() + "/autofill-cli"
        // The same routing as `autofill`'s (AUTOFILL_AGENT=off runs it here).
        if let route = AgentRoute(arguments, environment: environment),
           case .exited(let status) = AgentClient.run(arguments, environment: environment, start: route.startsAgent, agentExecutable: cli,
                                                      streams: streams, terminal: false) {
            return status
        }
        return spawnAndWait(cli, arguments, environment: environment, streams: streams)
    }

    /// `executable arguments` in a session of its own (no controlling terminal) with `streams` as its 0, 1, 2.
    private static func spawnAndWait(_ executable: String, _ arguments: [String], environment: [String: String], streams: [Int32]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        for (target, source) in streams.enumerated() { posix_spawn_file_actions_adddup2(&actions, source, Int32(target)) }
        // POSIX_SPAWN_SETSID (0x80 in glibc's <spawn.h>), which Swift does not import: declared only under _GNU_SOURCE.
        posix_spawnattr_setflags(&attributes, 0x80)
        var pid: pid_t = 0
        let variables = environment.map { "\($0.key)=\($0.value)" }
        let spawned = withCStrings(["autofill"] + arguments) { argv in
            withCStrings(variables) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
        }
        guard spawned == 0 else { return 70 }
        // A signal is reported as 128 + its number, as shells do.
        let ended = Processes.reap(pid)
        return ended.exited ? ended.exitStatus : 128 + ended.terminationSignal
    }

    /// Reads both pipes to their ends (poll), keeping at most ``maximumOutputBytes`` of each; and
    /// answers the UI requests arriving on `channel` (a socket, or -1) through `ui`.
    private static func drain(_ first: Int32, _ second: Int32, channel: Int32, ui: ((String) -> String?)?) -> ([UInt8], [UInt8]) {
        var kept: [[UInt8]] = [[], []]
        var open = [true, true]
        var channelOpen = channel >= 0 && ui != nil
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while open.contains(true) {
            var polled = [pollfd(fd: open[0] ? first : -1, events: Int16(POLLIN), revents: 0),
                          pollfd(fd: open[1] ? second : -1, events: Int16(POLLIN), revents: 0),
                          pollfd(fd: channelOpen ? channel : -1, events: Int16(POLLIN), revents: 0)]
            if poll(&polled, 3, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if channelOpen, polled[2].revents != 0, let ui {
                channelOpen = answerUI(channel, pending: &pending, ui: ui)
                if !channelOpen { shutdown(channel, Int32(SHUT_RDWR)) }
            }
            for index in 0..<2 where open[index] && polled[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(polled[index].fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    open[index] = false
                } else if kept[index].count < maximumOutputBytes {
                    kept[index] += buffer[0..<min(count, maximumOutputBytes - kept[index].count)]
                }
            }
        }
        return (kept[0], kept[1])
    }
}

extension CommandRun {
    /// Reads what `channel` holds; for each whole line (a UI request), writes `ui`'s answer and a
    /// newline back. False when the channel ended, a line is too long, or `ui` gave no answer.
    fileprivate static func answerUI(_ channel: Int32, pending: inout [UInt8], ui: (String) -> String?) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { read(channel, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { return true }
        guard count > 0 else { return false }
        pending += buffer[0..<count]
        while let newline = pending.firstIndex(of: 0x0A) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            guard let answer = ui(line), !answer.contains("\n") else { return false }
            let bytes = Array((answer + "\n").utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { send(channel, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
        }
        return pending.count <= 1 << 20
    }
}

/// The exit status the command's thread leaves for the reading thread.
private final class ExitStatus: Sendable {
    let value = Mutex<Int32?>(nil)
}
