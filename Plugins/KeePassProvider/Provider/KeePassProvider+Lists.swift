import AutofillProviderKit

/// The lists the user opens: logins and one-time codes, matching ones first, expired ones marked.
extension KeePassProvider: CredentialListProviding {
    func prepareCredentialList(for serviceIdentifiers: [ServiceIdentifier], context: ExtensionContext) {
        withUnlockedIndex(context) { index in
            let logins = index.logins(for: serviceIdentifiers)
            guard !logins.isEmpty else {
                context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the database has no entries with a password"))
                return
            }
            do throws(UserInterfaceError) {
                let chosen = try context.choose(title: "\(Self.name): choose a login", items: logins.map { KeePassIndex.line($0) })
                guard logins.indices.contains(chosen) else { throw .canceled }
                complete(context, with: logins[chosen])
            } catch {
                context.cancelRequest(after: error, doing: "choosing a login")
            }
        }
    }
}

extension KeePassProvider: OneTimeCodeListProviding {
    func prepareOneTimeCodeCredentialList(for serviceIdentifiers: [ServiceIdentifier], context: ExtensionContext) {
        withUnlockedIndex(context) { index in
            let entries = index.oneTimeCodes(for: serviceIdentifiers)
            guard !entries.isEmpty else {
                context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the database has no entries with a one-time code"))
                return
            }
            do throws(UserInterfaceError) {
                let chosen = try context.choose(title: "\(Self.name): choose a one-time code", items: entries.map { KeePassIndex.line($0) })
                guard entries.indices.contains(chosen) else { throw .canceled }
                complete(context, withCodeOf: entries[chosen])
            } catch {
                context.cancelRequest(after: error, doing: "choosing a one-time code")
            }
        }
    }
}
