public import AutofillCore
public import CAutofillProvider

extension CArena {
    /// A save-password request as its C struct (appended to ABI 1).
    public func savePasswordRequest(_ request: SavePasswordRequest) -> UnsafePointer<af_save_password_request> {
        var c = af_save_password_request()
        c.size = UInt32(MemoryLayout<af_save_password_request>.size)
        c.event = request.event.rawValue
        c.service = serviceIdentifier(request.serviceIdentifier)
        c.user = str(request.credential.user)
        c.password = str(request.credential.password.revealed)
        c.title = str(request.title)
        return array([c])!
    }

    /// A generate-password request as its C struct (appended to ABI 1).
    public func generatePasswordRequest(_ request: GeneratePasswordRequest) -> UnsafePointer<af_generate_password_request> {
        var c = af_generate_password_request()
        c.size = UInt32(MemoryLayout<af_generate_password_request>.size)
        c.service = serviceIdentifier(request.serviceIdentifier)
        c.password_rules = str(request.passwordRules)
        return array([c])!
    }

    /// A credential-update report as its C struct (appended to ABI 1).
    public func credentialUpdate(_ update: CredentialUpdate) -> UnsafePointer<af_credential_update> {
        var c = af_credential_update()
        c.size = UInt32(MemoryLayout<af_credential_update>.size)
        c.service = str(update.service)
        var ids: [[UInt8]] = []
        switch update {
        case .unusedPassword(_, let user):
            c.kind = Int32(AF_UPDATE_UNUSED_PASSWORD)
            c.user = str(user)
        case .unknownPasskey(_, let credentialID):
            c.kind = Int32(AF_UPDATE_UNKNOWN_PASSKEY)
            ids = [credentialID]
        case .acceptedPasskeys(_, let userHandle, let credentialIDs):
            c.kind = Int32(AF_UPDATE_ACCEPTED_PASSKEYS)
            c.user_handle = bytes(userHandle)
            ids = credentialIDs
        case .passkeyUserDetails(_, let userHandle, let name, let displayName):
            c.kind = Int32(AF_UPDATE_PASSKEY_USER_DETAILS)
            c.user_handle = bytes(userHandle)
            c.user = str(name)
            c.display_name = str(displayName)
        }
        c.credential_ids = array(ids.map { bytes($0) })
        c.credential_id_count = ids.count
        return array([c])!
    }
}
