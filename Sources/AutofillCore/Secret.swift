/// A secret value (password, one-time code, text to insert) that never prints.
///
/// `description`, `debugDescription` and string interpolation all give
/// `<REDACTED>`. Read ``revealed`` only where the user asked for the secret.
public struct Secret: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    private let value: String

    /// Wraps a secret value.
    public init(_ value: String) {
        self.value = value
    }

    /// The secret itself. Use it only to hand the secret to the user who asked for it.
    public var revealed: String { value }

    /// Whether the secret is the empty string.
    public var isEmpty: Bool { value.isEmpty }

    public var description: String { "<REDACTED>" }
    public var debugDescription: String { "Secret(<REDACTED>)" }
}

extension Secret: CustomReflectable {
    public var customMirror: Mirror { Mirror(self, children: ["value": "<REDACTED>"]) }
}
