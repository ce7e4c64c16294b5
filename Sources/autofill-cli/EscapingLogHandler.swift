import AutofillCore
import Logging

/// A log handler that escapes control characters, escape sequences and bidi controls in every
/// message and metadata value (``DisplayText``) before the handler it wraps writes them: log lines
/// carry provider text, and none of it may drive the user's terminal or start a line of its own.
/// The host escaped provider text where it entered; this is the second line of defence.
struct EscapingLogHandler: LogHandler {
    private var wrapped: any LogHandler

    init(_ wrapped: any LogHandler) {
        self.wrapped = wrapped
    }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(DisplayText.escaped(event.message.description, keepingNewlines: true))"
        event.metadata = event.metadata?.mapValues { .string(DisplayText.escaped($0.description, keepingNewlines: false)) }
        wrapped.log(event: event)
    }
}
