internal import AutofillCore
internal import AutofillWire
internal import CAutofillSystem
internal import Glibc

/// One run of a clipboard tool: started with `input` on a socket (a pipe's write could raise SIGPIPE), its error output in memory (a memfd:
/// `xclip` and `xsel` fork a process that keeps serving the clipboard and keeps their descriptors, so
/// nothing here waits for those to close), its output read when asked for.
struct ToolProcess {
    private let pid: pid_t?
    private let outputPipe: Int32?
    private let errorFile: Int32
    private let name: String
    private var failure: String?

    /// The longest a tool may take.
    static let deadline: Duration = .seconds(10)

    init(path: String, arguments: [String], environment: [String: String], input: [UInt8]?, captureOutput: Bool) {
        name = arguments[0]
        let errors = afsys_memfd("clipboard-tool-errors")
        errorFile = errors
        var inputPipe: [Int32] = [-1, -1], output: [Int32] = [-1, -1]
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        if input != nil, afsys_socketpair(&inputPipe) != 0 { inputPipe = [-1, -1] }  // send(MSG_NOSIGNAL): no SIGPIPE
        if captureOutput, afsys_pipe(&output, 0) != 0 { output = [-1, -1] }
        let variables = environment.map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let status = withCStrings([path] + arguments.dropFirst()) { argv in
            withCStrings(variables) { envp in
                afsys_spawn_program(path, argv, envp, input == nil ? null : inputPipe[0], captureOutput ? output[1] : null,
                                  errors >= 0 ? errors : null, -1, &child)
            }
        }
        for descriptor in [inputPipe[0], output[1]] where descriptor >= 0 { close(descriptor) }
        outputPipe = captureOutput && output[0] >= 0 ? output[0] : nil
        if status != 0 || inputPipe[0] < 0 && input != nil {
            self.pid = nil
            failure = " (cannot start it: \(String(cString: strerror(status == 0 ? errno : status))))"
            if inputPipe[1] >= 0 { close(inputPipe[1]) }
            return
        }
        pid = child
        if let input, inputPipe[1] >= 0 {
            Self.writeAll(input, to: inputPipe[1])
            close(inputPipe[1])
        }
    }

    /// Writes `bytes` whole to `fd` (a tool that quits early makes the write fail: EPIPE, never SIGPIPE).
    static func writeAll(_ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { afsys_send(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Waits for the tool (killed after ``deadline``) and says how it ended.
    func wait() -> Clipboard.Outcome {
        defer {
            if let outputPipe { close(outputPipe) }
            if errorFile >= 0 { close(errorFile) }
        }
        guard let pid else { return Clipboard.Outcome(status: -1, output: [], reason: failure ?? "") }
        let end = ContinuousClock.now + Self.deadline
        var output: [UInt8] = []
        if let outputPipe {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while ContinuousClock.now < end {
                let left = end - ContinuousClock.now
                guard afsys_wait_readable(outputPipe, Int32(left.components.seconds * 1000 + 1)) == 1 else { break }
                let count = read(outputPipe, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                output += buffer[0..<count]
            }
            for index in buffer.indices { buffer[index] = 0 }
        }
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { return Clipboard.Outcome(status: -1, output: [], reason: "") }
            if ContinuousClock.now >= end {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return Clipboard.Outcome(status: -1, output: [], reason: " (it did not finish within \(Self.deadline.components.seconds) s)")
            }
            usleep(5_000)
        }
        let code = afsys_exited(status) != 0 ? afsys_exit_status(status) : 128 + afsys_term_signal(status)
        return Clipboard.Outcome(status: code, output: output, reason: code == 0 ? "" : " (exit \(code))\(errorText)")
    }

    /// What the tool wrote to its error output (its first 500 bytes, one line), after ": ".
    private var errorText: String {
        guard errorFile >= 0, lseek(errorFile, 0, SEEK_SET) == 0 else { return "" }
        var buffer = [UInt8](repeating: 0, count: 500)
        let count = read(errorFile, &buffer, buffer.count)
        guard count > 0 else { return "" }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
            .split(whereSeparator: \.isNewline).joined(separator: "; ")
        return text.isEmpty ? "" : ": " + DisplayText.escaped(text, keepingNewlines: false)
    }
}
