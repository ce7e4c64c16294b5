internal import AutofillWire
internal import AutofillSystem
internal import FoundationEssentials
public import Logging
internal import Synchronization

/// Who the request being served is for: its environment, its standard output and error, its
/// terminal, whether it is still connected, and the providers kept warm for it.
///
/// A command run by `autofill` in its own process sees ``process``: this process's environment, its
/// descriptors 1 and 2, and the controlling terminal. A command the agent runs for a client
/// (``AgentServer``) sees the client's: the environment it sent, the descriptors and terminal it
/// passed with the request, and a ``RequestCancellation`` that fires when it disconnects. The
/// command code is the same either way; only this value differs (a task-local, so concurrent
/// clients of the agent never see each other's).
public struct ClientContext: Sendable {
    /// The client's environment (the variables it sent; ``process``: all of this process's).
    public var environment: [String: String]
    /// Where the client's standard output and error go.
    public var console: Console
    /// A descriptor of the client's terminal when the agent serves it (nil: none was passed); unused
    /// in the CLI's own process, which opens its controlling terminal (`/dev/tty`).
    public var terminal: Int32?
    /// Fires when the client goes away mid-request (nil in the CLI's own process).
    public var cancellation: RequestCancellation?
    /// The providers kept running between requests (the agent's), or nil: each command launches its own.
    public var pool: ProviderPool?
    /// The log level the client asked for (`--verbose`: debug).
    public var logLevel: Logger.Level

    /// Whether this request is served by the agent for a client (not the CLI's own process).
    public var isAgentRequest: Bool { pool != nil }

    /// Creates a context.
    public init(environment: [String: String], console: Console, terminal: Int32? = nil,
                cancellation: RequestCancellation? = nil, pool: ProviderPool? = nil, logLevel: Logger.Level = .warning) {
        self.environment = environment
        self.console = console
        self.terminal = terminal
        self.cancellation = cancellation
        self.pool = pool
        self.logLevel = logLevel
    }

    /// This process's own: its environment, descriptors 1 and 2, its controlling terminal.
    public static let process = ClientContext(environment: ProcessInfo.processInfo.environment, console: .standard)

    /// The context of the request this task serves.
    @TaskLocal public static var current: ClientContext = .process
}

/// A client's standard output and error, written with write(2) (no C stdio: not concurrency-safe).
///
/// The agent's consoles own descriptors it received from a client; ``close()`` ends them when the
/// request ends, and a write after that is dropped, never sent to whatever reuses the number.
public final class Console: Sendable {
    /// Which stream.
    public enum Stream: Sendable { case output, error }

    private let descriptors: Mutex<(output: Int32, error: Int32)?>
    /// The client's standard input (read by `passkey` for options on stdin).
    public let input: Int32
    private let owned: Bool

    /// A console on `input`, `output` and `error`; with `owned`, ``close()`` closes them.
    public init(input: Int32, output: Int32, error: Int32, owned: Bool) {
        descriptors = Mutex((output, error))
        self.input = input
        self.owned = owned
    }

    /// This process's descriptors 0, 1 and 2.
    public static let standard = Console(input: 0, output: 1, error: 2, owned: false)

    /// Writes `text` whole (retrying short writes and EINTR); false when it could not.
    @discardableResult
    public func write(_ text: String, to stream: Stream) -> Bool {
        let bytes = Array(text.utf8)
        return descriptors.withLock { descriptors in
            guard let descriptors else { return false }
            let fd = stream == .output ? descriptors.output : descriptors.error
            return (try? Descriptors.write(fd, bytes)) != nil
        }
    }

    /// Whether `stream` is a terminal.
    public func isTerminal(_ stream: Stream) -> Bool {
        descriptors.withLock { descriptors in
            guard let descriptors else { return false }
            return Descriptors.isTerminal(stream == .output ? descriptors.output : descriptors.error)
        }
    }

    /// The size of the terminal `stream` writes to (TIOCGWINSZ on the client's own descriptor, which
    /// the agent received), or nil when it is no terminal or does not say.
    public func terminalSize(_ stream: Stream) -> (rows: Int, columns: Int)? {
        descriptors.withLock { descriptors in
            guard let descriptors else { return nil }
            let fd = stream == .output ? descriptors.output : descriptors.error
            guard Descriptors.isTerminal(fd) else { return nil }
            let rows = TerminalSize.rows(fd), columns = TerminalSize.columns(fd)
            return rows > 0 && columns > 0 ? (rows, columns) : nil
        }
    }

    /// Ends the console: owned descriptors are closed, later writes dropped.
    public func close() {
        descriptors.withLock { descriptors in
            if let open = descriptors, owned {
                Descriptors.closeQuietly(open.output)
                Descriptors.closeQuietly(open.error)
                Descriptors.closeQuietly(input)
            }
            descriptors = nil
        }
    }
}

/// Fires once when a client of the agent goes away mid-request: a descriptor to poll beside a
/// terminal read (``descriptor``), and a flag.
public final class RequestCancellation: Sendable {
    private let pipe: (read: Int32, write: Int32)
    private let fired = Atomic<Bool>(false)

    /// Creates one (a close-on-exec pipe).
    public init() {
        pipe = (try? Descriptors.pipe()) ?? (-1, -1)
    }

    deinit {
        Descriptors.closeQuietly(pipe.read)
        Descriptors.closeQuietly(pipe.write)
    }

    /// Readable once ``cancel()`` ran.
    public var descriptor: Int32 { pipe.read }

    /// Whether it fired.
    public var isCanceled: Bool { fired.load(ordering: .acquiring) }

    /// Fires (once).
    public func cancel() {
        guard !fired.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = try? Descriptors.write(pipe.write, [1])
    }
}
