public import AutofillCore
public import CAutofillProvider

/// A C value that breaks the ABI's rules (NULL with a length, not UTF-8, over a limit, unknown enum value).
public struct ABIDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong, naming the field.
    public var message: String

    /// Creates a decoding error.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// Reads C ABI values into core models, checking every rule of the header.
public enum CDecode {
    /// A UTF-8 string of `length` bytes at `data`; `field` names it in errors.
    ///
    /// `length` is the C `size_t` read as `Int`: a value of 2^63 or more (`SIZE_MAX`, a negative
    /// number passed by mistake) arrives negative, and is refused like any length over the limit,
    /// before the pointer is looked at.
    public static func string(_ data: UnsafePointer<CChar>?, _ length: Int, field: String) throws(ABIDecodingError) -> String {
        try checkLength(length, limit: Int(AF_MAX_STRING_LENGTH), field: field)
        guard length > 0 else { return "" }
        guard let data else { throw ABIDecodingError("\(field): NULL pointer with length \(length)") }
        let buffer = UnsafeRawBufferPointer(start: data, count: length).bindMemory(to: UInt8.self)
        guard let text = String(validating: buffer, as: UTF8.self) else {
            throw ABIDecodingError("\(field): not valid UTF-8")
        }
        return text
    }

    /// An `af_str`.
    public static func string(_ value: af_str, field: String) throws(ABIDecodingError) -> String {
        try string(value.data, value.length, field: field)
    }

    /// An `af_str` where empty means absent.
    public static func optionalString(_ value: af_str, field: String) throws(ABIDecodingError) -> String? {
        let text = try string(value, field: field)
        return text.isEmpty ? nil : text
    }

    /// An `af_bytes`.
    public static func bytes(_ value: af_bytes, field: String) throws(ABIDecodingError) -> [UInt8] {
        try checkLength(value.length, limit: Int(AF_MAX_BYTES_LENGTH), field: field)
        guard value.length > 0 else { return [] }
        guard let data = value.data else { throw ABIDecodingError("\(field): NULL pointer with length \(value.length)") }
        return Array(UnsafeBufferPointer(start: data, count: value.length))
    }

    /// Refuses a length (a C `size_t` read as `Int`) over `limit`, or of 2^63 or more (negative here).
    public static func checkLength(_ length: Int, limit: Int, field: String) throws(ABIDecodingError) {
        guard length >= 0, length <= limit else {
            throw ABIDecodingError("\(field): \(describeSize(length)) bytes, over the limit of \(limit)")
        }
    }

    /// A C `size_t` read as `Int`, printed as C sees it (`SIZE_MAX` shows as 18446744073709551615).
    static func describeSize(_ value: Int) -> String {
        String(UInt(bitPattern: value))
    }

    /// A C array of `count` elements (`count` a C `size_t` read as `Int`, refused when negative, that
    /// is 2^63 or more, or over `limit`); `field` names it in errors.
    public static func array<T>(_ pointer: UnsafePointer<T>?, _ count: Int, limit: Int, field: String)
        throws(ABIDecodingError) -> UnsafeBufferPointer<T>
    {
        guard count >= 0, count <= limit else {
            throw ABIDecodingError("\(field): \(describeSize(count)) elements, over the limit of \(limit)")
        }
        guard count > 0 else { return UnsafeBufferPointer(start: nil, count: 0) }
        guard let pointer else { throw ABIDecodingError("\(field): NULL pointer with count \(count)") }
        return UnsafeBufferPointer(start: pointer, count: count)
    }

    /// A service identifier.
    public static func serviceIdentifier(_ c: af_service_identifier, field: String) throws(ABIDecodingError)
        -> ServiceIdentifier
    {
        guard let type = ServiceIdentifier.IdentifierType(cValue: c.type) else {
            throw ABIDecodingError("\(field).type: \(c.type) is neither AF_SERVICE_DOMAIN nor AF_SERVICE_URL")
        }
        return ServiceIdentifier(identifier: try string(c.identifier, field: "\(field).identifier"), type: type)
    }

    /// An array of service identifiers.
    public static func serviceIdentifiers(_ pointer: UnsafePointer<af_service_identifier>?, _ count: Int)
        throws(ABIDecodingError) -> [ServiceIdentifier]
    {
        var result: [ServiceIdentifier] = []
        for (index, c) in try array(pointer, count, limit: 4096, field: "services").enumerated() {
            result.append(try serviceIdentifier(c, field: "services[\(index)]"))
        }
        return result
    }

    /// An identity.
    public static func identity(_ c: af_identity, field: String = "identity") throws(ABIDecodingError)
        -> CredentialIdentity
    {
        let record = try optionalString(c.record_identifier, field: "\(field).record_identifier")
        let rank = Int(c.rank)
        switch c.kind {
        case Int32(AF_IDENTITY_PASSWORD), Int32(AF_IDENTITY_ONE_TIME_CODE):
            guard let type = ServiceIdentifier.IdentifierType(cValue: c.service_type) else {
                throw ABIDecodingError("\(field).service_type: \(c.service_type) is neither AF_SERVICE_DOMAIN nor AF_SERVICE_URL")
            }
            let service = ServiceIdentifier(identifier: try string(c.service, field: "\(field).service"), type: type)
            let user = try string(c.user, field: "\(field).user")
            if c.kind == Int32(AF_IDENTITY_PASSWORD) {
                return .password(.init(serviceIdentifier: service, user: user, recordIdentifier: record, rank: rank))
            }
            return .oneTimeCode(.init(serviceIdentifier: service, label: user, recordIdentifier: record, rank: rank))
        case Int32(AF_IDENTITY_PASSKEY):
            return .passkey(
                .init(
                    relyingPartyIdentifier: try string(c.service, field: "\(field).service"),
                    userName: try string(c.user, field: "\(field).user"),
                    credentialID: try bytes(c.credential_id, field: "\(field).credential_id"),
                    userHandle: try bytes(c.user_handle, field: "\(field).user_handle"),
                    recordIdentifier: record, rank: rank))
        default:
            throw ABIDecodingError("\(field).kind: \(c.kind) is not an AF_IDENTITY_* value")
        }
    }

    /// An array of identities.
    public static func identities(_ pointer: UnsafePointer<af_identity>?, _ count: Int) throws(ABIDecodingError)
        -> [CredentialIdentity]
    {
        var result: [CredentialIdentity] = []
        let buffer = try array(pointer, count, limit: Int(AF_MAX_IDENTITIES_PER_CALL), field: "identities")
        result.reserveCapacity(buffer.count)
        for (index, c) in buffer.enumerated() {
            result.append(try identity(c, field: "identities[\(index)]"))
        }
        return result
    }

    /// Passkey parameters.
    public static func passkeyParameters(_ c: af_passkey_parameters) throws(ABIDecodingError) -> PasskeyParameters {
        guard let verification = UserVerificationPreference(cValue: c.user_verification) else {
            throw ABIDecodingError("passkey.user_verification: \(c.user_verification) is not an AF_USER_VERIFICATION_* value")
        }
        var ids: [[UInt8]] = []
        for (index, id) in try array(c.credential_ids, c.credential_id_count, limit: 4096, field: "passkey.credential_ids").enumerated() {
            ids.append(try bytes(id, field: "passkey.credential_ids[\(index)]"))
        }
        let algorithms = try array(c.algorithms, c.algorithm_count, limit: 256, field: "passkey.algorithms").map { Int($0) }
        return PasskeyParameters(
            relyingParty: try string(c.relying_party, field: "passkey.relying_party"),
            clientDataHash: try bytes(c.client_data_hash, field: "passkey.client_data_hash"),
            userVerification: verification,
            style: c.style == Int32(AF_REGISTRATION_CONDITIONAL) ? .conditional : .standard,
            credentialIDs: ids, algorithms: algorithms,
            extensionsJSON: try optionalString(c.extensions_json, field: "passkey.extensions_json"))
    }

    /// A credential request (password, passkey assertion or one-time code).
    public static func credentialRequest(_ c: af_credential_request) throws(ABIDecodingError) -> CredentialRequest {
        let identity = try identity(c.identity, field: "request.identity")
        switch (c.kind, identity) {
        case (Int32(AF_REQUEST_PASSWORD), .password(let id)): return .password(id)
        case (Int32(AF_REQUEST_ONE_TIME_CODE), .oneTimeCode(let id)): return .oneTimeCode(id)
        case (Int32(AF_REQUEST_PASSKEY_ASSERTION), .passkey(let id)):
            guard let parameters = c.passkey else { throw ABIDecodingError("request.passkey: NULL for a passkey request") }
            return .passkeyAssertion(id, try hostVerification(c.host_verification, try passkeyParameters(parameters.pointee)))
        default:
            throw ABIDecodingError("request.kind \(c.kind) does not fit an identity of kind \(identity.kind)")
        }
    }

    /// A passkey registration request.
    public static func registrationRequest(_ c: af_credential_request) throws(ABIDecodingError) -> PasskeyRegistrationRequest {
        guard c.kind == Int32(AF_REQUEST_PASSKEY_REGISTRATION),
            case .passkey(let id) = try identity(c.identity, field: "request.identity")
        else { throw ABIDecodingError("request.kind \(c.kind) is not a passkey registration") }
        guard let parameters = c.passkey else { throw ABIDecodingError("request.passkey: NULL for a passkey registration") }
        return PasskeyRegistrationRequest(
            identity: id, parameters: try hostVerification(c.host_verification, try passkeyParameters(parameters.pointee)))
    }

    static func hostVerification(_ flags: UInt32, _ parameters: PasskeyParameters) throws(ABIDecodingError) -> PasskeyParameters {
        guard flags & ~(AF_HOST_USER_PRESENT | AF_HOST_USER_VERIFIED | AF_HOST_RECENT_PASSWORD_FILL | AF_HOST_UI_SCRIPTED) == 0 else {
            throw ABIDecodingError("request.host_verification: unknown flags \(flags)")
        }
        var parameters = parameters
        parameters.hostUserPresent = flags & AF_HOST_USER_PRESENT != 0
        parameters.hostUserVerified = flags & AF_HOST_USER_VERIFIED != 0
        parameters.hostRecentPasswordFill = flags & AF_HOST_RECENT_PASSWORD_FILL != 0
        parameters.hostUserInterfaceScripted = flags & AF_HOST_UI_SCRIPTED != 0
        return parameters
    }

    /// A passkey assertion a provider completed with.
    public static func passkeyAssertion(_ c: af_passkey_assertion) throws(ABIDecodingError) -> PasskeyAssertionCredential {
        PasskeyAssertionCredential(
            relyingParty: try string(c.relying_party, field: "assertion.relying_party"),
            credentialID: try bytes(c.credential_id, field: "assertion.credential_id"),
            userHandle: try bytes(c.user_handle, field: "assertion.user_handle"),
            authenticatorData: try bytes(c.authenticator_data, field: "assertion.authenticator_data"),
            signature: try bytes(c.signature, field: "assertion.signature"),
            clientDataHash: try bytes(c.client_data_hash, field: "assertion.client_data_hash"),
            extensionOutputsJSON: try optionalString(c.extension_outputs_json, field: "assertion.extension_outputs_json"))
    }

    /// A passkey registration a provider completed with.
    public static func passkeyRegistration(_ c: af_passkey_registration) throws(ABIDecodingError)
        -> PasskeyRegistrationCredential
    {
        PasskeyRegistrationCredential(
            relyingParty: try string(c.relying_party, field: "registration.relying_party"),
            credentialID: try bytes(c.credential_id, field: "registration.credential_id"),
            attestationObject: try bytes(c.attestation_object, field: "registration.attestation_object"),
            clientDataHash: try bytes(c.client_data_hash, field: "registration.client_data_hash"),
            extensionOutputsJSON: try optionalString(c.extension_outputs_json, field: "registration.extension_outputs_json"))
    }
}
