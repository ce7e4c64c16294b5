internal import Logging

/// What a helper's plugin writes to its stdout and stderr, cut into lines for the host's log.
///
/// A plugin's output is not the host's: in a helper it can never reach the host's stdout (where
/// only a secret the user asked for goes) nor the protocol socket. stderr lines are logged as
/// warnings (diagnostics, as they were in-process), stdout lines as notices (shown with
/// `--verbose`). Lines are cut at 1,000 characters and a helper's first 200 lines are kept;
/// the rest is read and dropped, so a chatty plugin can neither flood the log nor block on a pipe.
struct HelperOutputLog {
    static let maximumLines = 200
    static let maximumLineLength = 1000

    enum Stream: String {
        case stdout, stderr
    }

    private let logger: Logger
    private var pending: [Stream: [UInt8]] = [:]
    private var lines = 0
    private var dropped = 0

    init(logger: Logger) {
        self.logger = logger
    }

    /// Takes bytes the plugin wrote to `stream`.
    mutating func append(_ bytes: UnsafeRawBufferPointer, from stream: Stream) {
        var buffer = pending[stream] ?? []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                emit(buffer, stream)
                buffer.removeAll(keepingCapacity: true)
            } else if buffer.count < Self.maximumLineLength + 1 {
                buffer.append(byte)
            }
        }
        pending[stream] = buffer
    }

    /// Logs unfinished lines and how much was dropped (the helper ended).
    mutating func finish() {
        for stream in [Stream.stdout, .stderr] where !(pending[stream] ?? []).isEmpty {
            emit(pending[stream]!, stream)
            pending[stream] = []
        }
        if dropped > 0 {
            logger.warning("\(dropped) more lines of the provider's output were dropped (it wrote over \(Self.maximumLines))")
            dropped = 0
        }
    }

    private mutating func emit(_ line: [UInt8], _ stream: Stream) {
        guard lines < Self.maximumLines else {
            dropped += 1
            return
        }
        lines += 1
        var text = String(decoding: line.prefix(Self.maximumLineLength), as: UTF8.self)
        if line.count > Self.maximumLineLength { text += "…" }
        switch stream {
        case .stderr: logger.warning("the provider wrote to stderr: \(text)")
        case .stdout: logger.notice("the provider wrote to stdout: \(text)")
        }
    }
}
