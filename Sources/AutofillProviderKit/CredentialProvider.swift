public import AutofillCore

/// A credential provider (Apple's `ASCredentialProviderViewController`), split by capability.
///
/// Conform to ``CredentialProvider`` and to the protocols for what your Info.plist declares;
/// ``ProviderExport`` fills the C table with exactly the entry points your type implements,
/// and the host refuses a plugin whose declared capabilities lack them:
///
/// | Info.plist capability | protocols |
/// |---|---|
/// | ProvidesPasswords | ``CredentialListProviding``, ``CredentialProviding`` |
/// | ProvidesPasskeys | ``PasskeyCredentialListProviding``, ``CredentialProviding``, ``PasskeyRegistrationProviding`` |
/// | ProvidesOneTimeCodes | ``OneTimeCodeListProviding``, ``CredentialProviding`` |
/// | ProvidesTextToInsert | ``TextToInsertProviding`` |
/// | SupportsConditionalPasskeyRegistration | ``ConditionalPasskeyRegistrationProviding`` |
/// | ShowsConfigurationUI | ``ExtensionConfigurationProviding`` |
/// | SupportsSavePasswordCredentials | ``SavePasswordProviding`` |
/// | SupportsGeneratePasswordCredentials | ``GeneratePasswordProviding`` |
/// | SupportsCredentialUpdate | ``CredentialUpdateProviding`` |
///
/// Implementation requirements: every entry point gets a fresh ``ExtensionContext`` and must
/// complete or cancel through it exactly once, now or later, from any thread. Entry points are
/// called one at a time on a host thread; return promptly. No-UI entry points must not block on
/// anything slow: the host gives up after its deadline (3 s by default).
public protocol CredentialProvider: AnyObject, Sendable {
    /// Creates the provider when the host loads the plugin. Throw to refuse to load (the error is logged).
    init(host: ProviderHost) throws
}

/// `prepareCredentialList(for:)`: show every credential, matching ones first; complete with a password.
public protocol CredentialListProviding: CredentialProvider {
    func prepareCredentialList(for serviceIdentifiers: [ServiceIdentifier], context: ExtensionContext)
}

/// `prepareCredentialList(for:requestParameters:)`: the list during a passkey assertion.
public protocol PasskeyCredentialListProviding: CredentialProvider {
    func prepareCredentialList(
        for serviceIdentifiers: [ServiceIdentifier], requestParameters: PasskeyParameters, context: ExtensionContext)
}

/// `prepareOneTimeCodeCredentialList(for:)`: the list for a one-time-code field.
public protocol OneTimeCodeListProviding: CredentialProvider {
    func prepareOneTimeCodeCredentialList(for serviceIdentifiers: [ServiceIdentifier], context: ExtensionContext)
}

/// The two ways to answer a picked identity: silently first, then with UI.
public protocol CredentialProviding: CredentialProvider {
    /// No UI allowed: complete at once, or cancel with `userInteractionRequired`.
    func provideCredentialWithoutUserInteraction(for credentialRequest: CredentialRequest, context: ExtensionContext)
    /// After `userInteractionRequired`: show minimal UI (unlock), then complete.
    func prepareInterfaceToProvideCredential(for credentialRequest: CredentialRequest, context: ExtensionContext)
}

/// `prepareInterface(forPasskeyRegistration:)`: create a passkey, with UI.
public protocol PasskeyRegistrationProviding: CredentialProvider {
    func prepareInterface(forPasskeyRegistration registrationRequest: PasskeyRegistrationRequest, context: ExtensionContext)
}

/// `performWithoutUserInteractionIfPossible(passkeyRegistration:)`: automatic passkey upgrade, never UI.
public protocol ConditionalPasskeyRegistrationProviding: CredentialProvider {
    func performWithoutUserInteractionIfPossible(
        passkeyRegistration registrationRequest: PasskeyRegistrationRequest, context: ExtensionContext)
}

/// `prepareInterfaceForExtensionConfiguration()`: right after the user enables the provider.
public protocol ExtensionConfigurationProviding: CredentialProvider {
    func prepareInterfaceForExtensionConfiguration(context: ExtensionContext)
}

/// `prepareInterfaceForUserChoosingTextToInsert()`: let the user choose text to insert.
public protocol TextToInsertProviding: CredentialProvider {
    func prepareInterfaceForUserChoosingTextToInsert(context: ExtensionContext)
}

/// `prepareInterface(for: ASSavePasswordRequest)` (iOS 26): add the login or update its password,
/// publish its identity, then ``ExtensionContext/completeSavePasswordRequest()``. UI allowed (to unlock).
public protocol SavePasswordProviding: CredentialProvider {
    func prepareInterface(forSavePasswordRequest request: SavePasswordRequest, context: ExtensionContext)
}

/// `prepareInterface(for: ASGeneratePasswordsRequest)` (iOS 26): generate a password that honours
/// `request.passwordRules` (``PasswordRules/parse(_:)`` reads them) and complete with
/// ``ExtensionContext/completeGeneratePasswordRequest(with:)``; the host checks it against the rules.
public protocol GeneratePasswordProviding: CredentialProvider {
    func prepareInterface(forGeneratePasswordRequest request: GeneratePasswordRequest, context: ExtensionContext)
}

/// The `report…` methods (iOS 26, `SupportsCredentialUpdate`): apply a credential-update report,
/// then ``ExtensionContext/completeCredentialUpdate()``. UI only to unlock; never show an error for it.
public protocol CredentialUpdateProviding: CredentialProvider {
    func report(_ update: CredentialUpdate, context: ExtensionContext)
}
