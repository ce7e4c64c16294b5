internal import AutofillSystem
internal import Synchronization

/// A spinner and the time elapsed, on one line of a terminal, for work that takes a while (unlocking
/// a vault, whose key derivation is slow on purpose; an import; a sync).
///
/// Nothing is drawn for the first ``threshold`` (half a second): quick work shows nothing. The line
/// is redrawn in place (`\r`, erase to the end of the line) and erased when the work ends, so what the
/// command prints afterwards starts on a clean line. While the work asks the user something
/// (``interacting(_:)``: a master-password prompt), the line is erased and the clock starts again
/// after the answer. The caller decides where it is written and creates one only for a terminal:
/// progress never appears in a pipe or a file.
package final class ProgressLine: Sendable {
    /// How long work runs before the line appears.
    package static let threshold: Duration = .milliseconds(500)
    /// How often the line is redrawn.
    static let interval: Duration = .milliseconds(100)
    private static let frames = ["|", "/", "-", "\\"]

    private struct State {
        var label: String?
        var since = ContinuousClock.now
        var interacting = 0
        var drawn = false
        var frame = 0
        /// Counts ``during(_:_:)`` calls: a ticker thread ends when its own is over.
        var generation = 0
    }

    private let write: @Sendable (String) -> Void
    private let state = Mutex(State())

    /// The line of the work running now on this task (or thread), set by ``during(_:_:)``: a question
    /// asked at the terminal from inside that work, by code that was never handed the line (a
    /// provider's approval while `providers sync` runs), erases it through ``interacting(_:)`` too.
    @TaskLocal package static var current: ProgressLine?

    /// A progress line that writes with `write` (to a terminal's stream).
    package init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// Runs `body` with the line labelled `label` ("Unlocking Vault") shown once it takes over
    /// ``threshold``; erases it afterwards.
    package func during<Result>(_ label: String, _ body: () throws -> Result) rethrows -> Result {
        let generation = begin(label)
        defer { end(generation) }
        return try Self.$current.withValue(self) { try body() }
    }

    /// ``during(_:_:)`` for async work.
    package func during<Result>(_ label: String, _ body: () async throws -> Result) async rethrows -> Result {
        let generation = begin(label)
        defer { end(generation) }
        return try await Self.$current.withValue(self) { try await body() }
    }

    /// Runs `body`, which talks to the user at the same terminal, with the line erased; the half
    /// second starts again afterwards.
    package func interacting<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
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

    /// Starts the work's clock and a thread of its own that redraws the line (a thread, not a task:
    /// the work may hold every thread of Swift's shared pool).
    private func begin(_ label: String) -> Int {
        let generation = state.withLock { state in
            state.label = label
            state.since = ContinuousClock.now
            state.generation += 1
            return state.generation
        }
        _ = startDetachedThread { [self] in
            while true {
                SystemClock.sleep(milliseconds: Int(Self.interval.components.attoseconds / 1_000_000_000_000_000))
                guard tick(generation) else { return }
            }
        }
        return generation
    }

    private func end(_ generation: Int) {
        state.withLock { state in
            if state.drawn { write("\r\u{1B}[K") }
            state.label = nil
            state.drawn = false
            state.generation += 1
        }
    }

    /// Redraws the line (under the lock, so an erase never comes before a late draw); false once the
    /// work of `generation` is over.
    private func tick(_ generation: Int) -> Bool {
        state.withLock { state in
            guard state.generation == generation, let label = state.label else { return false }
            guard state.interacting == 0 else { return true }
            let elapsed = ContinuousClock.now - state.since
            guard elapsed >= Self.threshold else { return true }
            state.drawn = true
            state.frame = (state.frame + 1) % Self.frames.count
            let tenths = elapsed.components.seconds * 10 + elapsed.components.attoseconds / 100_000_000_000_000_000
            write("\r\u{1B}[K\(Self.frames[state.frame]) \(label)… \(tenths / 10).\(tenths % 10) s")
            return true
        }
    }
}
