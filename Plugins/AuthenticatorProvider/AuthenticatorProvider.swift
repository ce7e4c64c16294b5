// AuthenticatorProvider: the sample provider for one-time codes only.
//
// It reads otpauth:// URIs (one per line) from the file named by its `OTPAuthFile` setting and
// publishes a one-time-code identity for each. Generating the codes arrives with issue C.
import AutofillProviderKit
import FoundationEssentials

/// The exported entry function named by Info.plist's AFProviderEntrySymbol.
@c(authenticator_provider_entry)
public func authenticatorProviderEntry(_ hostABIVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    ProviderExport.entry(AuthenticatorProvider.self, hostABIVersion: hostABIVersion, host: host)
}

/// A provider that declares only ProvidesOneTimeCodes.
final class AuthenticatorProvider: CredentialProvider, OneTimeCodeListProviding, CredentialProviding {
    let host: ProviderHost
    let identities: [OneTimeCodeCredentialIdentity]

    init(host: ProviderHost) throws {
        self.host = host
        identities = Self.readIdentities(host: host)
        do {
            try host.identityStore.replace(with: identities.map { .oneTimeCode($0) })
            host.log(.info, "published \(identities.count) one-time-code identities")
        } catch {
            host.log(.debug, "identities not published: \(error)")
        }
    }

    /// One identity per `otpauth://` URI: the issuer's domain (or the label's issuer) and the account label.
    static func readIdentities(host: ProviderHost) -> [OneTimeCodeCredentialIdentity] {
        guard let path = host.setting("OTPAuthFile") else {
            host.log(.info, "no OTPAuthFile setting; serving no codes")
            return []
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            host.log(.warning, "cannot read OTPAuthFile \(path)")
            return []
        }
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
        return lines.enumerated().compactMap { index, line in
            guard let components = URLComponents(string: String(line)), components.scheme == "otpauth" else { return nil }
            let label = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            let issuer = components.queryItems?.first { $0.name == "issuer" }?.value
            let service = components.queryItems?.first { $0.name == "af_domain" }?.value ?? issuer?.lowercased() ?? label
            return OneTimeCodeCredentialIdentity(
                serviceIdentifier: ServiceIdentifier(identifier: service, type: .domain), label: label,
                recordIdentifier: "otp-\(index + 1)")
        }
    }

    func prepareOneTimeCodeCredentialList(for serviceIdentifiers: [ServiceIdentifier], context: ExtensionContext) {
        context.cancelRequest(withError: ExtensionError(.failed, failureReason: "AuthenticatorProvider does not generate codes yet"))
    }

    func provideCredentialWithoutUserInteraction(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        guard case .oneTimeCode(let identity) = credentialRequest,
            identities.contains(where: { $0.recordIdentifier == identity.recordIdentifier })
        else {
            context.cancelRequest(withError: ExtensionError(.credentialIdentityNotFound))
            return
        }
        context.cancelRequest(withError: ExtensionError(.failed, failureReason: "AuthenticatorProvider does not generate codes yet"))
    }

    func prepareInterfaceToProvideCredential(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        provideCredentialWithoutUserInteraction(for: credentialRequest, context: context)
    }
}
