import AutofillCompanion

/// Where the master password and new secrets come from: standard input (`--password-stdin`), one
/// per line, or the terminal.
final class SecretSource {
    let useStandardInput: Bool

    init(useStandardInput: Bool) {
        self.useStandardInput = useStandardInput
    }

    /// The master password.
    func masterPassword(for path: String) throws(CommandFailure) -> Secret {
        let password = try secret(prompt: "Master password for \(path): ", what: "the master password")
        guard !password.isEmpty else { throw CommandFailure(.badInput, "the master password is empty") }
        return password
    }

    /// A new master password: asked twice at the terminal; on standard input once, or twice when
    /// `confirmFromStandardInput` (`passwd`).
    func newMasterPassword(for path: String, confirmFromStandardInput: Bool = false) throws(CommandFailure) -> Secret {
        let password = try secret(prompt: "New master password for \(path): ", what: "the new master password")
        guard !password.isEmpty else { throw CommandFailure(.badInput, "the master password is empty; nothing was changed") }
        if !useStandardInput || confirmFromStandardInput {
            let again = try secret(prompt: "Repeat the new master password: ", what: "the new master password, repeated")
            guard again == password else { throw CommandFailure(.badInput, "the two new master passwords differ; nothing was changed") }
        }
        return password
    }

    /// A secret (not echoed at the terminal; the next line of standard input otherwise).
    func secret(prompt: String, what: String, confirm: Bool = false) throws(CommandFailure) -> Secret {
        if useStandardInput {
            guard let line = Swift.readLine(strippingNewline: true) else {
                throw CommandFailure(.badInput, "standard input ended before \(what) (--password-stdin reads one line for each secret)")
            }
            return Secret(line.hasSuffix("\r") ? String(line.dropLast()) : line)
        }
        let value = Secret(try Terminal.readLine(prompt: prompt, secret: true))
        if confirm {
            let again = Secret(try Terminal.readLine(prompt: "Repeat it: ", secret: true))
            guard again == value else { throw CommandFailure(.badInput, "the two entries of \(what) differ; nothing was changed") }
        }
        return value
    }

    /// Text (echoed at the terminal, one line; the rest of standard input otherwise).
    func text(prompt: String, what: String) throws(CommandFailure) -> Secret {
        if useStandardInput {
            var lines: [String] = []
            while let line = Swift.readLine(strippingNewline: false) { lines.append(line) }
            var text = lines.joined()
            if text.last?.isNewline == true { text.removeLast() }
            guard !text.isEmpty else { throw CommandFailure(.badInput, "standard input ended before \(what)") }
            return Secret(text)
        }
        return Secret(try Terminal.readLine(prompt: prompt, secret: false))
    }
}
