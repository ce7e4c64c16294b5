// autofill-vault: the companion program of VaultProvider. It creates and edits the encrypted
// vault, unlocks and locks the session the provider reads, and keeps the provider's identity store
// current, as the containing app of a credential provider does on Apple platforms.
import ArgumentParser

@main
struct AutofillVault: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "autofill-vault",
        abstract: "Create and edit the encrypted vault that VaultProvider serves to autofill.",
        discussion: """
            The vault is one file, encrypted with AES-256-GCM under a key derived from the master \
            password with scrypt (docs/VAULT.md). Every command that changes entries also updates \
            the provider's identity store (no secrets), so autofill can suggest them.

            The master password is read from the terminal without echo, or with --password-stdin \
            as the first line of standard input; secrets of new entries come next (terminal or the \
            following line). While the vault is unlocked (`unlock`), commands read from the \
            terminal use the session instead of asking.

            Vault path: --vault PATH, then $AUTOFILL_VAULT, then \
            $XDG_DATA_HOME/autofill/vault.afvault (~/.local/share/autofill/vault.afvault).

            Exit status (sysexits.h):
              0   success (a disabled provider's identity store is only a warning)
              64  usage error (bad option, no terminal for the password)
              65  bad input (an invalid entry, service, otpauth URI or CSV file; a damaged vault)
              66  no vault at the path
              73  a vault exists already (create)
              74  a file could not be read or written
              75  the identity store is busy: try again
              77  wrong master password, or the vault file was changed
            """,
        subcommands: [
            CreateCommand.self, AddPasswordCommand.self, AddOneTimeCodeCommand.self, AddTextCommand.self,
            RemoveCommand.self, ListCommand.self, ImportCommand.self, UnlockCommand.self, LockCommand.self,
            SyncCommand.self,
        ]
    )
}
