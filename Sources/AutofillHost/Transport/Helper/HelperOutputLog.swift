internal import AutofillCore
internal import Logging

/// What a helper's plugin writes to its stdout and stderr, cut into lines for the provider's log
/// (``HostServicesHandler/printed(_:level:)``: the same per-request budget as its log lines).
///
/// A plugin's output is not the host's: in a helper it can never reach the host's stdout (where
/// only a secret the user asked for goes) nor the protocol socket. stderr lines are logged as
/// warnings (diagnostics, as they were in-process), stdout lines as notices (shown with
/// `--verbose`). Each line is made safe to show (``DisplayText``: control characters and escape
/// sequences escaped) and cut at 1,000 characters; a helper's first 1,000 lines are kept
/// (``LineBudget/outputLinesPerHelper``) and the rest read and dropped, so a chatty plugin can neither flood the log,
/// nor drive the user's terminal, nor block on a pipe.
struct HelperOutputLog {
    static let maximumLineLength = DisplayText.lineLimit
    /// Bytes of one line kept before the cut: enough for `maximumLineLength` characters of any width.
    static let maximumLineBytes = 4 * maximumLineLength + 4

    enum Stream: String {
        case stdout, stderr
    }

    private let logger: Logger
    private let show: (ProviderLogLevel, String) -> Void
    private var pending: [Stream: [UInt8]] = [:]
    private var overflow: [Stream: Int] = [:]
    private var budget = LineBudget(maximum: LineBudget.outputLinesPerHelper)

    /// Lines go to `show`; what only the host says (lines dropped), to `logger`.
    init(logger: Logger, show: @escaping (ProviderLogLevel, String) -> Void) {
        self.logger = logger
        self.show = show
    }

    /// Takes bytes the plugin wrote to `stream`.
    mutating func append(_ bytes: UnsafeRawBufferPointer, from stream: Stream) {
        var buffer = pending[stream] ?? []
        var cut = overflow[stream] ?? 0
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                emit(buffer, cut: cut, stream)
                buffer.removeAll(keepingCapacity: true)
                cut = 0
            } else if buffer.count < Self.maximumLineBytes {
                buffer.append(byte)
            } else {
                cut += 1
            }
        }
        pending[stream] = buffer
        overflow[stream] = cut
    }

    /// Logs unfinished lines and how many were dropped (the helper ended).
    mutating func finish() {
        for stream in [Stream.stdout, .stderr] where !(pending[stream] ?? []).isEmpty {
            emit(pending[stream]!, cut: overflow[stream] ?? 0, stream)
            pending[stream] = []
            overflow[stream] = 0
        }
        let dropped = budget.takeDropped()
        if dropped > 0 {
            logger.warning("\(LineBudget.droppedMessage(dropped, "lines of its output", from: "the provider", maximum: budget.maximum))")
        }
    }

    private mutating func emit(_ line: [UInt8], cut: Int, _ stream: Stream) {
        guard budget.admit() else { return }
        let text = DisplayText.line(String(decoding: line, as: UTF8.self), limit: Self.maximumLineLength, alreadyCut: cut)
        switch stream {
        case .stderr: show(.warning, "the provider wrote to stderr: \(text)")
        case .stdout: show(.notice, "the provider wrote to stdout: \(text)")
        }
    }
}
