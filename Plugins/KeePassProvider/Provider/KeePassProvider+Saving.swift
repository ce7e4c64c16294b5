import AutofillProviderKit
import Foundation
import KDBX
import VaultCore

/// iOS 26's entry points, as the Vault provider takes them: saving a password into the database,
/// generating one, and credential-update reports.
///
/// A save reads the database file again (a version KeePassXC saved since the unlock is the one
/// changed: reload, then apply), adds an entry to the root group or gives the user's entry for that
/// site a new password (the old one goes to its history), builds the new file in memory
/// (``KDBXWriter``) and hands it to the host, which replaces the file (`replace_file`: the sandbox
/// grants the database alone, read only, never its folder), only while the file on disk is still the
/// version read, by SHA-256. If another program saved the file since, nothing is written and the save
/// fails saying so; saving again applies it to the new version.
///
/// The sandbox keeps showing the version of the file it started with (a file bound into it stays that
/// file), so after a save the provider bases the next one on what it handed the host, as long as its
/// view of the file is unchanged (``lastSave``).
extension KeePassProvider: SavePasswordProviding, GeneratePasswordProviding, CredentialUpdateProviding {
    func prepareInterface(forSavePasswordRequest request: SavePasswordRequest, context: ExtensionContext) {
        guard let databasePath else {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: "no database is configured: set WritableDatabaseFile in the KeePassXC provider's settings (docs/CONFIGURATION.md)"))
            return
        }
        guard savesToDatabase else {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: """
                saving into the KeePassXC database is off: it is named by DatabaseFile, which autofill only reads. To save into \
                it, name it by WritableDatabaseFile instead (autofill then replaces that one file for the provider; docs/CONFIGURATION.md)
                """))
            return
        }
        let key: CompositeKey
        do throws(Access) {
            key = try unlockedKey(context: context)
        } catch {
            context.cancelRequest(because: error)
            return
        }
        let credential = request.credential
        let service = request.serviceIdentifier
        var summary = "nothing to change: \(credential.user)'s password at \(service.identifier) is already this one"
        do {
            let start = ContinuousClock.now
            let base = try currentFile(databasePath)
            let replace = { (contents: [UInt8], saved: SavedFile) throws(KDBXError) in
                try self.replace(saved, with: contents, context: context)
            }
            let saved = try KDBXWriter.save(base, key: key, kdfLimit: memory.keyDerivationLimit, replace: replace) { database in
                let index = KeePassIndex(database)
                if let entry = Self.login(of: credential.user, at: service, in: index) {
                    // The raw entry: its password may be a reference the index resolved.
                    let raw = database.entries.first { $0.uuid == entry.uuid }
                    guard raw?.password.revealed != credential.password.revealed else { return nil }
                    summary = "saved a new password for \(credential.user) at \(service.identifier) (the entry \"\(entry.title)\"; the old one is in its history)"
                    return .setPassword(uuid: entry.uuid, password: credential.password)
                }
                let title = request.title.flatMap { $0.isEmpty ? nil : $0 } ?? KeePassServices.host(of: service)
                summary = "added the entry \"\(title)\" for \(credential.user) at \(service.identifier) to the root group"
                return .add(title: title, userName: credential.user, password: credential.password, url: Self.url(of: service))
            }
            let index = KeePassIndex(saved)
            memory.adopt(index, stamp: DatabaseFile(databasePath, host: host).stamp)
            host.log(.info, "\(summary) in \(Self.milliseconds(since: start)) ms")
            publish(index)
            context.completeSavePasswordRequest()
        } catch {
            if error.code == .wrongKey { memory.lock() }
            host.log(.error, "saving: \(error.message)")
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: error.message))
        }
    }

    /// The database as the next save is based on: the file as it is now, opened by the host
    /// (``DatabaseFile``); without that, what the last save handed the host while the sandbox's view of
    /// the file is unchanged since (it still shows the version read before), else the file as read now.
    private func currentFile(_ path: String) throws(KDBXError) -> SavedFile {
        let file = DatabaseFile(path, host: host)
        if file.isCurrent {
            lastSave.withLock { $0 = nil }
            return try file.saved()
        }
        if let last = lastSave.withLock({ $0 }), last.path == path || last.path == realPath(path), last.isUnchangedOrUnlinked { return last }
        lastSave.withLock { $0 = nil }
        return try SavedFile(reading: path)
    }

    /// Hands `contents` to the host to replace `saved`'s file, only while it is still the version read.
    private func replace(_ saved: SavedFile, with contents: [UInt8], context: ExtensionContext) throws(KDBXError) {
        switch context.replaceFile(saved.path, with: contents, basedOn: saved.sha256) {
        case .replaced:
            lastSave.withLock { $0 = saved.replaced(by: contents) }
        case .changedOnDisk:
            lastSave.withLock { $0 = nil }
            throw KDBXError(.changedOnDisk, """
                the database changed on disk since it was read: \(saved.path) is no longer the version this save was based on \
                (another program saved it); nothing was written; save again to apply the change to the new version
                """)
        case .notPending:
            throw KDBXError(.unwritable, "the save request ended before autofill could replace the database; nothing was written")
        case .failed(let reason):
            throw KDBXError(.unwritable, "autofill did not replace the database: \(reason)")
        }
    }

    /// `path` with every link resolved, as ``SavedFile`` names the file it read.
    private func realPath(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// A password that honours the request's rules (the host checks it again), from the SDK's
    /// generator, as the Vault's. Needs no unlock: generating saves nothing.
    func prepareInterface(forGeneratePasswordRequest request: GeneratePasswordRequest, context: ExtensionContext) {
        context.completeGeneratePasswordRequest(honouring: request)
    }

    /// Reports are taken and logged, and the database is left as it is: KeePassXC has no mark for
    /// an unused password, and a passkey stays until the user removes it in KeePassXC (a site's word
    /// alone does not delete what the user keeps in their own database).
    func report(_ update: CredentialUpdate, context: ExtensionContext) {
        host.log(.info, "report about \(update.service) taken; the database is not changed for it (KeePassXC keeps no such marks)")
        context.completeCredentialUpdate()
    }

    /// The user's entry for `service`: the same user name and a URL on the same host.
    static func login(of user: String, at service: ServiceIdentifier, in index: KeePassIndex) -> KDBXEntry? {
        index.ordered.first { entry in
            entry.userName == user && entry.urls.compactMap(KeePassServices.service(for:)).contains { KeePassServices.closeness(of: $0, to: [service]) == 2 }
        }
    }

    /// The URL a new entry gets: the site's URL, or `https://` and the domain.
    static func url(of service: ServiceIdentifier) -> String {
        service.type == .domain ? "https://\(service.identifier)" : service.identifier
    }
}
