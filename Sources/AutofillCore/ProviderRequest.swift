/// One call of a provider entry point, as the host sends it through any transport.
public enum ProviderRequest: Hashable, Sendable {
    /// The user opened the provider's full credential list.
    case credentialList([ServiceIdentifier])
    /// The full list during a passkey assertion.
    case passkeyCredentialList([ServiceIdentifier], PasskeyParameters)
    /// The list of one-time codes.
    case oneTimeCodeList([ServiceIdentifier])
    /// The user picked an identity: answer without UI.
    case credentialWithoutUserInteraction(CredentialRequest)
    /// After `userInteractionRequired`: answer with the provider's own UI.
    case interfaceToProvideCredential(CredentialRequest)
    /// Create a passkey, with UI.
    case passkeyRegistration(PasskeyRegistrationRequest)
    /// Automatic passkey upgrade: never UI.
    case conditionalPasskeyRegistration(PasskeyRegistrationRequest)
    /// Configure the provider right after it was enabled.
    case extensionConfiguration
    /// Let the user choose text to insert.
    case textToInsert
    /// Save a password (iOS 26).
    case savePassword(SavePasswordRequest)
    /// Generate a password that honours the site's rules (iOS 26).
    case generatePassword(GeneratePasswordRequest)
    /// A credential-update report (iOS 26).
    case credentialUpdate(CredentialUpdate)

    /// The entry point this request calls.
    public var entryPoint: EntryPoint {
        switch self {
        case .credentialList: .prepareCredentialList
        case .passkeyCredentialList: .prepareCredentialListForPasskey
        case .oneTimeCodeList: .prepareOneTimeCodeList
        case .credentialWithoutUserInteraction: .provideCredentialWithoutUserInteraction
        case .interfaceToProvideCredential: .prepareInterfaceToProvideCredential
        case .passkeyRegistration: .prepareInterfaceForPasskeyRegistration
        case .conditionalPasskeyRegistration: .performPasskeyRegistrationWithoutUserInteraction
        case .extensionConfiguration: .prepareInterfaceForExtensionConfiguration
        case .textToInsert: .prepareInterfaceForTextToInsert
        case .savePassword: .prepareInterfaceForSavePassword
        case .generatePassword: .prepareInterfaceForGeneratePassword
        case .credentialUpdate: .reportCredentialUpdate
        }
    }

    /// The credential kinds that may complete this request.
    public var acceptedCompletions: Set<Credential.Kind> {
        switch self {
        case .credentialList: [.password]
        case .passkeyCredentialList: [.password, .passkeyAssertion]
        case .oneTimeCodeList: [.oneTimeCode]
        case .credentialWithoutUserInteraction(let request), .interfaceToProvideCredential(let request):
            switch request {
            case .password: [.password]
            case .passkeyAssertion: [.passkeyAssertion]
            case .oneTimeCode: [.oneTimeCode]
            }
        case .passkeyRegistration, .conditionalPasskeyRegistration: [.passkeyRegistration]
        case .extensionConfiguration: [.configurationCompleted]
        case .textToInsert: [.text]
        case .savePassword: [.passwordSaved]
        case .generatePassword: [.generatedPassword]
        case .credentialUpdate: [.updateReported]
        }
    }
}
