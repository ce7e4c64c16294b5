/// ArgumentParser's message for a command line it refused, without the values of its arguments.
///
/// ArgumentParser quotes what it could not use: "Unexpected argument 'otpauth://totp/a?secret=…'",
/// "The value 'x' is invalid for '--length <n>'", "Unknown option '-x9abc'". A secret passed as an
/// argument by mistake would be printed again, to a terminal that may be recorded or shared. So every
/// argument is replaced by its position (`#2`: the second argument after the program's name), except
/// the words autofill-vault defines itself: command names and option names of the usual shape
/// (`--password-stdin`, `-h`; a misspelt one like `--pasword-stdin` too, so ArgumentParser's "Did you
/// mean" still helps). Should any other argument still appear in the message, a generic one replaces it.
struct ArgumentErrorText {
    /// The arguments after the program's name.
    let arguments: [String]
    /// The names of autofill-vault's commands, which may be repeated.
    let commandNames: Set<String>

    /// What to print instead of ArgumentParser's `message`.
    struct Redacted: Equatable {
        /// The message, with argument values replaced by their positions.
        var message: String
        /// Whether anything was replaced (then the user is told why).
        var replaced: Bool
    }

    /// The note printed after a message in which arguments were replaced.
    static let note = """
        (#N is the Nth argument after autofill-vault: arguments are not repeated in errors. Secrets \
        (master passwords, passwords, otpauth:// URIs and Base32 secrets) are read from standard input or \
        the terminal, never from arguments: other users can see a command line while it runs.)
        """

    /// `message` with each argument that is not a command or option name replaced by its position.
    func redacting(_ message: String) -> Redacted {
        let values = self.values
        var text = message
        for value in values.sorted(by: { $0.text.count > $1.text.count }) {
            text = text.replacing("'\(value.text)'", with: "#\(value.position)")
        }
        // "Invalid option: ---x", "Invalid option: -!" (one character of a group such as "-a!b"):
        // ArgumentParser names these unquoted, always from the first argument it could not split.
        let invalid = "Invalid option: "
        if text.hasPrefix(invalid) {
            let named = text.dropFirst(invalid.count).drop(while: { $0 == "-" })
            if let value = values.first(where: { $0.text.hasPrefix("-") && $0.text.contains(named) }) {
                text = "\(invalid)#\(value.position)"
            }
        }
        // Anything of four characters or more still in the message gives up the specific message.
        if values.contains(where: { $0.text.count >= 4 && text.contains($0.text) }) {
            text = "autofill-vault cannot use this command line"
        }
        return Redacted(message: text, replaced: text != message)
    }

    /// The texts that may be secret, with their positions (from 1): every argument that is not a
    /// command or option name, and the value of `--name=value`.
    var values: [(text: String, position: Int)] {
        var values: [(text: String, position: Int)] = []
        for (offset, argument) in arguments.enumerated() where !argument.isEmpty {
            let position = offset + 1
            if Self.isOptionName(argument) || commandNames.contains(argument) { continue }
            values.append((argument, position))
            if let equals = argument.firstIndex(of: "="), Self.isOptionName(String(argument[..<equals])) {
                let value = String(argument[argument.index(after: equals)...])
                if !value.isEmpty { values.append((value, position)) }
            }
        }
        return values
    }

    /// Whether `text` is shaped like an option name: `--` and lowercase letters, digits and hyphens
    /// (starting with a letter), `-` and one letter or digit, or `--` itself.
    static func isOptionName(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        if text == "--" { return true }
        if scalars.count == 2, scalars[0] == "-" { return ("a"..."z").contains(scalars[1]) || ("A"..."Z").contains(scalars[1]) || ("0"..."9").contains(scalars[1]) }
        guard scalars.count >= 3, scalars.count <= 40, scalars[0] == "-", scalars[1] == "-", ("a"..."z").contains(scalars[2]) else {
            return false
        }
        return scalars.dropFirst(2).allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}
