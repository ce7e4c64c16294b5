import AutofillProviderKit

/// Passkeys arrive with issue D; until then every passkey entry point answers `failed`.
extension VaultProvider: PasskeyCredentialListProviding, PasskeyRegistrationProviding, ConditionalPasskeyRegistrationProviding {
    func prepareCredentialList(
        for serviceIdentifiers: [ServiceIdentifier], requestParameters: PasskeyParameters, context: ExtensionContext
    ) {
        context.cancelRequest(withError: ExtensionError(.failed, failureReason: Self.passkeysLater))
    }

    func prepareInterface(forPasskeyRegistration registrationRequest: PasskeyRegistrationRequest, context: ExtensionContext) {
        context.cancelRequest(withError: ExtensionError(.failed, failureReason: Self.passkeysLater))
    }

    func performWithoutUserInteractionIfPossible(
        passkeyRegistration registrationRequest: PasskeyRegistrationRequest, context: ExtensionContext
    ) {
        context.cancelRequest(withError: ExtensionError(.failed, failureReason: Self.passkeysLater))
    }
}
