import ArgumentParser
import AutofillCore
import VaultCore

/// `autofill-vault passwd`: a new master password, salt, key and key derivation.
struct PasswdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Change the master password: new salt, new key, and the current key derivation (Argon2id).",
        discussion: """
            Asks for the current master password, then the new one twice (at the terminal without echo; with \
            --password-stdin, three lines: current, new, new again). The entries are sealed again under a key \
            derived from the new password with a new random salt and, unless --kdf says otherwise, Argon2id at \
            m=64 MiB, t=3, p=4: an scrypt vault of an earlier release is upgraded. The file is replaced \
            atomically: a wrong current password, a mismatch or a crash leaves the vault as it was, under the old \
            password. A weak new password gets a warning, not a refusal. The autofill agent's unlocked vault \
            notices the new key and locks: the next fill asks for the new password.

            Examples:
              autofill-vault passwd
              autofill-vault passwd --vault ~/vaults/work.afvault
              printf '%s\\n' "$OLD" "$NEW" "$NEW" | autofill-vault passwd --password-stdin
            """)

    @OptionGroup var options: VaultOptions
    @OptionGroup var derivation: KeyDerivationOptions

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            let keyDerivation = try derivation.keyDerivation()
            let before = try Vault.header(at: access.path).keyDerivation
            let vault = try Vault.changeMasterPassword(at: access.path, unlock: access.open(at:), newPassword: {
                let password = try access.secrets.newMasterPassword(for: access.path, confirmFromStandardInput: true)
                warnIfWeak(password)
                return password
            }, keyDerivation: keyDerivation)
            let upgraded = before == keyDerivation ? "" : " (was \(before))"
            print("Changed the master password of \(vault.path): \(keyDerivation)\(upgraded).")
        }
    }
}

/// Warns at the terminal (standard error) when a new master password looks weak.
func warnIfWeak(_ password: Secret) {
    let reasons = PasswordStrength.weaknesses(of: password.revealed)
    guard !reasons.isEmpty else { return }
    printWarning("""
        the new master password is weak: \(reasons.joined(separator: "; ")). Anyone who copies the vault file can try \
        passwords against it offline; four or more random words, or a longer password, hold out much longer
        """)
}
