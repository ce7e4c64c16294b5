import Synchronization

/// A spinner and the time elapsed, on one line of a terminal, for work that takes a while (unlocking
/// a vault, whose key derivation is slow on purpose; an import; a sync).
///
/// Nothing is drawn for the first ``threshold`` (half a second): quick work shows nothing. The line
/// is redrawn in place (`\r`, erase to the end of the line) and erased when the work ends, so what the
/// command prints afterwards starts on a clean line. While the work asks the user something
/// (``interacting(_:)``: a master-password prompt), the line is erased and the clock starts again
/// after the answer. The caller decides where it is written and creates one only for a terminal:
/// progress never appears in a pipe or a file.
public final class ProgressLine: Sendable {
    /// How long work runs before the line appears.
    public static let threshold: Duration = .milliseconds(500)
    /// How often the line is redrawn.
    static let interval: Duration = .milliseconds(100)
    private static let frames = ["|", "/", "-", "\\"]

    private struct State {
        var label: String?
        var since = ContinuousClock.now
        var interacting = 0
        var drawn = false
        var frame = 0
    }

    private let write: @Sendable (String) -> Void
    private let state = Mutex(State())

    /// A progress line that writes with `write` (to a terminal's stream).
    public init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// Runs `body` with the line labelled `label` ("Unlocking Vault") shown once it takes over
    /// ``threshold``; erases it afterwards.
    public func during<Result>(_ label: String, _ body: () throws -> Result) rethrows -> Result {
        let ticker = begin(label)
        defer { end(ticker) }
        return try body()
    }

    /// ``during(_:_:)`` for async work.
    public func during<Result>(_ label: String, _ body: () async throws -> Result) async rethrows -> Result {
        let ticker = begin(label)
        defer { end(ticker) }
        return try await body()
    }

    /// Runs `body`, which talks to the user at the same terminal, with the line erased; the half
    /// second starts again afterwards.
    public func interacting<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        state.withLock { state in
            state.interacting += 1
            if state.drawn { write("\r\u{1B}[K") }
            state.drawn = false
        }
        defer {
            state.withLock { state in
                state.interacting -= 1
                state.since = ContinuousClock.now
            }
        }
        return try body()
    }

    private func begin(_ label: String) -> Task<Void, Never> {
        state.withLock { state in
            state.label = label
            state.since = ContinuousClock.now
        }
        return Task.detached { [self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.interval)
                tick()
            }
        }
    }

    private func end(_ ticker: Task<Void, Never>) {
        ticker.cancel()
        state.withLock { state in
            if state.drawn { write("\r\u{1B}[K") }
            state.label = nil
            state.drawn = false
        }
    }

    /// Redraws the line (under the lock, so an erase never comes before a late draw).
    private func tick() {
        state.withLock { state in
            guard let label = state.label, state.interacting == 0 else { return }
            let elapsed = ContinuousClock.now - state.since
            guard elapsed >= Self.threshold else { return }
            state.drawn = true
            state.frame = (state.frame + 1) % Self.frames.count
            let tenths = elapsed.components.seconds * 10 + elapsed.components.attoseconds / 100_000_000_000_000_000
            write("\r\u{1B}[K\(Self.frames[state.frame]) \(label)… \(tenths / 10).\(tenths % 10) s")
        }
    }
}
