package import AutofillWire

/// What went wrong → the exit status (``ExitStatus``): the one mapping the CLI and the agent use
/// (an ``AutofillError``'s code is mapped beside the error, in AutofillProviderRuntime).
extension ExitStatus {
    /// The status of a fill that ended with `failure`. `uiScripted`: the command had a UI script, so a
    /// UI that could not answer is a script that did not fit what was asked (bad input), not a
    /// missing terminal.
    package init(_ failure: FillFailure, uiScripted: Bool = false) {
        self = switch failure {
        case .nothingToFill: .nothingToFill
        case .canceled: .canceled
        case .userInterfaceUnavailable: uiScripted ? .dataError : .userInterfaceUnavailable
        case .authenticationFailed: .authenticationFailed
        case .authenticationUnavailable: .userInterfaceUnavailable
        case .providersFailed: .unavailable
        case .declined: .declined
        case .excludedCredential: .excludedCredential
        case .providersRefused: .refused
        }
    }

    /// The status of `error` when it is one of the host's (``AutofillError``, ``FillFailure``), else nil.
    package init?(_ error: any Error, uiScripted: Bool = false) {
        switch error {
        case let error as AutofillError: self.init(error.code)
        case let failure as FillFailure: self.init(failure, uiScripted: uiScripted)
        default: return nil
        }
    }
}
