// VaultProvider: the sample provider that declares every capability.
//
// In this release it serves a few fixed entries so that every entry point of the C ABI is
// exercised end to end; the encrypted vault (issue C) and real passkeys (issue D) replace them.
import AutofillProviderKit

/// The exported entry function named by Info.plist's AFProviderEntrySymbol.
@c(vault_provider_entry)
public func vaultProviderEntry(_ hostABIVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    ProviderExport.entry(VaultProvider.self, hostABIVersion: hostABIVersion, host: host)
}

/// A provider with passwords, passkeys, one-time codes, text and configuration.
final class VaultProvider: CredentialProvider {
    struct Entry {
        let identity: PasswordCredentialIdentity
        let password: Secret
    }

    static let entries: [Entry] = [
        Entry(identity: .init(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: "alice",
                              recordIdentifier: "vault-1", rank: 2), password: Secret("correct horse battery staple")),
        Entry(identity: .init(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: "bob",
                              recordIdentifier: "vault-2", rank: 1), password: Secret("hunter2-but-longer")),
        Entry(identity: .init(serviceIdentifier: .init(identifier: "https://accounts.example.org/login", type: .url),
                              user: "alice@example.org", recordIdentifier: "vault-3"), password: Secret("tr0ub4dor&3")),
    ]

    static let snippets: [(title: String, text: String)] = [
        ("Postal address", "1 Infinite Loop, Cupertino"),
        ("Support reply", "Thanks for reaching out; we will get back to you within a day."),
    ]

    let host: ProviderHost

    init(host: ProviderHost) throws {
        self.host = host
        do {
            try host.identityStore.replace(with: Self.entries.map { .password($0.identity) })
            host.log(.info, "published \(Self.entries.count) password identities")
        } catch {
            // Disabled while the host only validates the plugin: nothing to publish to.
            host.log(.debug, "identities not published: \(error)")
        }
    }

    func entry(for identity: PasswordCredentialIdentity) -> Entry? {
        Self.entries.first { entry in
            if let record = identity.recordIdentifier { return entry.identity.recordIdentifier == record }
            return entry.identity.serviceIdentifier == identity.serviceIdentifier && entry.identity.user == identity.user
        }
    }

    func notYet(_ what: String, _ context: ExtensionContext) {
        context.cancelRequest(withError: ExtensionError(.failed, failureReason: "VaultProvider does not do \(what) yet"))
    }
}

extension VaultProvider: CredentialListProviding {
    func prepareCredentialList(for serviceIdentifiers: [ServiceIdentifier], context: ExtensionContext) {
        let wanted = Set(serviceIdentifiers.map(\.identifier))
        let ordered = Self.entries.filter { wanted.contains($0.identity.serviceIdentifier.identifier) }
            + Self.entries.filter { !wanted.contains($0.identity.serviceIdentifier.identifier) }
        do {
            let index = try context.choose(
                title: "Vault: choose a login",
                items: ordered.map { "\($0.identity.user) — \($0.identity.serviceIdentifier.identifier)" })
            let entry = ordered[index]
            context.completeRequest(withSelectedCredential: PasswordCredential(user: entry.identity.user, password: entry.password))
        } catch .canceled {
            context.cancelRequest(withError: ExtensionError(.userCanceled))
        } catch {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: "choosing a login needs the host's UI"))
        }
    }
}

extension VaultProvider: CredentialProviding {
    func provideCredentialWithoutUserInteraction(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        switch credentialRequest {
        case .password(let identity):
            guard let entry = entry(for: identity) else {
                context.cancelRequest(withError: ExtensionError(.credentialIdentityNotFound, failureReason: "no such login in the vault"))
                return
            }
            context.completeRequest(withSelectedCredential: PasswordCredential(user: entry.identity.user, password: entry.password))
        case .passkeyAssertion: notYet("passkey sign-in", context)
        case .oneTimeCode: notYet("one-time codes", context)
        }
    }

    func prepareInterfaceToProvideCredential(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        provideCredentialWithoutUserInteraction(for: credentialRequest, context: context)
    }
}

extension VaultProvider: PasskeyCredentialListProviding, PasskeyRegistrationProviding, ConditionalPasskeyRegistrationProviding {
    func prepareCredentialList(
        for serviceIdentifiers: [ServiceIdentifier], requestParameters: PasskeyParameters, context: ExtensionContext
    ) {
        notYet("passkey sign-in", context)
    }

    func prepareInterface(forPasskeyRegistration registrationRequest: PasskeyRegistrationRequest, context: ExtensionContext) {
        notYet("passkey registration", context)
    }

    func performWithoutUserInteractionIfPossible(
        passkeyRegistration registrationRequest: PasskeyRegistrationRequest, context: ExtensionContext
    ) {
        notYet("automatic passkey upgrades", context)
    }
}

extension VaultProvider: OneTimeCodeListProviding {
    func prepareOneTimeCodeCredentialList(for serviceIdentifiers: [ServiceIdentifier], context: ExtensionContext) {
        notYet("one-time codes", context)
    }
}

extension VaultProvider: TextToInsertProviding {
    func prepareInterfaceForUserChoosingTextToInsert(context: ExtensionContext) {
        do {
            let index = try context.choose(title: "Vault: choose text to insert", items: Self.snippets.map(\.title))
            context.completeRequest(withTextToInsert: Self.snippets[index].text)
        } catch .canceled {
            context.cancelRequest(withError: ExtensionError(.userCanceled))
        } catch {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: "choosing text needs the host's UI"))
        }
    }
}

extension VaultProvider: ExtensionConfigurationProviding {
    func prepareInterfaceForExtensionConfiguration(context: ExtensionContext) {
        try? context.showMessage(title: "Vault", message: "VaultProvider is ready. It serves a few fixed demo entries.")
        context.completeExtensionConfigurationRequest()
    }
}
