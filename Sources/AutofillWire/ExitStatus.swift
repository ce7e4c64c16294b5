/// The exit statuses of autofill's commands: sysexits.h, plus a few of its own for fill and passkey
/// sessions (docs/CLI.md "Exit statuses", which lists them). The one table: the CLI, the small client
/// and the agent's answers take their statuses from here, and the errors map to them in one place
/// (`ExitStatus+Errors.swift` in AutofillHost). Tests pin every number; scripts rely on them.
package enum ExitStatus: Int32, CaseIterable, Sendable {
    /// Done.
    case success = 0
    /// Nothing to fill: no suggestion, no provider with the capability, a pick out of range.
    case nothingToFill = 1
    /// `agent status`: no agent runs.
    case agentNotRunning = 3
    /// Cancelled, in a provider's UI or the host's: nothing was filled.
    case canceled = 20
    /// A UI was needed and there is none (no terminal, no UI script); or the host's own authentication
    /// needed the controlling terminal, which a UI script never replaces.
    case userInterfaceUnavailable = 21
    /// The host could not authenticate the user.
    case authenticationFailed = 22
    /// The automatic passkey upgrade: no provider accepted (quiet by design).
    case declined = 23
    /// Passkey registration: the provider already holds one of the relying party's excluded credentials.
    case excludedCredential = 24
    /// Usage error (`EX_USAGE`): unknown provider id, bad argument.
    case usage = 64
    /// Invalid plugin or input (`EX_DATAERR`): plist, library, ABI, entry points; a file, a URL, a UI
    /// script that does not fit what was asked.
    case dataError = 65
    /// A named file or bundle does not exist (`EX_NOINPUT`).
    case noInput = 66
    /// A provider failed or could not be reached, or a tool autofill runs failed (`EX_UNAVAILABLE`).
    case unavailable = 69
    /// Internal error (`EX_SOFTWARE`).
    case software = 70
    /// A file could not be read or written (`EX_IOERR`).
    case ioError = 74
    /// Try again later (`EX_TEMPFAIL`): an identity store, or the agent, is busy.
    case temporaryFailure = 75
    /// Refused (`EX_NOPERM`): a provider whose files changed, never approved, unsafe or quarantined; a
    /// host file or an agent other users control.
    case refused = 77
    /// Configuration error or refused change (`EX_CONFIG`).
    case configuration = 78
}
