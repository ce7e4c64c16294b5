import AutofillProviderKit
import Foundation
import KDBX

/// Getting at the database: from memory while unlocked, or by asking for the master password.
extension KeePassProvider {
    /// Why the database cannot be used: locked, or a problem the user must fix.
    typealias Access = StoreAccess

    /// The unlocked database held in memory, without any UI; `.locked` otherwise.
    func heldIndex() throws(Access) -> KeePassIndex {
        guard let databasePath else {
            throw .failed(ExtensionError(.failed, failureReason: "no database is configured: set DatabaseFile in the KeePassXC provider's settings (docs/CONFIGURATION.md)"))
        }
        do {
            guard let index = try memory.index(of: DatabaseFile(databasePath, host: host)) else { throw Access.locked }
            return index
        } catch let error as Access {
            throw error
        } catch {
            host.log(.info, "the database was locked: \(error)")  // the failure's reason says it to the user
            throw .failed(ExtensionError(.failed, failureReason: "\(error)"))
        }
    }

    /// The database, unlocked with the master password if needed (up to three prompts), then held
    /// and its identities published. UI entry points only.
    func unlockedIndex(context: ExtensionContext) throws(Access) -> KeePassIndex {
        try unlock(context: context).index
    }

    /// ``unlockedIndex(context:)``, and whether the master password was typed for it (WebAuthn's
    /// user verification).
    func unlock(context: ExtensionContext) throws(Access) -> (index: KeePassIndex, typed: Bool) {
        do throws(Access) {
            return (try heldIndex(), false)
        } catch .locked {
            // Ask below.
        }
        let opened = try open(prompting: context)
        return (opened.index, true)
    }

    /// The key that opens the database: held while unlocked, else asked for (the database is then
    /// opened, held and its identities published, as by an unlock). For saving.
    func unlockedKey(context: ExtensionContext) throws(Access) -> CompositeKey {
        if let key = memory.heldKey() { return key }
        return try open(prompting: context).key
    }

    /// Asks for the master password (up to three prompts) and opens the database with it; holds it
    /// and publishes its identities.
    private func open(prompting context: ExtensionContext) throws(Access) -> (index: KeePassIndex, key: CompositeKey) {
        guard let databasePath else { throw .locked }
        // A database that is not there has no master password to ask for.
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw .failed(ExtensionError(.failed, failureReason: "the database \(databasePath) does not exist (check the DatabaseFile setting)"))
        }
        let keyFile = try keyFile()
        var message = "Enter the master password of \(databasePath)\(keyFile == nil ? "" : " (the key file is taken from the KeyFile setting; leave empty if the database has no password)")."
        for attempt in 1...Self.maximumAttempts {
            let password: Secret
            do {
                password = try context.promptForSecret(title: "Unlock \(Self.name)", message: message)
            } catch .canceled {
                throw .failed(ExtensionError(.userCanceled))
            } catch {
                throw .failed(ExtensionError(.failed, failureReason: """
                    the database is locked and cannot ask for its master password here; unlock it in a terminal with \
                    `autofill unlock org.autofill.keepassxc`
                    """))
            }
            let key = Self.compositeKey(password, keyFile)
            do {
                let start = ContinuousClock.now
                let file = DatabaseFile(databasePath, host: host)
                let index = KeePassIndex(try file.open(key: key, kdfLimit: memory.keyDerivationLimit))
                host.log(.info, "read \(index.ordered.count) entries in \(Self.milliseconds(since: start)) ms")
                memory.hold(index, key: key, stamp: file.stamp)
                host.log(.info, memory.timeout > 0 ? "database unlocked for \(memory.timeout) s" : "database unlocked for this request (UnlockTimeoutSeconds is 0)")
                publish(index)
                return (index, key)
            } catch where error.code == .wrongKey {
                host.log(.notice, "the master password did not open the database (attempt \(attempt) of \(Self.maximumAttempts))")
                let left = Self.maximumAttempts - attempt
                message = "That did not open the database: wrong master password or key file. \(left) \(left == 1 ? "attempt" : "attempts") left."
            } catch {
                host.log(.info, error.message)  // the failure's reason says it to the user; the log, with -v only
                throw .failed(ExtensionError(.failed, failureReason: error.message))
            }
        }
        throw .failed(ExtensionError(.failed, failureReason: "wrong master password or key file (\(Self.maximumAttempts) attempts)"))
    }

    /// The key file the KeyFile setting names, read now; nil without the setting.
    func keyFile() throws(Access) -> KeyFile? {
        do {
            return try keyFilePath.map { path throws(KDBXError) in try KeyFile(contentsOf: path) }
        } catch {
            throw .failed(ExtensionError(.failed, failureReason: error.message))
        }
    }

    /// The key of a typed password and the key file: an empty password with a key file is none
    /// (a database protected by its key file alone), as in KeePassXC.
    static func compositeKey(_ password: Secret, _ keyFile: KeyFile?) -> CompositeKey {
        CompositeKey(password: password.isEmpty && keyFile != nil ? nil : password, keyFile: keyFile)
    }

    /// Asks for the master password of the unlocked database and checks it against the key held:
    /// the user verification a passkey request asks for when the host did not verify the user.
    func verifyMasterPassword(context: ExtensionContext, for purpose: String) throws(Access) {
        let keyFile = try keyFile()
        let password: Secret
        do {
            password = try context.promptForSecret(title: "\(Self.name): verify it's you", message: "\(purpose) Enter the master password of \(databasePath ?? "the database").")
        } catch .canceled {
            throw .failed(ExtensionError(.userCanceled))
        } catch {
            throw .failed(ExtensionError(.failed, failureReason: "verifying it's you needs the master password, and the host cannot show a prompt here; run in a terminal"))
        }
        guard memory.isHeld(with: Self.compositeKey(password, keyFile)) else {
            throw .failed(ExtensionError(.failed, failureReason: "that is not the database's master password"))
        }
    }

    /// Runs `body` with the database unlocked (asking if needed), or cancels `context` with the reason.
    func withUnlockedIndex(_ context: ExtensionContext, _ body: (KeePassIndex) -> Void) {
        do throws(Access) {
            body(try unlockedIndex(context: context))
        } catch {
            context.cancelRequest(because: error)
        }
    }
}
