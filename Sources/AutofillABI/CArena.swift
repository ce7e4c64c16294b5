public import AutofillCore
public import CAutofillProvider
internal import Glibc

/// Builds C ABI structs from core models in memory that lives as long as the arena.
///
/// Use it inside ``withCArena(_:)``: every pointer it hands out stays valid
/// until the closure returns, which is exactly the lifetime the ABI promises
/// for memory passed across a call.
public final class CArena {
    /// Every allocation and its size in bytes.
    private var allocations: [(pointer: UnsafeMutableRawPointer, bytes: Int)] = []

    fileprivate init() {}

    /// Zeroes each allocation before freeing it: a request may carry a secret (the password of a save).
    deinit {
        for allocation in allocations {
            memset(allocation.pointer, 0, allocation.bytes)
            allocation.pointer.deallocate()
        }
    }

    /// A copy of `items` as a C array, or nil when empty.
    public func array<T>(_ items: [T]) -> UnsafePointer<T>? {
        guard !items.isEmpty else { return nil }
        let memory = UnsafeMutablePointer<T>.allocate(capacity: items.count)
        memory.initialize(from: items, count: items.count)
        allocations.append((UnsafeMutableRawPointer(memory), MemoryLayout<T>.stride * items.count))
        return UnsafePointer(memory)
    }

    /// `text` as an `af_str`; nil and empty give `{NULL, 0}`.
    public func str(_ text: String?) -> af_str {
        guard let text, !text.isEmpty else { return af_str(data: nil, length: 0) }
        let utf8 = Array(text.utf8)
        return utf8.withUnsafeBufferPointer { buffer in
            let memory = UnsafeMutableRawPointer.allocate(byteCount: buffer.count, alignment: 1)
            memory.copyMemory(from: buffer.baseAddress!, byteCount: buffer.count)
            allocations.append((memory, buffer.count))
            return af_str(data: memory.assumingMemoryBound(to: CChar.self), length: buffer.count)
        }
    }

    /// `bytes` as an `af_bytes`; empty gives `{NULL, 0}`.
    public func bytes(_ bytes: [UInt8]) -> af_bytes {
        af_bytes(data: array(bytes), length: bytes.count)
    }

    /// A service identifier as a C struct.
    public func serviceIdentifier(_ service: ServiceIdentifier) -> af_service_identifier {
        af_service_identifier(identifier: str(service.identifier), type: service.type.cValue, reserved: 0)
    }

    /// Service identifiers as a C array and count.
    public func serviceIdentifiers(_ services: [ServiceIdentifier]) -> (UnsafePointer<af_service_identifier>?, Int) {
        (array(services.map(serviceIdentifier)), services.count)
    }

    /// An identity as a C struct.
    public func identity(_ identity: CredentialIdentity) -> af_identity {
        var c = af_identity()
        switch identity {
        case .password(let id):
            c.kind = Int32(AF_IDENTITY_PASSWORD)
            c.service_type = id.serviceIdentifier.type.cValue
            c.service = str(id.serviceIdentifier.identifier)
            c.user = str(id.user)
        case .passkey(let id):
            c.kind = Int32(AF_IDENTITY_PASSKEY)
            c.service_type = Int32(AF_SERVICE_DOMAIN)
            c.service = str(id.relyingPartyIdentifier)
            c.user = str(id.userName)
            c.credential_id = bytes(id.credentialID)
            c.user_handle = bytes(id.userHandle)
        case .oneTimeCode(let id):
            c.kind = Int32(AF_IDENTITY_ONE_TIME_CODE)
            c.service_type = id.serviceIdentifier.type.cValue
            c.service = str(id.serviceIdentifier.identifier)
            c.user = str(id.label)
        }
        c.record_identifier = str(identity.recordIdentifier)
        c.rank = Int64(identity.rank)
        return c
    }

    /// Identities as a C array and count.
    public func identities(_ identities: [CredentialIdentity]) -> (UnsafePointer<af_identity>?, Int) {
        (array(identities.map(identity)), identities.count)
    }

    /// Passkey parameters as a C struct, in arena memory.
    public func passkeyParameters(_ parameters: PasskeyParameters) -> UnsafePointer<af_passkey_parameters> {
        var c = af_passkey_parameters()
        c.relying_party = str(parameters.relyingParty)
        c.client_data_hash = bytes(parameters.clientDataHash)
        c.user_verification = parameters.userVerification.cValue
        c.style = parameters.style == .conditional ? Int32(AF_REGISTRATION_CONDITIONAL) : Int32(AF_REGISTRATION_STANDARD)
        c.credential_ids = array(parameters.credentialIDs.map(bytes))
        c.credential_id_count = parameters.credentialIDs.count
        c.algorithms = array(parameters.algorithms.map(Int64.init))
        c.algorithm_count = parameters.algorithms.count
        c.extensions_json = str(parameters.extensionsJSON)
        return array([c])!
    }

    /// A credential request as a C struct, in arena memory.
    public func credentialRequest(_ request: CredentialRequest) -> UnsafePointer<af_credential_request> {
        var c = af_credential_request()
        c.identity = identity(request.identity)
        switch request {
        case .password: c.kind = Int32(AF_REQUEST_PASSWORD)
        case .oneTimeCode: c.kind = Int32(AF_REQUEST_ONE_TIME_CODE)
        case .passkeyAssertion(_, let parameters):
            c.kind = Int32(AF_REQUEST_PASSKEY_ASSERTION)
            c.passkey = passkeyParameters(parameters)
            c.host_verification = Self.hostVerification(parameters)
        }
        return array([c])!
    }

    /// A passkey registration request as a C struct, in arena memory.
    public func registrationRequest(_ request: PasskeyRegistrationRequest) -> UnsafePointer<af_credential_request> {
        var c = af_credential_request()
        c.kind = Int32(AF_REQUEST_PASSKEY_REGISTRATION)
        c.identity = identity(.passkey(request.identity))
        c.passkey = passkeyParameters(request.parameters)
        c.host_verification = Self.hostVerification(request.parameters)
        return array([c])!
    }

    static func hostVerification(_ parameters: PasskeyParameters) -> UInt32 {
        (parameters.hostUserPresent ? AF_HOST_USER_PRESENT : 0) | (parameters.hostUserVerified ? AF_HOST_USER_VERIFIED : 0)
            | (parameters.hostRecentPasswordFill ? AF_HOST_RECENT_PASSWORD_FILL : 0)
            | (parameters.hostUserInterfaceScripted ? AF_HOST_UI_SCRIPTED : 0)
    }

    /// A passkey assertion as a C struct.
    public func passkeyAssertion(_ assertion: PasskeyAssertionCredential) -> af_passkey_assertion {
        af_passkey_assertion(
            relying_party: str(assertion.relyingParty), credential_id: bytes(assertion.credentialID),
            user_handle: bytes(assertion.userHandle), authenticator_data: bytes(assertion.authenticatorData),
            signature: bytes(assertion.signature), client_data_hash: bytes(assertion.clientDataHash),
            extension_outputs_json: str(assertion.extensionOutputsJSON))
    }

    /// A passkey registration as a C struct.
    public func passkeyRegistration(_ registration: PasskeyRegistrationCredential) -> af_passkey_registration {
        af_passkey_registration(
            relying_party: str(registration.relyingParty), credential_id: bytes(registration.credentialID),
            attestation_object: bytes(registration.attestationObject),
            client_data_hash: bytes(registration.clientDataHash),
            extension_outputs_json: str(registration.extensionOutputsJSON))
    }
}

/// Runs `body` with an arena whose memory is freed when `body` returns.
public func withCArena<R, E: Error>(_ body: (CArena) throws(E) -> R) throws(E) -> R {
    let arena = CArena()
    defer { withExtendedLifetime(arena) {} }
    return try body(arena)
}
