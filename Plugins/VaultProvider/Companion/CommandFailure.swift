import ArgumentParser
import AutofillCompanion
import AutofillSystem
import VaultCore

/// A command's failure: a sysexits status and a message naming the file; never a secret.
struct CommandFailure: Error, CustomStringConvertible {
    /// The exit statuses autofill-vault uses (sysexits.h).
    enum Status: Int32 {
        case usage = 64, badInput = 65, noInput = 66, unavailable = 69, cannotCreate = 73, io = 74, tryAgain = 75, wrongPassword = 77
    }

    let status: Status
    let message: String

    init(_ status: Status, _ message: String) {
        self.status = status
        self.message = message
    }

    init(_ error: VaultError) {
        switch error.code {
        case .notFound:
            self.init(.noInput, "\(error.message): create a vault with `autofill-vault create`, or name yours with --vault PATH or $AUTOFILL_VAULT")
        case .alreadyExists: self.init(.cannotCreate, error.message)
        case .corrupt, .unsupportedVersion, .invalidInput: self.init(.badInput, error.message)
        case .wrongPasswordOrModified: self.init(.wrongPassword, error.message)
        case .io: self.init(.io, error.message)
        case .busy: self.init(.tryAgain, error.message)
        }
    }

    var description: String { message }

    /// Runs `body`, turning failures into a message on standard error and the exit status.
    static func reporting(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CommandFailure {
            printError(failure.message)
            throw ExitCode(failure.status.rawValue)
        } catch let error as VaultError {
            let failure = CommandFailure(error)
            printError(failure.message)
            throw ExitCode(failure.status.rawValue)
        }
    }
}

/// Writes `autofill-vault: message` to standard error.
func printError(_ message: String) {
    withoutProgress { _ = try? Descriptors.write(2, "autofill-vault: \(message)\n") }
}

/// Writes `autofill-vault: warning: message` to standard error.
func printWarning(_ message: String) {
    printError("warning: \(message)")
}
