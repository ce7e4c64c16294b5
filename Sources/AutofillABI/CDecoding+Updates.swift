public import AutofillCore
public import CAutofillProvider

extension CDecode {
    /// Checks that a struct that starts with its size holds every field this build reads.
    static func checkStructSize(_ size: UInt32, _ type: Any.Type, needed: Int, field: String) throws(ABIDecodingError) {
        guard Int(size) >= needed else {
            throw ABIDecodingError("\(field).size: \(size) bytes, but a \(type) has \(needed)")
        }
    }

    /// A save-password request (appended to ABI 1).
    public static func savePasswordRequest(_ c: af_save_password_request) throws(ABIDecodingError) -> SavePasswordRequest {
        try checkStructSize(c.size, af_save_password_request.self, needed: MemoryLayout<af_save_password_request>.size, field: "save")
        guard let event = SavePasswordRequest.Event(rawValue: c.event) else {
            throw ABIDecodingError("save.event: \(c.event) is not an AF_SAVE_EVENT_* value")
        }
        let password = try string(c.password, field: "save.password")
        guard !password.isEmpty else { throw ABIDecodingError("save.password: empty") }
        return SavePasswordRequest(
            serviceIdentifier: try serviceIdentifier(c.service, field: "save.service"),
            credential: PasswordCredential(user: try string(c.user, field: "save.user"), password: Secret(password)),
            title: try optionalString(c.title, field: "save.title"), event: event)
    }

    /// A generate-password request (appended to ABI 1).
    public static func generatePasswordRequest(_ c: af_generate_password_request) throws(ABIDecodingError)
        -> GeneratePasswordRequest
    {
        try checkStructSize(c.size, af_generate_password_request.self, needed: MemoryLayout<af_generate_password_request>.size,
                            field: "generate")
        return GeneratePasswordRequest(
            serviceIdentifier: try serviceIdentifier(c.service, field: "generate.service"),
            passwordRules: try optionalString(c.password_rules, field: "generate.password_rules"))
    }

    /// A credential-update report (appended to ABI 1).
    public static func credentialUpdate(_ c: af_credential_update) throws(ABIDecodingError) -> CredentialUpdate {
        try checkStructSize(c.size, af_credential_update.self, needed: MemoryLayout<af_credential_update>.size, field: "update")
        let service = try string(c.service, field: "update.service")
        var ids: [[UInt8]] = []
        for (index, id) in try array(c.credential_ids, c.credential_id_count, limit: 4096, field: "update.credential_ids").enumerated() {
            ids.append(try bytes(id, field: "update.credential_ids[\(index)]"))
        }
        let userHandle = try bytes(c.user_handle, field: "update.user_handle")
        switch c.kind {
        case Int32(AF_UPDATE_UNUSED_PASSWORD):
            return .unusedPassword(domain: service, user: try string(c.user, field: "update.user"))
        case Int32(AF_UPDATE_UNKNOWN_PASSKEY):
            guard ids.count == 1 else { throw ABIDecodingError("update.credential_ids: an unknown-passkey report names one, not \(ids.count)") }
            return .unknownPasskey(relyingParty: service, credentialID: ids[0])
        case Int32(AF_UPDATE_ACCEPTED_PASSKEYS):
            return .acceptedPasskeys(relyingParty: service, userHandle: userHandle, credentialIDs: ids)
        case Int32(AF_UPDATE_PASSKEY_USER_DETAILS):
            return .passkeyUserDetails(relyingParty: service, userHandle: userHandle, name: try string(c.user, field: "update.user"),
                                       displayName: try string(c.display_name, field: "update.display_name"))
        default:
            throw ABIDecodingError("update.kind: \(c.kind) is not an AF_UPDATE_* value")
        }
    }
}
