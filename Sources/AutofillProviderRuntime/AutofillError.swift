public import AutofillCore
package import AutofillWire

/// An error of the autofill host: a stable code, a message for people, and what caused it.
///
/// Messages name the plugin, file, key, symbol or provider involved and say what to do.
/// They never carry a secret.
public struct AutofillError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is; each maps to one exit status.
    public enum Code: String, Sendable, CaseIterable {
        /// The command was used wrongly (unknown provider id, bad argument).
        case usage
        /// A file or bundle that was named does not exist.
        case notFound
        /// A plugin bundle is invalid (plist, library, ABI, entry points); see `problems`.
        case invalidPlugin
        /// An input file or argument has invalid contents (an identities file, a URL).
        case invalidData
        /// Try again later (an identity store is busy).
        case temporaryFailure
        /// The host configuration is invalid or refuses the change (a fourth provider, a duplicate id).
        case configuration
        /// Reading or writing a file failed.
        case io
        /// A provider failed, timed out or could not be reached.
        case providerUnavailable
        /// The host refuses to run a provider: its files changed since the user approved them, other users
        /// could change them, or it is quarantined after repeated faults.
        case refused
        /// A bug in autofill.
        case `internal`
    }

    /// The failure's kind.
    public var code: Code
    /// What failed and what to do, for people.
    public var message: String
    /// Every problem found, for `invalidPlugin`.
    public var problems: [PluginProblem]
    /// The underlying error, if any.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, problems: [PluginProblem] = [], cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.problems = problems
        self.cause = cause
    }

    /// The process exit status for this error (``ExitStatus``, the one table).
    public var exitStatus: Int32 { ExitStatus(code).rawValue }

    /// The error for an identity-store failure.
    public init(_ error: IdentityStoreError) {
        switch error.code {
        case .storeDisabled: self.init(.configuration, error.message, cause: error)
        case .storeBusy: self.init(.temporaryFailure, error.message, cause: error)
        case .internalError: self.init(.io, error.message, cause: error)
        }
    }

    /// Runs an identity-store operation, turning its failure into an ``AutofillError``.
    public static func fromStore<T>(_ body: () throws(IdentityStoreError) -> T) throws(AutofillError) -> T {
        do {
            return try body()
        } catch {
            throw AutofillError(error)
        }
    }

    public var description: String {
        guard !problems.isEmpty else { return message }
        return ([message] + problems.map { "  - \($0)" }).joined(separator: "\n")
    }
}

/// An error's code → the exit status (``ExitStatus``, the one table; fill failures are mapped in
/// AutofillHost's `ExitStatus+Errors.swift`).
extension ExitStatus {
    /// The status of an ``AutofillError`` with `code`.
    package init(_ code: AutofillError.Code) {
        self = switch code {
        case .usage: .usage
        case .invalidPlugin, .invalidData: .dataError
        case .notFound: .noInput
        case .providerUnavailable: .unavailable
        case .internal: .software
        case .io: .ioError
        case .temporaryFailure: .temporaryFailure
        case .refused: .refused
        case .configuration: .configuration
        }
    }
}
