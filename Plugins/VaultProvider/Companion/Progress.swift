import AutofillWire
import AutofillSystem

/// autofill-vault's progress line (``ProgressLine``) on standard error, when that is a terminal: shown
/// while work takes over half a second (the key derivation that opens the vault, an import), and
/// erased whenever the command asks or says something. Nil in a pipe or a file.
let progress: ProgressLine? = Descriptors.isTerminal(2)
    ? ProgressLine { text in _ = try? Descriptors.write(2, text) }
    : nil

/// Runs `body`, which writes to the terminal or reads from it, with the progress line erased.
func withoutProgress<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
    guard let progress else { return try body() }
    return try progress.interacting(body)
}

/// Runs `body` with the progress line labelled `label`.
func withProgress<Result>(_ label: String, _ body: () throws -> Result) rethrows -> Result {
    guard let progress else { return try body() }
    return try progress.during(label, body)
}
