import AutofillCore
import AutofillHost
import AutofillWire
import FoundationEssentials
import Logging
import Synchronization

// Every command writes through the console of the client it serves (ClientContext): this process's
// descriptors 1 and 2 when autofill runs a command itself, the client's when the agent does. These
// shadow Swift's `print` in this module, so no command can write to the agent's own stdout by mistake.

/// Prints to the client's standard output.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    ClientContext.current.console.write(items.map { "\($0)" }.joined(separator: separator) + terminator, to: .output)
}

/// Prints `text` and a newline to the client's standard output (``print(_:separator:terminator:)``
/// for types with a `print` of their own).
func printLine(_ text: String) {
    ClientContext.current.console.write(text + "\n", to: .output)
}

/// Writes a line to the client's stderr, control characters and escape sequences escaped
/// (``DisplayText``): the host made provider text safe where it entered, and this is the second line
/// of defence.
func printError(_ text: String) {
    ClientContext.current.console.write(DisplayText.escaped(text, keepingNewlines: true) + "\n", to: .error)
}

/// A progress line on the client's stderr when that is a terminal (nil otherwise: never in a pipe or a
/// file).
func progressLine() -> ProgressLine? {
    let console = ClientContext.current.console
    guard console.isTerminal(.error) else { return nil }
    return ProgressLine { console.write($0, to: .error) }
}

/// Runs `body` with `progress` (when there is one) showing `label` while it takes over half a second.
func showingProgress<Result>(_ progress: ProgressLine?, _ label: String, _ body: () async throws -> Result) async rethrows -> Result {
    guard let progress else { return try await body() }
    return try await progress.during(label, body)
}

/// Prints `value` as pretty, key-sorted JSON on stdout.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Log lines on the stderr of the client whose request logs them (a line logged outside any request,
/// such as a provider's log line read by the agent's helper thread, goes to this process's stderr),
/// at the level that client asked for.
struct ConsoleLogHandler: LogHandler {
    /// This process's own level (`--verbose` of a command run in process; the agent's own flag).
    static let processLevel = Mutex(Logger.Level.warning)
    private static let bootstrapped = Mutex(false)

    let label: String
    var metadata: Logger.Metadata = [:]
    private var fixedLevel: Logger.Level?

    init(label: String) {
        self.label = label
    }

    /// Installs the handler once per process; later calls only set this process's level.
    static func bootstrap(level: Logger.Level) {
        let context = ClientContext.current
        guard !context.isAgentRequest else { return }  // the agent bootstrapped; the request's level is in its context
        processLevel.withLock { $0 = level }
        let first = bootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        if first { LoggingSystem.bootstrap { label in EscapingLogHandler(ConsoleLogHandler(label: label)) } }
    }

    var logLevel: Logger.Level {
        get {
            if let fixedLevel { return fixedLevel }
            let context = ClientContext.current
            return context.isAgentRequest ? context.logLevel : Self.processLevel.withLock { $0 }
        }
        set { fixedLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        ClientContext.current.console.write("\(event.level) \(label):\(fields) \(event.message)\n", to: .error)
    }
}
