internal import AutofillCore
internal import Synchronization

/// Which provider answered what, request by request (`--trace`). Never holds a secret: outcomes
/// are recorded as credentials print, which is `<REDACTED>` for every secret. Each entry also goes
/// to `onEntry` as it is recorded, so a trace shows what happened before a command hangs or asks.
public final class RequestTrace: Sendable {
    /// One request and its outcome.
    public struct Entry: Sendable, Encodable, CustomStringConvertible {
        public let provider: String
        public let providerName: String
        public let entryPoint: String
        public let outcome: String
        public let milliseconds: Double

        public var description: String {
            "\(providerName) (\(provider)) \(entryPoint) → \(outcome) [\(String(format3: milliseconds)) ms]"
        }
    }

    private let entries = Mutex<[Entry]>([])
    private let onEntry: (@Sendable (Entry) -> Void)?

    /// A trace that keeps its entries, and hands each to `onEntry` as it is recorded.
    public init(onEntry: (@Sendable (Entry) -> Void)? = nil) {
        self.onEntry = onEntry
    }

    /// Every request so far, in order.
    public var all: [Entry] { entries.withLock { $0 } }

    func record(_ manifest: PluginManifest, _ entryPoint: EntryPoint, _ outcome: ProviderOutcome, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        append(Entry(provider: manifest.identifier, providerName: manifest.displayName, entryPoint: entryPoint.appleName,
                     outcome: outcome.description, milliseconds: milliseconds))
    }

    func note(_ manifest: PluginManifest, _ step: String, _ outcome: String) {
        append(Entry(provider: manifest.identifier, providerName: manifest.displayName, entryPoint: step, outcome: outcome, milliseconds: 0))
    }

    private func append(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
        onEntry?(entry)
    }
}

extension String {
    /// A number with at most three decimals.
    init(format3 value: Double) {
        let scaled = (value * 1000).rounded() / 1000
        self = scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
    }
}
