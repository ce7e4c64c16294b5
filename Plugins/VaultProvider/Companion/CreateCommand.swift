import ArgumentParser
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
            try access.publish(IdentityChanges(from: [], to: []), all: [], replace: true)
        }
    }
}
