internal import AutofillSystem
internal import AutofillWire
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
        let output: (read: Int32, write: Int32), errors: (read: Int32, write: Int32)
        do {
            output = try Descriptors.pipe()
            errors = try Descriptors.pipe()
        } catch {
            return CommandRun(status: 71, output: [], errorText: "autofill-browser-host: cannot make a pipe (\(error.reason))")
        }
        var channel: (Int32, Int32) = (-1, -1)
        if ui != nil {
            do {
                channel = try Descriptors.socketPair()
            } catch {
                for descriptor in [output.read, output.write, errors.read, errors.write] { Descriptors.closeQuietly(descriptor) }
                return CommandRun(status: 71, output: [], errorText: "autofill-browser-host: cannot make a socket pair (\(error.reason))")
            }
        }
        let null = ui != nil ? channel.1 : input.isEmpty ? ((try? Descriptors.open("/dev/null")) ?? -1) : inputPipe(input)
        let status = ExitStatus()
        let writers = (output.write, errors.write)
        let started = startDetachedThread {
            let code = runCommand(arguments, environment: environment, streams: [null, writers.0, writers.1])
            status.value.withLock { $0 = code }
            // The command is over: the pipes end once these (and the agent's copies) are closed.
            Descriptors.closeQuietly(writers.0)
            Descriptors.closeQuietly(writers.1)
        }
        guard started else {
            for descriptor in [output.read, output.write, errors.read, errors.write, null, channel.0] where descriptor >= 0 {
                Descriptors.closeQuietly(descriptor)
            }
            return CommandRun(status: 71, output: [], errorText: "autofill-browser-host: cannot start a thread")
        }
        let (printed, complaints) = drain(output.read, errors.read, channel: channel.0, ui: ui)
        for descriptor in [output.read, errors.read, null, channel.0] where descriptor >= 0 { Descriptors.closeQuietly(descriptor) }
        return CommandRun(status: status.value.withLock { $0 } ?? 70, output: printed, errorText: String(decoding: complaints, as: UTF8.self))
    }

    /// A pipe holding `input` (at most a pipe's buffer: a password and a newline), its write end
    /// closed; its read end, or -1.
    private static func inputPipe(_ input: [UInt8]) -> Int32 {
        guard input.count <= 4_096, let ends = try? Descriptors.pipe() else { return -1 }
        let written = (try? Descriptors.write(ends.write, input)) != nil
        Descriptors.closeQuietly(ends.write)
        guard written else {
            Descriptors.closeQuietly(ends.read)
            return -1
        }
        return ends.read
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
        // In a session of its own (no controlling terminal) with `streams` as its 0, 1, 2; a signal is
        // reported as 128 + its number, as shells do.
        guard let pid = try? Spawn.program(cli, arguments: ["autofill"] + arguments, environment: environment.map { "\($0.key)=\($0.value)" },
                                           input: streams[0], output: streams[1], error: streams[2]) else { return 70 }
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
        let streams = [first, second]
        while open.contains(true) {
            guard let ready = try? Descriptors.waitReadable(
                any: [open[0] ? first : -1, open[1] ? second : -1, channelOpen ? channel : -1], timeoutMilliseconds: -1) else { break }
            if channelOpen, ready[2], let ui {
                channelOpen = answerUI(channel, pending: &pending, ui: ui)
                if !channelOpen { Descriptors.shutDown(channel) }
            }
            for index in 0..<2 where open[index] && ready[index] {
                let count = (try? buffer.withUnsafeMutableBytes { raw throws(SystemError) in try Descriptors.read(streams[index], into: raw) }) ?? 0
                if count == 0 {
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
        let count = (try? buffer.withUnsafeMutableBytes { raw throws(SystemError) in try Descriptors.read(channel, into: raw) }) ?? 0
        guard count > 0 else { return false }
        pending += buffer[0..<count]
        while let newline = pending.firstIndex(of: 0x0A) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            guard let answer = ui(line), !answer.contains("\n") else { return false }
            guard (try? Descriptors.sendAll(channel, Array((answer + "\n").utf8))) != nil else { return false }
        }
        return pending.count <= 1 << 20
    }
}

/// The exit status the command's thread leaves for the reading thread.
private final class ExitStatus: Sendable {
    let value = Mutex<Int32?>(nil)
}
