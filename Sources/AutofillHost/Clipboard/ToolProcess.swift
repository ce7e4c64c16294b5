internal import AutofillCore
internal import AutofillWire
internal import AutofillSystem

/// One run of a clipboard tool: started with `input` on a socket (a pipe's write could raise SIGPIPE), its error output in memory (a memfd:
/// `xclip` and `xsel` fork a process that keeps serving the clipboard and keeps their descriptors, so
/// nothing here waits for those to close), its output read when asked for.
struct ToolProcess {
    private let pid: Int32?
    private let outputPipe: Int32?
    private let errorFile: Int32
    private let name: String
    private var failure: String?

    /// The longest a tool may take.
    static let deadline: Duration = .seconds(10)

    init(path: String, arguments: [String], environment: [String: String], input: [UInt8]?, captureOutput: Bool) {
        name = arguments[0]
        let errors = (try? Descriptors.memoryFile(named: "clipboard-tool-errors")) ?? -1
        errorFile = errors
        var inputPipe: (Int32, Int32) = (-1, -1), output: (read: Int32, write: Int32) = (-1, -1)
        let null = (try? Descriptors.open("/dev/null", .readWrite)) ?? -1
        defer { if null >= 0 { Descriptors.closeQuietly(null) } }
        var madeError: SystemError?
        if input != nil {  // send(MSG_NOSIGNAL): no SIGPIPE
            do throws(SystemError) { inputPipe = try Descriptors.socketPair() } catch { madeError = error }
        }
        if captureOutput { output = (try? Descriptors.pipe()) ?? (-1, -1) }
        let variables = environment.map { "\($0.key)=\($0.value)" }
        let spawned = Result { () throws(SystemError) in
            try Spawn.program(path, arguments: [path] + arguments.dropFirst(), environment: variables,
                              input: input == nil ? null : inputPipe.0, output: captureOutput ? output.write : null,
                              error: errors >= 0 ? errors : null)
        }
        for descriptor in [inputPipe.0, output.write] where descriptor >= 0 { Descriptors.closeQuietly(descriptor) }
        outputPipe = captureOutput && output.read >= 0 ? output.read : nil
        let child: Int32
        switch spawned {
        case .success(let started) where inputPipe.0 >= 0 || input == nil: child = started
        default:
            self.pid = nil
            let reason: String
            if case .failure(let error) = spawned { reason = error.reason } else { reason = madeError?.reason ?? "" }
            failure = " (cannot start it: \(reason))"
            if inputPipe.1 >= 0 { Descriptors.closeQuietly(inputPipe.1) }
            return
        }
        pid = child
        if let input, inputPipe.1 >= 0 {
            Self.writeAll(input, to: inputPipe.1)
            Descriptors.closeQuietly(inputPipe.1)
        }
    }

    /// Writes `bytes` whole to `fd` (a tool that quits early makes the write fail: EPIPE, never SIGPIPE).
    static func writeAll(_ bytes: [UInt8], to fd: Int32) {
        try? Descriptors.sendAll(fd, bytes)
    }

    /// Waits for the tool (killed after ``deadline``) and says how it ended.
    func wait() -> Clipboard.Outcome {
        defer {
            if let outputPipe { Descriptors.closeQuietly(outputPipe) }
            if errorFile >= 0 { Descriptors.closeQuietly(errorFile) }
        }
        guard let pid else { return Clipboard.Outcome(status: -1, output: [], reason: failure ?? "") }
        let end = ContinuousClock.now + Self.deadline
        var output: [UInt8] = []
        if let outputPipe {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while ContinuousClock.now < end {
                let left = end - ContinuousClock.now
                guard (try? Descriptors.waitReadable(outputPipe, timeoutMilliseconds: Int32(left.components.seconds * 1000 + 1))) == true else { break }
                let count = (try? buffer.withUnsafeMutableBytes { raw in try Descriptors.read(outputPipe, into: raw) }) ?? -1
                if count <= 0 { break }
                output += buffer[0..<count]
            }
            for index in buffer.indices { buffer[index] = 0 }
        }
        var ended: WaitStatus
        while true {
            do {
                if let status = try Processes.reapIfEnded(pid) {
                    ended = status
                    break
                }
            } catch {
                return Clipboard.Outcome(status: -1, output: [], reason: "")
            }
            if ContinuousClock.now >= end {
                try? Signals.send(.kill, to: pid)
                Processes.reap(pid)
                return Clipboard.Outcome(status: -1, output: [], reason: " (it did not finish within \(Self.deadline.components.seconds) s)")
            }
            SystemClock.sleep(milliseconds: 5)
        }
        let code = ended.exited ? ended.exitStatus : 128 + ended.terminationSignal
        return Clipboard.Outcome(status: code, output: output, reason: code == 0 ? "" : " (exit \(code))\(errorText)")
    }

    /// What the tool wrote to its error output (its first 500 bytes, one line), after ": ".
    private var errorText: String {
        guard errorFile >= 0 else { return "" }
        var buffer = [UInt8](repeating: 0, count: 500)
        let count = (try? buffer.withUnsafeMutableBytes { raw in try Descriptors.read(errorFile, at: 0, into: raw) }) ?? -1
        guard count > 0 else { return "" }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
            .split(whereSeparator: \.isNewline).joined(separator: "; ")
        return text.isEmpty ? "" : ": " + DisplayText.escaped(text, keepingNewlines: false)
    }
}
