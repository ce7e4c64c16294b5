import AutofillCompanion
import VaultCore

/// Opening, changing and publishing the vault the options name: the steps every command shares.
struct VaultAccess {
    let options: VaultOptions
    let secrets: SecretSource
    let path: String

    init(_ options: VaultOptions) {
        self.options = options
        secrets = SecretSource(useStandardInput: options.passwordStdin)
        path = options.vaultPath
    }

    /// Opens the vault with its master password: from standard input when --password-stdin is
    /// given, else from the terminal. Always asked: the unlocked vault lives in the provider's
    /// process only, and autofill-vault never reads it from there.
    func open(at path: String) throws(CommandFailure) -> Vault {
        let header: VaultHeader
        do {
            header = try Vault.header(at: path)  // a missing or damaged file fails before the password prompt
        } catch {
            throw CommandFailure(error)
        }
        if case .scrypt = header.keyDerivation, !header.keyDerivation.meetsFloor() {  // an earlier release's vault
            printWarning("the vault's key derivation (\(header.keyDerivation)) is weaker than new vaults get; `autofill-vault passwd` upgrades it to Argon2id")
        }
        let password = try withoutProgress { () throws(CommandFailure) in try secrets.masterPassword(for: path) }
        do {
            return try Vault.open(at: path, password: password)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// Opens the vault, lets `body` change it, saves it under the folder lock, calls `announce`
    /// with the result, then updates the identity store with what changed.
    func update<Result>(_ body: (inout VaultContents) throws -> Result, announce: (Result) -> Void) throws {
        let outcome = try Vault.update(at: path, unlock: open(at:), body)
        announce(outcome.result)
        try publish(outcome.changes, all: outcome.vault.contents.identities)
    }

    /// Writes `changes` to the provider's identity store (the full list `all` when it wants one).
    func publish(_ changes: IdentityChanges, all: [CredentialIdentity], replace: Bool = false, saved: Bool = true) throws(CommandFailure) {
        let context = saved ? "the vault was saved, but the identity store was not updated" : "the identity store was not updated"
        do {
            let store: SQLiteIdentityStore
            if let folder = options.identityStores {
                store = try CompanionIdentityStore.open(providerID: options.provider, in: IdentityStoreDirectory(path: folder))
            } else {
                store = try CompanionIdentityStore.open(providerID: options.provider)
            }
            let outcome = replace
                ? try IdentityPublisher.replace(with: all, in: store)
                : try IdentityPublisher.publish(changes, all: all, to: store)
            withoutProgress { print("\(options.provider): \(outcome)") }
        } catch {
            switch error.code {
            case .storeDisabled:
                // A new, empty vault before the provider is enabled (the README's order): nothing to publish,
                // and enabling it publishes what it holds then.
                if replace && all.isEmpty { return }
                printWarning("\(context): \(error.message)")
            case .storeBusy:
                throw CommandFailure(.tryAgain, "\(context): \(error.message); run `autofill-vault sync` later")
            case .internalError:
                throw CommandFailure(.io, "\(context): \(error.message); run `autofill-vault sync` later")
            }
        }
    }
}
