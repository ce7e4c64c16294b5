internal import AutofillWire
internal import AutofillSystem

/// Clears the clipboard after a while unless it changed since, as `pass -c` does: a process of its own
/// (`autofill-cli clipboard-clearer`, a hidden command), so it outlives the command that copied.
///
/// It gets the secret on a pipe (its standard input), never in its arguments, environment or a file,
/// holds it in memory only (not dumpable, no core dumps), and when the time is up reads the clipboard
/// and clears it only if it still holds that secret: whatever the user copied since stays.
///
/// Started by the agent for a client, it also watches a lifeline (a pipe whose write end only the
/// agent holds, on its descriptor 3): when the agent ends (`autofill agent stop`, the session locked,
/// the machine going to sleep), it clears at once and ends too. Started by a command running in its
/// own process, it has no lifeline and waits out its time alone.
public enum ClipboardClearer {
    /// The hidden command that runs the clearer.
    public static let commandName = "clipboard-clearer"
    /// The environment variable that sets the delay (seconds, a decimal number; default 45).
    public static let delayEnvironmentKey = "AUTOFILL_CLIP_SECONDS"
    /// How long the clipboard keeps a secret by default.
    public static let defaultDelay: Double = 45

    /// The delay `environment` sets (``delayEnvironmentKey``), or the default; a usage error for a value
    /// that is not a number of seconds from 0.1 to 3600.
    public static func delay(environment: [String: String]) throws(AutofillError) -> Double {
        guard let text = environment[delayEnvironmentKey], !text.isEmpty else { return defaultDelay }
        guard let seconds = Double(text), seconds >= 0.1, seconds <= 3600 else {
            throw AutofillError(.usage, "\(delayEnvironmentKey) must be a number of seconds from 0.1 to 3600 (default \(Int(defaultDelay)))")
        }
        return seconds
    }

    /// The agent's lifeline: created on first use, its write end held (close-on-exec) until the agent ends.
    private static let lifeline: Int32? = {
        guard let fds = try? Descriptors.pipe() else { return nil }
        return fds.read  // the write end stays open for the life of this process
    }()

    /// Starts a clearer for `secret`, which `clipboard` now holds, after `delay` seconds. `watchingAgent`:
    /// this process is the agent, and the clearer ends (clearing) with it.
    public static func start(_ clipboard: Clipboard, secret: [UInt8], delay: Double, watchingAgent: Bool) throws(AutofillError) {
        let executable = HelperSpawn.selfExecutable()
        var arguments = [executable, commandName, "--tool", clipboard.tool.rawValue, "--seconds", "\(delay)"]
        let lifeline = watchingAgent ? Self.lifeline : nil
        if lifeline != nil { arguments.append("--watch-agent") }
        let input: (Int32, Int32)
        do throws(SystemError) {
            input = try Descriptors.socketPair()
        } catch {
            throw AutofillError(.internal, "cannot start the clipboard's clearer: socketpair failed (\(error.reason))")
        }
        let null = (try? Descriptors.open("/dev/null", .readWrite)) ?? -1
        defer { if null >= 0 { Descriptors.closeQuietly(null) } }
        let variables = clipboard.environment.map { "\($0.key)=\($0.value)" }
        let spawned = Result { () throws(SystemError) in
            try Spawn.program(executable, arguments: arguments, environment: variables, input: input.0, output: null, error: null,
                              extra: lifeline ?? -1)
        }
        Descriptors.closeQuietly(input.0)
        defer { Descriptors.closeQuietly(input.1) }
        let pid: Int32
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error): throw AutofillError(.internal, "cannot start the clipboard's clearer \(executable): \(error.reason)")
        }
        ToolProcess.writeAll(secret, to: input.1)
        // Reaped by a thread of its own: the agent lives on, and a command in its own process exits before.
        let clearer = pid
        _ = startDetachedThread { Processes.reap(clearer) }
    }

    /// The clearer's own work (in its process): read the secret from standard input, wait `delay`
    /// seconds (or until the agent's lifeline on descriptor 3 ends, with `watchingAgent`), then clear
    /// the clipboard if it still holds the secret.
    public static func run(tool: Clipboard.Tool, delay: Double, watchingAgent: Bool, environment: [String: String]) -> Int32 {
        _ = try? Processes.harden()
        var secret: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = (try? buffer.withUnsafeMutableBytes { raw in try Descriptors.read(0, into: raw) }) ?? -1
            if count <= 0 { break }
            secret += buffer[0..<count]
        }
        for index in buffer.indices { buffer[index] = 0 }
        Descriptors.closeQuietly(0)
        defer { for index in secret.indices { secret[index] = 0 } }
        let clipboard = Clipboard(tool: tool, environment: Clipboard.environment(from: environment))
        // The command checks the range; this never traps on a value that slipped past (Int64 of 1e300).
        let delay = delay.isFinite ? min(max(delay, 0), 3600) : defaultDelay
        let end = ContinuousClock.now + .milliseconds(Int64(delay * 1000))
        while ContinuousClock.now < end {
            let left = end - ContinuousClock.now
            let milliseconds = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000) + 1
            if watchingAgent {
                if (try? Descriptors.waitReadable(3, timeoutMilliseconds: milliseconds)) == true { break }  // the agent ended
            } else {
                SystemClock.sleep(milliseconds: Int(min(milliseconds, 1000)))
            }
        }
        guard var now = clipboard.contents() else { return 0 }  // nobody serves the clipboard: it changed
        defer { for index in now.indices { now[index] = 0 } }
        if now == secret { clipboard.clear() }
        return 0
    }
}
