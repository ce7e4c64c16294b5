// VaultProvider: the sample provider backed by an encrypted vault (VaultCore), declaring every
// capability. Its companion program, autofill-vault, creates and edits the vault and keeps the
// identity store current; this plugin serves secrets, asking for the master password through the
// host's UI when the vault is locked. It creates and uses ES256 passkeys (AutofillWebAuthn), writing
// the vault for them under the companion's lock.
import AutofillProviderKit
import AutofillSystem
import VaultCore

/// The exported entry function named by Info.plist's AFProviderEntrySymbol.
@c(vault_provider_entry)
public func vaultProviderEntry(_ hostABIVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    ProviderExport.entry(VaultProvider.self, hostABIVersion: hostABIVersion, host: host)
}

/// A provider serving the vault named by its `VaultFile` setting.
///
/// Settings: `VaultFile` (the vault's path; without it, `vault.afvault` in the provider's own data folder,
/// `~/.local/share/autofill/providers/org.autofill.vault/`, where `autofill-vault create` makes it),
/// `UnlockTimeoutSeconds` (how long an unlock lasts; default 300, 0 for the request that unlocked
/// only) and `ConditionalRegistrationWindowSeconds` (0 turns automatic passkey upgrades off; any
/// other value turns them on: how recent a fill must be is the host's to say, `hostRecentPasswordFill`).
///
/// The unlocked vault lives in this object's memory only (``VaultMemory``: the key in locked,
/// undumpable pages, the entries indexed), so it lasts as long as the process that loaded the
/// plugin: the autofill agent keeps the provider's helper process between requests, and ending that
/// process (`autofill lock`) locks the vault. Nothing about an unlock is written to any file.
final class VaultProvider: CredentialProvider {
    let host: ProviderHost
    /// The vault file: the setting's, else the default in the provider's data folder (nil without either).
    let vaultPath: String?
    /// The unlocked vault, while there is one, and the timer that locks it.
    let memory: VaultMemory
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

    /// How long an unlock lasts, in seconds (0: for the request that unlocked only).
    var timeout: Int { memory.timeout }

    init(host: ProviderHost) throws {
        self.host = host
        if let path = host.setting("VaultFile"), !path.isEmpty {
            vaultPath = path
        } else {
            // Unset: the vault autofill-vault create makes, in this provider's own data folder.
            vaultPath = VaultLocation.defaultPath
        }
        let timeout = Self.seconds(host, "UnlockTimeoutSeconds", default: VaultMemory.defaultTimeout, maximum: VaultMemory.maximumTimeout)
        memory = VaultMemory(timeout: timeout) { [host] event in Self.log(event, to: host) }
        conditionalWindow = Self.seconds(host, "ConditionalRegistrationWindowSeconds", default: Self.defaultConditionalWindow,
                                         maximum: 3600)
        let removed = LegacySessionFiles.remove()
        if removed > 0 {
            host.log(.notice, "removed \(removed) unlocked-session \(removed == 1 ? "file" : "files") an earlier release kept in the runtime folder")
        }
    }

    /// The setting `key` as whole seconds from 0 to `maximum`; `default` (with a warning) otherwise.
    static func seconds(_ host: ProviderHost, _ key: String, default value: Int, maximum: Int) -> Int {
        guard let setting = host.setting(key) else { return value }
        if let seconds = Int(setting), (0...maximum).contains(seconds) { return seconds }
        host.log(.warning, "\(key) \"\(setting)\" is not 0 to \(maximum) seconds; using \(value)")
        return value
    }

    /// Logs what the memory did; never a secret.
    static func log(_ event: VaultMemory.Event, to host: ProviderHost) {
        switch event {
        case .unlocked(let seconds):
            host.log(.info, seconds > 0 ? "vault unlocked for \(seconds) s" : "vault unlocked for this request (UnlockTimeoutSeconds is 0)")
        case .locked(let reason):
            let why = switch reason {
            case .timeout: "UnlockTimeoutSeconds passed"
            case .requestEnded: "the request ended (UnlockTimeoutSeconds is 0)"
            case .keyChanged: "the vault file has a new salt or key derivation (created anew?); unlock it again"
            case .fileUnusable: "the key in memory no longer opens the vault file, or it cannot be read"
            case .requested: "asked to"
            }
            host.log(.info, "vault locked: key zeroed, entries dropped (\(why))")
        case .reread:
            host.log(.info, "the vault file changed: read it again with the key in memory")
        case .keyNotMemoryLocked(let code):
            host.log(.debug, """
                the vault key's memory page is not locked in memory (mlock: \(SystemError("mlock", code: code).reason); RLIMIT_MEMLOCK too small): \
                it may be swapped out; it is still left out of core dumps and zeroed when locked
                """)
        }
    }

    /// Writes the full identity list when the store asks for it (enabled after a wipe: incremental
    /// updates off), right after an unlock; logs instead of failing. The companion keeps the store
    /// current otherwise; while locked, its `sync` publishes.
    func publishIfWanted(_ vault: Vault) {
        do {
            let state = try host.identityStore.state()
            guard state.isEnabled, !state.supportsIncrementalUpdates else { return }
            host.log(.info, "\(try IdentityPublisher.replace(with: vault.contents.identities, in: host.identityStore))")
        } catch {
            host.log(error.code == .storeDisabled ? .debug : .warning, "identities not published: \(error)")
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
