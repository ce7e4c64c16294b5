import AutofillProviderKit
import VaultCore

/// Getting at the vault: from the provider's memory while unlocked, or by asking for the master password.
extension VaultProvider {
    /// Why the vault cannot be opened: locked, or a problem the user must fix.
    typealias Access = StoreAccess

    /// Runs one entry point's work as a request of ``VaultMemory``: the timer does not lock the
    /// vault halfway through it, and with `UnlockTimeoutSeconds` 0 it is locked when it ends.
    func serving(_ body: () -> Void) {
        memory.serving(body)
    }

    /// The unlocked vault held in memory (read again first if the file changed), without any UI;
    /// `.locked` otherwise.
    func heldVault() throws(Access) -> UnlockedVault {
        guard let vaultPath else {
            throw .failed(ExtensionError(.failed, failureReason: "no vault is configured: set VaultFile in the Vault provider's settings (docs/VAULT.md)"))
        }
        let held: UnlockedVault?
        do {
            held = try memory.unlocked(at: vaultPath)
        } catch {
            host.log(.info, "\(error.message)")  // the failure's reason says it to the user; the log, with -v only
            throw .failed(ExtensionError(.failed, failureReason: error.message))
        }
        guard let held else { throw .locked }
        return held
    }

    /// The vault, unlocked with the master password if needed: up to three prompts through the
    /// host, then it is held in memory for `UnlockTimeoutSeconds`. UI entry points only.
    func unlockedVault(context: ExtensionContext) throws(Access) -> UnlockedVault {
        try unlock(context: context).vault
    }

    /// ``unlockedVault(context:)``, and whether the master password was typed for it (WebAuthn's
    /// user verification: a passkey answer may then set UV).
    func unlock(context: ExtensionContext) throws(Access) -> (vault: UnlockedVault, verified: Bool) {
        do throws(Access) {
            return (try heldVault(), false)
        } catch .locked {
            // Ask below.
        }
        guard let vaultPath else { throw .locked }  // heldVault() threw .failed without a path
        // A vault that is not there has no master password to ask for.
        guard !Self.isMissing(vaultPath) else {
            throw .failed(ExtensionError(.failed, failureReason: "the vault file \(vaultPath) does not exist: create it with `autofill-vault create`, or set VaultFile (docs/VAULT.md)"))
        }
        let vault = try askMasterPassword(
            context: context, title: "Unlock \(Self.name)", message: "Enter the master password of \(vaultPath).",
            withoutUI: """
                the vault is locked and cannot ask for its master password here; unlock it in a terminal with \
                `autofill unlock org.autofill.vault` (or `autofill-vault unlock`)
                """)
        let held = memory.hold(vault)
        publishIfWanted(vault)
        return (held, true)
    }

    /// Asks for the master password of the unlocked `vault` and checks that it opens the file: the
    /// user verification a passkey request asks for when the host did not verify the user.
    func verifyMasterPassword(context: ExtensionContext, of vault: UnlockedVault, for purpose: String) throws(Access) {
        _ = try askMasterPassword(
            context: context, title: "\(Self.name): verify it's you", message: "\(purpose) Enter the master password of \(vault.path).",
            withoutUI: "verifying it's you needs the master password, and the host cannot show a prompt here; run in a terminal")
    }

    /// Up to ``maximumAttempts`` prompts for the master password; the vault it opens. Without the
    /// host's UI, fails with the reason `withoutUI`.
    private func askMasterPassword(
        context: ExtensionContext, title: String, message first: String, withoutUI: String
    ) throws(Access) -> Vault {
        guard let vaultPath else { throw .locked }
        var message = first
        for attempt in 1...Self.maximumAttempts {
            let password: Secret
            do {
                password = try context.promptForSecret(title: title, message: message)
            } catch .canceled {
                throw .failed(ExtensionError(.userCanceled))
            } catch {
                throw .failed(ExtensionError(.failed, failureReason: withoutUI))
            }
            do {
                return try Vault.open(at: vaultPath, password: password)
            } catch where error.code == .wrongPasswordOrModified || error.code == .invalidInput {
                host.log(.notice, "the master password did not open the vault (attempt \(attempt) of \(Self.maximumAttempts))")
                let left = Self.maximumAttempts - attempt
                message = """
                    That did not open the vault: wrong master password, or the vault file was changed. \
                    \(left) \(left == 1 ? "attempt" : "attempts") left.
                    """
            } catch {
                host.log(.error, "\(error.message)")
                throw .failed(ExtensionError(.failed, failureReason: error.message))
            }
        }
        throw .failed(ExtensionError(.failed, failureReason: "wrong master password (\(Self.maximumAttempts) attempts)"))
    }

    /// Runs `body` with the vault unlocked (asking if needed), or cancels `context` with the reason.
    func withUnlockedVault(_ context: ExtensionContext, _ body: (UnlockedVault) -> Void) {
        do throws(Access) {
            body(try unlockedVault(context: context))
        } catch {
            context.cancelRequest(because: error)
        }
    }
}
