import ArgumentParser
import VaultCore

/// `autofill-vault unlock`: `autofill unlock org.autofill.vault`, in place of this process.
struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock", abstract: "Unlock the vault in autofill's provider process, so fills need no master password; publishes the identities.",
        discussion: """
            Runs `autofill unlock org.autofill.vault` in place of autofill-vault: the autofill agent keeps the \
            Vault's provider process, which asks for the master password and holds the unlocked vault in its memory \
            only, until UnlockTimeoutSeconds pass (a setting of org.autofill.vault in the autofill configuration; \
            default 300) or `autofill-vault lock` runs. It unlocks the vault that configuration names (VaultFile). \
            The output and exit status are autofill's. See docs/VAULT.md for what that protects against and what not.

            Examples:
              autofill-vault unlock
            """)

    @OptionGroup var host: HostOptions

    @Option(help: .hidden) var timeout: String?
    @Option(help: .hidden) var vault: String?

    func run() throws {
        try CommandFailure.reporting {
            if timeout != nil {
                throw CommandFailure(.usage, """
                    --timeout is no longer accepted: an unlock lasts as long as the UnlockTimeoutSeconds setting of \
                    \(host.provider) says (ProviderSettings in the autofill configuration; default 300 seconds, 0 for \
                    the one request; docs/VAULT.md)
                    """)
            }
            if vault != nil { throw HostOptions.vaultDoesNotApply(to: "unlock", provider: host.provider) }
            try AutofillProgram.replaceProcess(["unlock", host.provider] + host.passedOn)
        }
    }
}

/// `autofill-vault lock`: `autofill lock org.autofill.vault` (`--all`: `autofill lock`), in place of this process.
struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "Lock the vault now: end the provider process that holds it unlocked.",
        discussion: """
            Runs `autofill lock org.autofill.vault` (with --all, `autofill lock`: every provider) in place of \
            autofill-vault: the agent ends the provider's process, and with it the key and the entries in its \
            memory. The output and exit status are autofill's. Session files an earlier release kept in \
            $XDG_RUNTIME_DIR/autofill/providers/org.autofill.vault/ are deleted first.

            Examples:
              autofill-vault lock
              autofill-vault lock --all
            """)

    @OptionGroup var host: HostOptions

    @Flag(help: "Lock every provider autofill keeps running, not just the vault.")
    var all = false

    @Option(help: .hidden) var vault: String?

    func run() throws {
        try CommandFailure.reporting {
            if vault != nil { throw HostOptions.vaultDoesNotApply(to: "lock", provider: host.provider) }
            let removed = LegacySessionFiles.remove()
            if removed > 0 {
                printError("deleted \(removed) unlocked-session \(removed == 1 ? "file" : "files") an earlier release kept")
            }
            try AutofillProgram.replaceProcess((all ? ["lock"] : ["lock", host.provider]) + host.passedOn)
        }
    }
}

/// `autofill-vault sync`: write the full identity list.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Write every identity of the vault to the provider's identity store (after a wipe, or a new machine).", discussion: """
            Examples:
              autofill-vault sync
            """)

    @OptionGroup var options: VaultOptions

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            try withProgress("Syncing \(options.provider)") {
                let vault = try access.open(at: access.path)
                try access.publish(IdentityChanges(from: [], to: []), all: vault.contents.identities, replace: true, saved: false)
            }
        }
    }
}
