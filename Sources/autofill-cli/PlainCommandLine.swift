import ArgumentParser

/// A leaf command's command line of the plain shape, read without ArgumentParser: the commands a warm
/// agent runs most (`fill SITE --user NAME`, `suggest SITE`).
///
/// ArgumentParser makes a command's argument definitions by reflection at every parse (more than once:
/// again for `includesAllUnrecognizedArgument`), and keeps no cache of them: ≈ 17 % of the agent's CPU
/// for a warm fill (docs/PERFORMANCE.md). So the command is parsed once the full way from a template
/// command line (its one positional argument alone), which gives every property its default, and a
/// command line of the plain shape is that template with the values it names set:
/// - exactly one positional argument (the site), not empty and not starting with `-`;
/// - options from ``entries`` by their exact names, each at most once, their values not empty, not
///   starting with `-`, and converted by the value type's own `init(argument:)` as ArgumentParser does;
/// - the command's `validate()` passes.
///
/// Anything else (`--user=NAME`, `-vj`, `--`, a repeated option, an option not in the table, a value
/// that does not convert, help, a failed validation) returns nil, and ``Autofill/parse(_:)`` parses the
/// full way, so every message a user sees is ArgumentParser's. A debug build parses every command line
/// the full way too and stops if the two differ (``check(_:_:)``), so the tests prove the table.
struct PlainCommandLine<Command: ParsableCommand>: @unchecked Sendable {
    // @unchecked: the template is a parsed command (strings, numbers and enums in value-type wrappers);
    // it is only ever copied, and the entries' closures capture nothing but key paths.

    /// An option or a flag of the plain shape and where its value goes.
    struct Entry {
        let names: [String]
        let takesValue: Bool
        /// Sets the value (a flag ignores it); false when it does not convert.
        let set: (inout Command, String) -> Bool

        /// `--name VALUE` into `path`.
        static func option<Value: ExpressibleByArgument>(_ name: String, _ path: WritableKeyPath<Command, Value?>) -> Entry {
            Entry(names: [name], takesValue: true) { command, text in
                guard let value = Value(argument: text) else { return false }
                command[keyPath: path] = value
                return true
            }
        }

        /// `--name VALUE` into `path`, which has a default.
        static func option<Value: ExpressibleByArgument>(_ name: String, _ path: WritableKeyPath<Command, Value>) -> Entry {
            Entry(names: [name], takesValue: true) { command, text in
                guard let value = Value(argument: text) else { return false }
                command[keyPath: path] = value
                return true
            }
        }

        /// A flag (any of `names`) that sets `path`.
        static func flag(_ names: String..., path: WritableKeyPath<Command, Bool>) -> Entry {
            Entry(names: names, takesValue: false) { command, _ in
                command[keyPath: path] = true
                return true
            }
        }
    }

    private let template: Command
    private let positional: WritableKeyPath<Command, String>
    private let entries: [String: Entry]

    /// The command parsed from the template command line; nil if that fails (then nothing is parsed here).
    init?(positional: WritableKeyPath<Command, String>, entries: [Entry]) {
        guard let parsed = try? Command.parseAsRoot(["template"]) as? Command else { return nil }
        template = parsed
        self.positional = positional
        var byName: [String: Entry] = [:]
        for entry in entries { for name in entry.names { byName[name] = entry } }
        self.entries = byName
    }

    /// `arguments` (after the command's name) as the command, or nil when they are not of the plain shape.
    func parse(_ arguments: ArraySlice<String>) -> Command? {
        var command = template
        var seen = Set<String>()
        var sawPositional = false
        var rest = arguments[...]
        while let token = rest.popFirst() {
            guard !token.isEmpty else { return nil }
            guard token.hasPrefix("-") else {
                guard !sawPositional else { return nil }
                sawPositional = true
                command[keyPath: positional] = token
                continue
            }
            guard let entry = entries[token], seen.insert(entry.names[0]).inserted else { return nil }
            let value = entry.takesValue ? rest.popFirst() : ""
            guard let value, !entry.takesValue || (!value.isEmpty && !value.hasPrefix("-")), entry.set(&command, value) else { return nil }
        }
        guard sawPositional, (try? command.validate()) != nil else { return nil }
        #if DEBUG
        Self.check(command, arguments)
        #endif
        return command
    }

    /// Stops the program when `command`, read from `arguments` by ``parse(_:)``, is not what
    /// ArgumentParser makes of them: called in debug builds only.
    static func check(_ command: Command, _ arguments: ArraySlice<String>) {
        var plain = "", full = ""
        dump(command, to: &plain)
        if let parsed = try? Command.parseAsRoot(Array(arguments)) { dump(parsed, to: &full) }
        precondition(plain == full, "the plain parse of \(Array(arguments)) differs from ArgumentParser's:\n\(plain)\nagainst\n\(full)")
    }
}

extension Autofill {
    /// The plain command lines the agent runs most: `fill` and `suggest`.
    static let plainFill = PlainCommandLine<FillCommand>(positional: \.service, entries: [
        .option("--config", \.global.config), .flag("-v", "--verbose", path: \.global.verbose),
        .option("--user", \.user), .option("--pick", \.pick), .option("--type", \.type), .option("--format", \.format),
        .option("--provider", \.provider), .flag("--name", path: \.name), .flag("--list", path: \.list),
        .flag("--fallback", path: \.fallback), .flag("--json", path: \.json),
    ])
    static let plainSuggest = PlainCommandLine<SuggestCommand>(positional: \.service, entries: [
        .option("--config", \.global.config), .flag("-v", "--verbose", path: \.global.verbose),
        .option("--type", \.type), .option("--limit", \.limit), .flag("--name", path: \.name), .flag("--json", path: \.json),
    ])

    /// `arguments` parsed as a plain `fill` or `suggest` command line, or nil (``PlainCommandLine``).
    static func parsePlain(_ arguments: [String]) -> (any ParsableCommand)? {
        let rest = arguments.dropFirst()
        switch arguments.first {
        case "fill": return plainFill?.parse(rest)
        case "suggest": return plainSuggest?.parse(rest)
        default:
            return nil
        }
    }
}
