// KeePassProvider: serves a KeePassXC database (KDBX 3.1 or 4.x) through the KDBX reader, and saves
// passwords into it through the KDBX writer (KeePassProvider+Saving.swift).
// It publishes identities when the database is unlocked (KDBX 4 encrypts even the URLs, so nothing
// can be published before), asks for the master password through the host's UI, takes the key
// file from its setting, and keeps the unlocked database in memory for UnlockTimeoutSeconds.
import AutofillProviderKit
import Foundation
import KDBX
import Synchronization

/// The exported entry function named by Info.plist's AFProviderEntrySymbol.
@c(keepass_provider_entry)
public func keePassProviderEntry(_ hostABIVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    ProviderExport.entry(KeePassProvider.self, hostABIVersion: hostABIVersion, host: host)
}

/// A provider serving the KeePass database named by its `DatabaseFile` setting.
///
/// Settings: `DatabaseFile` (the .kdbx, read only; without it, or `WritableDatabaseFile` instead (the
/// .kdbx, read and saved into), the provider serves nothing), `KeyFile` (the
/// key file, when the database has one), `UnlockTimeoutSeconds` (how long an unlock lasts;
/// default 300, 0 for the request that unlocked only) and `MaximumUnlockSeconds` (the longest key
/// derivation the file may ask for, estimated before it runs; default 10, 1 to 600). The file is
/// written only by a save (``KDBXWriter``).
final class KeePassProvider: CredentialProvider {
    let host: ProviderHost
    /// The database file, if a setting names one: `WritableDatabaseFile`, else `DatabaseFile`.
    let databasePath: String?
    /// Whether saves may write the database: it was named by `WritableDatabaseFile`, which the host
    /// replaces for the provider (`replace-file`; the provider itself only reads it).
    let savesToDatabase: Bool
    /// The database as the last save handed it to the host (``KeePassProvider/prepareInterface(forSavePasswordRequest:context:)``).
    let lastSave = Mutex<SavedFile?>(nil)
    /// The key file, if the setting names one.
    let keyFilePath: String?
    let memory: DatabaseMemory

    static let name = "KeePassXC"
    /// The largest `MaximumUnlockSeconds`.
    static let maximumKeyDerivationSeconds = 600
    static let maximumAttempts = 3

    init(host: ProviderHost) throws {
        self.host = host
        let readOnly = host.setting("DatabaseFile").flatMap { $0.isEmpty ? nil : $0 }
        let writable = host.setting("WritableDatabaseFile").flatMap { $0.isEmpty ? nil : $0 }
        databasePath = writable ?? readOnly
        savesToDatabase = writable != nil
        if let writable, let readOnly, writable != readOnly {
            host.log(.warning, "WritableDatabaseFile and DatabaseFile name different files; serving WritableDatabaseFile (set one of them)")
        }
        keyFilePath = host.setting("KeyFile").flatMap { $0.isEmpty ? nil : $0 }
        if databasePath == nil {
            host.log(.info, "no DatabaseFile setting: serving nothing (set DatabaseFile to your .kdbx in the provider's settings)")
        }
        var timeout = DatabaseMemory.defaultTimeout
        if let setting = host.setting("UnlockTimeoutSeconds") {
            if let seconds = Int(setting), (0...DatabaseMemory.maximumTimeout).contains(seconds) {
                timeout = seconds
            } else {
                host.log(.warning, "UnlockTimeoutSeconds \"\(setting)\" is not 0 to \(DatabaseMemory.maximumTimeout) seconds; using \(timeout)")
            }
        }
        var limit = KeyDerivationCost.defaultLimit
        if let setting = host.setting("MaximumUnlockSeconds") {
            if let seconds = Int(setting), (1...Self.maximumKeyDerivationSeconds).contains(seconds) {
                limit = .seconds(seconds)
            } else {
                host.log(.warning, "MaximumUnlockSeconds \"\(setting)\" is not 1 to \(Self.maximumKeyDerivationSeconds) seconds; using 10")
            }
        }
        memory = DatabaseMemory(timeout: timeout, keyDerivationLimit: limit)
    }

    /// Whole milliseconds since `start`, for the log.
    static func milliseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }

    /// Replaces the published identities with the database's; logs instead of failing.
    func publish(_ index: KeePassIndex) {
        let start = ContinuousClock.now
        let identities = index.identities()
        do {
            try host.identityStore.replace(with: identities)
            host.log(.info, "published \(identities.count) identities from the database in \(Self.milliseconds(since: start)) ms")
        } catch {
            host.log(error.code == .storeDisabled ? .debug : .warning, "identities not published: \(error)")
        }
    }
}
