// autofill-vault: the companion program of VaultProvider. It creates and edits the encrypted
// vault and keeps the provider's identity store current, as the containing app of a credential
// provider does on Apple platforms; `unlock` and `lock` hand over to autofill, whose agent keeps the
// provider's process (and the unlocked vault in its memory).
import ArgumentParser
import AutofillCore
import AutofillSystem

@main
struct AutofillVault: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "autofill-vault",
        abstract: "Create and edit the encrypted vault that VaultProvider serves to autofill.",
        discussion: """
            The vault is one file, encrypted with AES-256-GCM under a key derived from the master \
            password with Argon2id (scrypt in vaults of earlier releases, which still open; `passwd` \
            upgrades them; docs/VAULT.md). Every command that changes entries also updates \
            the provider's identity store (no secrets), so autofill can suggest them.

            The master password is read from the terminal without echo, or with --password-stdin \
            as the first line of standard input; secrets of new entries come next (terminal or the \
            following line), never from arguments, which other users can see while a command runs. \
            Errors do not repeat arguments (#2 stands for the second). Every command that opens the \
            vault asks for the master password, unlocked or not: the unlocked vault lives in the \
            provider's process only. `unlock` and `lock` run `autofill unlock|lock org.autofill.vault` \
            in place of autofill-vault (autofill next to it, else on PATH): their output and exit \
            status are autofill's.

            Entries are named by their site (github.com), with --user when the site has several, \
            or by id: `show github.com --user alice`, `edit github.com --new-password`, \
            `rename github.com --site https://github.com/session`, `search git`.

            Vault path: --vault PATH, then $AUTOFILL_VAULT, then \
            $XDG_DATA_HOME/autofill/providers/org.autofill.vault/vault.afvault (~/.local/share/autofill/providers/org.autofill.vault/vault.afvault).

            Exit status (sysexits.h):
              0   success (a disabled provider's identity store is only a warning)
              1   search found nothing
              64  usage error (bad option, no terminal for the password)
              65  bad input (an invalid entry, service, otpauth URI or CSV file; a damaged vault; no such
                  entry, or a name that fits several)
              66  no vault at the path
              69  autofill could not be found or run (unlock, lock)
              73  a vault exists already (create)
              74  a file could not be read or written
              75  the identity store is busy: try again
              77  wrong master password, or the vault file was changed

            Examples:
              autofill-vault create
              autofill-vault add-password --service example.com --user alice
              autofill-vault import bitwarden.csv
              autofill-vault unlock
            """,
        subcommands: [
            CreateCommand.self, AddPasswordCommand.self, AddOneTimeCodeCommand.self, AddTextCommand.self,
            RemoveCommand.self, ListCommand.self, ImportCommand.self, UnlockCommand.self, LockCommand.self,
            SyncCommand.self, ShowCommand.self, SearchCommand.self, EditCommand.self, RenameCommand.self, PasswdCommand.self,
        ]
    )

    /// Runs the command line as ArgumentParser's `main()` does, except that a command line it
    /// refuses is reported without repeating any argument (``ArgumentErrorText``): an argument may
    /// be a secret given by mistake.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            reportRefused(error, arguments: arguments)
        }
        do {
            try command.run()
        } catch {
            exit(withError: error)
        }
    }

    /// Prints ArgumentParser's report of `error` with the arguments replaced, and exits with its status.
    private static func reportRefused(_ error: any Error, arguments: [String]) -> Never {
        guard !exitCode(for: error).isSuccess else { exit(withError: error) }  // --help
        let commandNames = Set(configuration.subcommands.map { $0._commandName } + ["help"])
        let message = message(for: error)
        let redacted = ArgumentErrorText(arguments: arguments, commandNames: commandNames).redacting(message)
        var text = fullMessage(for: error)
        if redacted.replaced {
            let replacement = redacted.message + "\n" + ArgumentErrorText.note
            if !message.isEmpty, let range = text.range(of: message) {
                text.replaceSubrange(range, with: replacement)
            } else {
                text = "Error: " + replacement
            }
        }
        // A mistyped command: name the one meant, never what was typed (it could be a secret given by mistake).
        if let typed = arguments.first, !typed.hasPrefix("-"), !commandNames.contains(typed),
           let meant = KeySpelling.nearest(typed, among: configuration.subcommands.map { $0._commandName }),
           let endOfMessage = text.firstIndex(of: "\n") {
            text.insert(contentsOf: "\nautofill-vault has no command #1; did you mean '\(meant)'?", at: endOfMessage)
        }
        if !text.isEmpty {
            text += "\n"
            try? Descriptors.write(2, text)
        }
        Processes.exit(exitCode(for: error).rawValue)
    }
}
