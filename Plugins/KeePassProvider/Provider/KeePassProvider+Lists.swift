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
                cancel(context, after: error, doing: "choosing a login")
            }
        }
    }

    /// Cancels after a UI call failed: the user cancelled, or there is no UI.
    func cancel(_ context: ExtensionContext, after error: UserInterfaceError, doing what: String) {
        switch error {
        case .canceled: context.cancelRequest(withError: ExtensionError(.userCanceled))
        case .unavailable: context.cancelRequest(withError: ExtensionError(.failed, failureReason: "\(what) needs the host's UI"))
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
                cancel(context, after: error, doing: "choosing a one-time code")
            }
        }
    }
}
