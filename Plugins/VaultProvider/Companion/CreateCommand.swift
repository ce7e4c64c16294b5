import ArgumentParser
import AutofillSystem
import Foundation
import VaultCore

/// `autofill-vault create`: a new, empty vault.
struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create a new, empty vault protected by a master password.",
        discussion: """
            The key is derived from the master password with Argon2id (m=64 MiB, t=3, p=4: RFC 9106's second \
            recommended option) unless --kdf says otherwise. A weak master password gets a warning.

            Examples:
              autofill-vault create
              autofill-vault create --vault ~/vaults/work.afvault
              printf '%s\\n' "$MASTER" | autofill-vault create --password-stdin

            Without --vault (and AUTOFILL_VAULT) the vault goes where the Vault provider looks while its \
            VaultFile setting is unset: its own data folder, \
            ~/.local/share/autofill/providers/org.autofill.vault/vault.afvault. A vault elsewhere gets a \
            warning: point the provider at it with `autofill providers set org.autofill.vault VaultFile PATH`, \
            in a folder of its own (the provider may change files in its vault's folder, so autofill refuses \
            your home folder itself; docs/SANDBOX.md).
            """)

    @OptionGroup var options: VaultOptions

    @OptionGroup var derivation: KeyDerivationOptions

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            let keyDerivation = try derivation.keyDerivation()
            let folder = (access.path as NSString).deletingLastPathComponent
            if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
                do {
                    try FileManager.default.createDirectory(
                        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                } catch {
                    throw CommandFailure(.io, "cannot create the folder \(folder): \(error.localizedDescription)")
                }
            }
            guard !FileManager.default.fileExists(atPath: access.path) else {
                throw CommandFailure(.cannotCreate, "\(access.path) exists already; remove it first or choose another path with --vault")
            }
            let password = try access.secrets.newMasterPassword(for: access.path)
            warnIfWeak(password)
            let vault = try Vault.create(at: access.path, password: password, keyDerivation: keyDerivation)
            print("Created the vault \(vault.path) (\(keyDerivation)).")
            warnIfElsewhere(vault.path)
            try access.publish(IdentityChanges(from: [], to: []), all: [], replace: true)
        }
    }
}

extension CreateCommand {
    /// Warns when the vault at `path` is not where the Vault provider looks by default, saying how
    /// to point the provider at it, and when autofill would refuse its folder (the home folder).
    func warnIfElsewhere(_ path: String) {
        let environment = ProcessInfo.processInfo.environment
        let standard = { (path: String) in URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path }
        let expected = VaultOptions.defaultVaultPath(environment: environment)
        guard standard(path) != standard(expected) else { return }
        let absolute = standard(path)
        printWarning("""
            the Vault provider reads \(expected) unless its VaultFile setting names another file; to serve this \
            vault, run: autofill providers set \(VaultLocation.providerID) VaultFile \(absolute)
            """)
        let folder = (absolute as NSString).deletingLastPathComponent
        if folder == standard(UserFolders(environment: environment).home) {
            printWarning("""
                \(absolute) is directly in your home folder: autofill refuses to let the Vault change files there \
                (docs/SANDBOX.md); move it into a folder of its own, e.g. ~/vault/\(VaultLocation.fileName)
                """)
        }
    }
}
