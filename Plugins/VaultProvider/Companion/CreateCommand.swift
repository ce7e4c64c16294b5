import ArgumentParser
import Foundation
import VaultCore

/// `autofill-vault create`: a new, empty vault.
struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create a new, empty vault protected by a master password.", discussion: """
            Examples:
              autofill-vault create
              autofill-vault create --vault ~/vaults/work.afvault
            """)

    @OptionGroup var options: VaultOptions

    @Option(name: .customLong("scrypt-log2n"), help: ArgumentHelp(
        "scrypt cost as log2 of N (default \(ScryptParameters.standard.log2N); lower values only for tests and demos).",
        valueName: "n"))
    var scryptLog2N: UInt8 = ScryptParameters.standard.log2N

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            let parameters = ScryptParameters(log2N: scryptLog2N)
            try parameters.check()
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
            let vault = try Vault.create(at: access.path, password: password, parameters: parameters)
            print("Created the vault \(vault.path) (\(parameters)).")
            try access.publish(IdentityChanges(from: [], to: []), all: [], replace: true)
        }
    }
}
