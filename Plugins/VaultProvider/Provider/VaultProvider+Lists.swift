import AutofillProviderKit
import VaultCore

/// The lists the user opens: logins, one-time codes, texts.
extension VaultProvider: CredentialListProviding {
    func prepareCredentialList(for serviceIdentifiers: [ServiceIdentifier], context: ExtensionContext) {
        serving {
            withUnlockedVault(context) { vault in
                let logins = ServiceInput.ordered(vault.index.passwords, by: \.service, for: serviceIdentifiers)
                guard !logins.isEmpty else {
                    context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the vault has no logins; add one with autofill-vault add-password"))
                    return
                }
                do throws(UserInterfaceError) {
                    let index = try context.choose(title: "\(Self.name): choose a login", items: logins.map { "\($0.user) — \($0.service.identifier)" })
                    complete(context, with: logins[index])
                } catch {
                    context.cancelRequest(after: error, doing: "choosing a login")
                }
            }
        }
    }
}

extension VaultProvider: OneTimeCodeListProviding {
    func prepareOneTimeCodeCredentialList(for serviceIdentifiers: [ServiceIdentifier], context: ExtensionContext) {
        serving {
            withUnlockedVault(context) { vault in
                let generators = ServiceInput.ordered(vault.index.oneTimeCodes, by: \.service, for: serviceIdentifiers)
                guard !generators.isEmpty else {
                    context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the vault has no one-time codes; add one with autofill-vault add-otp"))
                    return
                }
                do throws(UserInterfaceError) {
                    let index = try context.choose(
                        title: "\(Self.name): choose a one-time code", items: generators.map { "\($0.label) — \($0.service.identifier)" })
                    complete(context, withCodeOf: generators[index])
                } catch {
                    context.cancelRequest(after: error, doing: "choosing a one-time code")
                }
            }
        }
    }
}

extension VaultProvider: TextToInsertProviding {
    func prepareInterfaceForUserChoosingTextToInsert(context: ExtensionContext) {
        serving {
            withUnlockedVault(context) { vault in
                let texts = vault.index.texts
                guard !texts.isEmpty else {
                    context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the vault has no texts; add one with autofill-vault add-text"))
                    return
                }
                do throws(UserInterfaceError) {
                    let index = try context.choose(title: "\(Self.name): choose text to insert", items: texts.map(\.title))
                    context.completeRequest(withTextToInsert: texts[index].text.revealed)
                } catch {
                    context.cancelRequest(after: error, doing: "choosing text")
                }
            }
        }
    }
}
