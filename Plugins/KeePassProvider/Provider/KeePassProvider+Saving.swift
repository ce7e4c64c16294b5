import AutofillProviderKit
import Foundation
import KDBX
import VaultCore

/// iOS 26's entry points, as the Vault provider takes them: saving a password into the database,
/// generating one, and credential-update reports.
///
/// A save reads the database file again (a version KeePassXC saved since the unlock is the one
/// changed: reload, then apply), adds an entry to the root group or gives the user's entry for that
/// site a new password (the old one goes to its history), and replaces the file atomically
/// (``KDBXWriter``). If another program changes the file while the save runs, nothing is written and
/// the save fails saying so; saving again applies it to the new version.
extension KeePassProvider: SavePasswordProviding, GeneratePasswordProviding, CredentialUpdateProviding {
    func prepareInterface(forSavePasswordRequest request: SavePasswordRequest, context: ExtensionContext) {
        guard let databasePath else {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: "no database is configured: set WritableDatabaseFile in the KeePassXC provider's settings (docs/CONFIGURATION.md)"))
            return
        }
        guard savesToDatabase else {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: """
                saving into the KeePassXC database is off: it is named by DatabaseFile, which autofill only reads. To save into \
                it, name it by WritableDatabaseFile instead (its folder is then granted read and change, so keep the database in \
                a folder of its own, such as ~/Passwords/; docs/CONFIGURATION.md)
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
            let saved = try KDBXWriter.save(at: databasePath, key: key, kdfLimit: memory.keyDerivationLimit) { database in
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
            memory.adopt(index, path: databasePath)
            host.log(.info, "\(summary) in \(Self.milliseconds(since: start)) ms")
            publish(index)
            context.completeSavePasswordRequest()
        } catch {
            if error.code == .wrongKey { memory.lock() }
            host.log(.error, "saving: \(error.message)")
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: error.message))
        }
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
