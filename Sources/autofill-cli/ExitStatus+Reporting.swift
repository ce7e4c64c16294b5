import ArgumentParser
import AutofillHost
import AutofillWire

extension ExitCode {
    /// The exit code of `status`: every status the CLI exits with comes from ``ExitStatus``.
    init(_ status: ExitStatus) {
        self.init(status.rawValue)
    }
}

/// Prints `error`, when it is one of the host's (``AutofillError``, ``FillFailure``), on stderr and
/// returns its exit code from the one table (``ExitStatus``); any other error comes back as it is.
/// `uiScripted`: the command had a UI script (a UI that could not answer is bad input then). A
/// declined automatic passkey upgrade is quiet by design: the reasons are in `--trace`.
func reported(_ error: any Error, uiScripted: Bool = false) -> any Error {
    guard let status = ExitStatus(error, uiScripted: uiScripted) else { return error }
    if case FillFailure.declined = error {} else { printError("autofill: \(error)") }
    return ExitCode(status)
}
