import ArgumentParser
import Foundation
import VaultCore

/// `autofill-vault unlock`: start a session the provider can use without asking.
struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock", abstract: "Unlock the vault for a while, so autofill fills without asking; publishes the identities.",
        discussion: "The derived key is kept in $XDG_RUNTIME_DIR/autofill/providers/org.autofill.vault/ (the Vault's private runtime folder; without XDG_RUNTIME_DIR no session is kept), readable by you only, until it expires or `lock` runs. See docs/VAULT.md for what that protects against and what not.")

    @OptionGroup var options: VaultOptions

    @Option(help: ArgumentHelp("How long the session lasts, in seconds (at most 86400).", valueName: "seconds"))
    var timeout = SessionCache.defaultTimeout

    func validate() throws {
        guard (1...SessionCache.maximumTimeout).contains(timeout) else {
            throw ValidationError("--timeout is 1 to \(SessionCache.maximumTimeout) seconds")
        }
    }

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            _ = try Vault.header(at: access.path)
            let vault = try Vault.open(at: access.path, password: access.secrets.masterPassword(for: access.path))
            try SessionCache.standard().store(vault, timeout: timeout)
            let until = Date().addingTimeInterval(Double(timeout)).formatted(date: .omitted, time: .standard)
            print("Unlocked \(vault.path) for \(timeout) s (until \(until)); `autofill-vault lock` locks it sooner.")
            try access.publish(IdentityChanges(from: [], to: []), all: vault.contents.identities, replace: true, saved: false)
        }
    }
}

/// `autofill-vault lock`: end the session.
struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "Lock the vault now: forget the unlocked session.")

    @OptionGroup var options: VaultOptions

    @Flag(help: "Lock every vault's session, not just this one's.")
    var all = false

    func run() throws {
        try CommandFailure.reporting {
            let cache = SessionCache.standard()
            if all {
                let count = try cache.removeAll()
                print("Locked \(count) \(count == 1 ? "session" : "sessions").")
            } else {
                let path = options.vaultPath
                print(try cache.remove(for: path) ? "Locked \(path)." : "\(path) was not unlocked.")
            }
        }
    }
}

/// `autofill-vault sync`: write the full identity list.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Write every identity of the vault to the provider's identity store (after a wipe, or a new machine).")

    @OptionGroup var options: VaultOptions

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            let vault = try access.open(at: access.path)
            try access.publish(IdentityChanges(from: [], to: []), all: vault.contents.identities, replace: true, saved: false)
        }
    }
}
