internal import AutofillSystem

/// A client's environment as its `environ` lists it: "NAME=value" entries, in order.
///
/// The small client reads a variable or two and sends the rest to the agent, which makes a
/// dictionary of it. Kept as the list: a `[String: String]` in the client costs every `autofill`
/// the Swift runtime's building of the dictionary's generic metadata (demangled from its mangled
/// name, with String's Hashable conformance looked up among every conformance in the executable),
/// a measurable part of a fill's start (docs/PERFORMANCE.md, Run R). Read as a dictionary built in
/// order would read it: an entry without `=` is not a variable, and of two entries with one name the
/// later counts.
package struct ClientEnvironment {
    /// The entries, "NAME=value", in `environ`'s order.
    package let entries: [String]

    /// The environment of these entries.
    package init(entries: [String]) {
        self.entries = entries
    }

    /// This process's environment.
    package static func current() -> ClientEnvironment {
        ClientEnvironment(entries: Processes.environment())
    }

    /// The value of variable `name` (its last entry), or nil.
    package subscript(name: String) -> String? {
        var value: String?
        forEachVariable { key, text in
            if key == name { value = String(text) }
        }
        return value
    }

    /// The variables as a dictionary.
    package var variables: [String: String] {
        var result: [String: String] = [:]
        forEachVariable { key, value in result[String(key)] = String(value) }
        return result
    }

    /// Calls `body` with each entry's name and value, in order (entries without `=` left out).
    package func forEachVariable(_ body: (Substring, Substring) -> Void) {
        for text in entries {
            if let equals = text.firstIndex(of: "=") {
                body(text[..<equals], text[text.index(after: equals)...])
            }
        }
    }

    /// How many entries ``forEachVariable(_:)`` visits.
    package var variableCount: Int {
        var count = 0
        forEachVariable { _, _ in count += 1 }
        return count
    }
}
