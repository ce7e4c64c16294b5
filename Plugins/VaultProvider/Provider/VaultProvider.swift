// VaultProvider: the sample provider backed by an encrypted vault (VaultCore), declaring every
// capability. Its companion program, autofill-vault, creates and edits the vault and keeps the
// identity store current; this plugin serves secrets, asking for the master password through the
// host's UI when the vault is locked. It creates and uses ES256 passkeys (AutofillWebAuthn), writing
// the vault for them under the companion's lock.
import AutofillProviderKit
import VaultCore

/// The exported entry function named by Info.plist's AFProviderEntrySymbol.
@c(vault_provider_entry)
public func vaultProviderEntry(_ hostABIVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    ProviderExport.entry(VaultProvider.self, hostABIVersion: hostABIVersion, host: host)
}

/// A provider serving the vault named by its `VaultFile` setting.
///
/// Settings: `VaultFile` (the vault's path; without it the provider loads but serves nothing),
/// `UnlockTimeoutSeconds` (how long an unlock lasts across processes; default 300, 0 asks every time)
/// and `ConditionalRegistrationWindowSeconds` (0 turns automatic passkey upgrades off; any other value
/// turns them on: how recent a fill must be is the host's to say, `hostRecentPasswordFill`).
final class VaultProvider: CredentialProvider {
    let host: ProviderHost
    /// The vault file, if the setting names one.
    let vaultPath: String?
    /// How long an unlocked session lasts, in seconds.
    let timeout: Int
    /// Where unlocked sessions are kept between processes.
    let sessions: SessionCache
    /// 0: automatic passkey upgrades are off.
    let conditionalWindow: Int

    static let name = "Vault"
    static let maximumAttempts = 3
    /// The default of `ConditionalRegistrationWindowSeconds`.
    static let defaultConditionalWindow = 300
    /// How long a no-UI request waits for the vault's write lock (the host's deadline is 3 s).
    static let noUILockWait = 1.0
    /// How long a UI request waits for the vault's write lock.
    static let uiLockWait = 10.0

    init(host: ProviderHost) throws {
        self.host = host
        sessions = SessionCache.standard()
        if let path = host.setting("VaultFile"), !path.isEmpty {
            vaultPath = path
        } else {
            vaultPath = nil
            host.log(.info, "no VaultFile setting: serving nothing (create a vault with autofill-vault create, then set VaultFile)")
        }
        let setting = host.setting("UnlockTimeoutSeconds")
        if let setting, let seconds = Int(setting), (0...SessionCache.maximumTimeout).contains(seconds) {
            timeout = seconds
        } else {
            timeout = SessionCache.defaultTimeout
            if let setting {
                host.log(.warning, "UnlockTimeoutSeconds \"\(setting)\" is not 0 to \(SessionCache.maximumTimeout) seconds; using \(timeout)")
            }
        }
        conditionalWindow = Self.seconds(host, "ConditionalRegistrationWindowSeconds", default: Self.defaultConditionalWindow,
                                         maximum: 3600)
        publishAtLoad()
    }

    /// The setting `key` as whole seconds from 0 to `maximum`; `default` (with a warning) otherwise.
    static func seconds(_ host: ProviderHost, _ key: String, default value: Int, maximum: Int) -> Int {
        guard let setting = host.setting(key) else { return value }
        if let seconds = Int(setting), (0...maximum).contains(seconds) { return seconds }
        host.log(.warning, "\(key) \"\(setting)\" is not 0 to \(maximum) seconds; using \(value)")
        return value
    }

    /// While unlocked, writes the full identity list if the store asks for it (after a wipe). The
    /// companion keeps the store current otherwise; while locked, its `sync` or `unlock` publishes.
    func publishAtLoad() {
        guard let vaultPath else { return }
        do {
            let state = try host.identityStore.state()
            guard state.isEnabled, !state.supportsIncrementalUpdates else { return }
            guard let vault = try sessions.unlockedVault(at: vaultPath, maximumAge: timeout) else {
                host.log(.info, "the vault is locked: identities not published (autofill-vault unlock or sync publishes them)")
                return
            }
            let outcome = try IdentityPublisher.replace(with: vault.contents.identities, in: host.identityStore)
            host.log(.info, "\(outcome)")
        } catch let error as IdentityStoreError {
            host.log(.debug, "identities not published: \(error)")
        } catch {
            host.log(.warning, "identities not published: \(error)")
        }
    }

    /// Publishes the full identity list (configuration); logs instead of failing.
    func publishAll(_ vault: Vault) {
        do {
            host.log(.info, "\(try IdentityPublisher.replace(with: vault.contents.identities, in: host.identityStore))")
        } catch {
            host.log(.warning, "identities not published: \(error)")
        }
    }
}
