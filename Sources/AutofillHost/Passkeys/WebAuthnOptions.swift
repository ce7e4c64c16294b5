public import AutofillCore
public import AutofillMatching

/// `PublicKeyCredentialRequestOptionsJSON` (WebAuthn Level 3 §5.1.4.2): what a relying party sends
/// to sign in with a passkey.
public struct PasskeyRequestOptions: Sendable, Equatable {
    /// The relying party's random challenge.
    public var challenge: [UInt8]
    /// The relying party id as given, or nil (then: the origin's host).
    public var relyingPartyID: String?
    /// Credential ids the relying party accepts; empty: any of its passkeys.
    public var allowCredentials: [[UInt8]]
    /// `required`, `preferred` (the default) or `discouraged`.
    public var userVerification: UserVerificationPreference
    /// Extension inputs as JSON object text.
    public var extensionsJSON: String?

    /// Parses the options (or `{"publicKey": {...}}` as `navigator.credentials.get` takes them).
    /// `source` names the input in errors (a file name, "stdin").
    public static func parse(_ bytes: [UInt8], source: String) throws(WebAuthnRequestError) -> PasskeyRequestOptions {
        let options = try OptionsReader(bytes, source: source, kind: "PublicKeyCredentialRequestOptionsJSON")
        let root = options.root
        return PasskeyRequestOptions(
            challenge: try options.challenge(root),
            relyingPartyID: try options.string(root, "rpId", required: false),
            allowCredentials: try options.credentialList(root, "allowCredentials"),
            userVerification: try options.userVerification(root, "userVerification"),
            extensionsJSON: try options.extensions(root))
    }
}

/// `PublicKeyCredentialCreationOptionsJSON` (WebAuthn Level 3 §5.1.3.2): what a relying party sends
/// to create a passkey.
public struct PasskeyCreationOptions: Sendable, Equatable {
    /// The relying party's random challenge.
    public var challenge: [UInt8]
    /// `rp.id` as given, or nil (then: the origin's host).
    public var relyingPartyID: String?
    /// `rp.name`.
    public var relyingPartyName: String
    /// `user.id`: the relying party's user handle, 1–64 bytes.
    public var userHandle: [UInt8]
    /// `user.name`.
    public var userName: String
    /// `user.displayName`.
    public var userDisplayName: String
    /// COSE algorithms of `pubKeyCredParams` (type `public-key`), in the relying party's order.
    /// Empty in the JSON means ES256 and RS256, as WebAuthn says.
    public var algorithms: [Int]
    /// `excludeCredentials` ids.
    public var excludeCredentials: [[UInt8]]
    /// `authenticatorSelection.userVerification`.
    public var userVerification: UserVerificationPreference
    /// Extension inputs as JSON object text.
    public var extensionsJSON: String?

    /// Parses the options (or `{"publicKey": {...}}` as `navigator.credentials.create` takes them).
    public static func parse(_ bytes: [UInt8], source: String) throws(WebAuthnRequestError) -> PasskeyCreationOptions {
        let options = try OptionsReader(bytes, source: source, kind: "PublicKeyCredentialCreationOptionsJSON")
        let root = options.root
        let rp = try options.object(root, "rp", required: true)!
        let user = try options.object(root, "user", required: true)!
        let userHandle = try options.base64URL(user, "id", field: "user.id")
        guard (1...64).contains(userHandle.count) else {
            throw options.error(user, "user.id is \(userHandle.count) bytes; a user handle is 1 to 64 bytes")
        }
        var algorithms: [Int] = []
        if let params = try options.array(root, "pubKeyCredParams") {
            for (index, param) in params.enumerated() {
                let field = "pubKeyCredParams[\(index)]"
                guard case .object = param.value else { throw options.error(param, "\(field) is \(param.value.typeName); expected an object") }
                guard try options.string(param, "type", field: "\(field).type") == "public-key" else { continue }
                guard let alg = try options.integer(param, "alg", field: "\(field).alg") else {
                    throw options.error(param, "\(field).alg is missing; it is a COSE algorithm number such as -7 (ES256)")
                }
                algorithms.append(alg)
            }
            if algorithms.isEmpty && !params.isEmpty {
                throw options.error(root, "pubKeyCredParams has no entry of type \"public-key\"")
            }
        }
        if algorithms.isEmpty { algorithms = [-7, -257] }
        var userVerification = UserVerificationPreference.preferred
        if let selection = try options.object(root, "authenticatorSelection", required: false) {
            userVerification = try options.userVerification(selection, "userVerification", field: "authenticatorSelection.userVerification")
        }
        return PasskeyCreationOptions(
            challenge: try options.challenge(root),
            relyingPartyID: try options.string(rp, "id", required: false, field: "rp.id"),
            relyingPartyName: try options.string(rp, "name", required: false, field: "rp.name") ?? "",
            userHandle: userHandle,
            userName: try options.string(user, "name", field: "user.name"),
            userDisplayName: try options.string(user, "displayName", required: false, field: "user.displayName") ?? "",
            algorithms: algorithms,
            excludeCredentials: try options.credentialList(root, "excludeCredentials"),
            userVerification: userVerification,
            extensionsJSON: try options.extensions(root))
    }
}

/// Reads fields of WebAuthn options JSON with errors that name the source, line and field.
/// Members WebAuthn defines but autofill does not use (`timeout`, `hints`, `attestation`, ...) and
/// unknown members are ignored, as browsers ignore them; a known member of the wrong type is an error.
struct OptionsReader {
    let root: JSONNode
    let source: String
    let kind: String

    init(_ bytes: [UInt8], source: String, kind: String) throws(WebAuthnRequestError) {
        self.source = source
        self.kind = kind
        let node: JSONNode
        do {
            node = try JSONDocumentReader.parse(bytes)
        } catch {
            throw WebAuthnRequestError("\(source):\(error.line):\(error.column): not valid JSON: \(error.message). Expected \(kind).")
        }
        guard case .object(let members) = node.value else {
            throw WebAuthnRequestError("\(source):\(node.line): the options are \(node.value.typeName); expected a JSON object (\(kind)).")
        }
        if let wrapped = members.first(where: { $0.key == "publicKey" })?.value {
            guard case .object = wrapped.value else {
                throw WebAuthnRequestError("\(source):\(wrapped.line): publicKey is \(wrapped.value.typeName); expected an object (\(kind)).")
            }
            root = wrapped
        } else {
            root = node
        }
    }

    func error(_ node: JSONNode, _ message: String) -> WebAuthnRequestError {
        WebAuthnRequestError("\(source):\(node.line): \(message).")
    }

    func member(_ object: JSONNode, _ key: String) -> JSONNode? {
        guard case .object(let members) = object.value else { return nil }
        return members.first { $0.key == key }?.value
    }

    func string(_ object: JSONNode, _ key: String, field: String? = nil) throws(WebAuthnRequestError) -> String {
        guard let value = try string(object, key, required: true, field: field) else { return "" }
        return value
    }

    func string(_ object: JSONNode, _ key: String, required: Bool, field: String? = nil) throws(WebAuthnRequestError) -> String? {
        let field = field ?? key
        guard let node = member(object, key) else {
            if required { throw error(object, "\(field) is missing (\(kind))") }
            return nil
        }
        guard case .string(let value) = node.value else {
            if case .null = node.value, !required { return nil }
            throw error(node, "\(field) is \(node.value.typeName); expected a string")
        }
        return value
    }

    func integer(_ object: JSONNode, _ key: String, field: String) throws(WebAuthnRequestError) -> Int? {
        guard let node = member(object, key) else { return nil }
        guard case .number(let text) = node.value, let value = Int(text) else {
            throw error(node, "\(field) is \(node.value.typeName); expected an integer")
        }
        return value
    }

    func object(_ object: JSONNode, _ key: String, required: Bool) throws(WebAuthnRequestError) -> JSONNode? {
        guard let node = member(object, key) else {
            if required { throw error(object, "\(key) is missing (\(kind))") }
            return nil
        }
        guard case .object = node.value else { throw error(node, "\(key) is \(node.value.typeName); expected an object") }
        return node
    }

    func array(_ object: JSONNode, _ key: String) throws(WebAuthnRequestError) -> [JSONNode]? {
        guard let node = member(object, key) else { return nil }
        guard case .array(let items) = node.value else { throw error(node, "\(key) is \(node.value.typeName); expected an array") }
        return items
    }

    func base64URL(_ object: JSONNode, _ key: String, field: String) throws(WebAuthnRequestError) -> [UInt8] {
        let text = try string(object, key, field: field)
        guard let bytes = Base64URL.decode(text) else {
            throw error(member(object, key) ?? object, "\(field) is not base64url (the alphabet A–Z a–z 0–9 - _, no padding)")
        }
        return bytes
    }

    func challenge(_ root: JSONNode) throws(WebAuthnRequestError) -> [UInt8] {
        let challenge = try base64URL(root, "challenge", field: "challenge")
        guard challenge.count >= 16 else {
            throw error(member(root, "challenge") ?? root, "challenge is \(challenge.count) bytes; a relying party sends at least 16 random bytes")
        }
        return challenge
    }

    func credentialList(_ root: JSONNode, _ key: String) throws(WebAuthnRequestError) -> [[UInt8]] {
        guard let items = try array(root, key) else { return [] }
        var ids: [[UInt8]] = []
        for (index, item) in items.enumerated() {
            let field = "\(key)[\(index)]"
            guard case .object = item.value else { throw error(item, "\(field) is \(item.value.typeName); expected {\"type\": \"public-key\", \"id\": ...}") }
            let type = try string(item, "type", field: "\(field).type")
            guard type == "public-key" else { continue }
            let id = try base64URL(item, "id", field: "\(field).id")
            guard !id.isEmpty, id.count <= 1023 else { throw error(item, "\(field).id is \(id.count) bytes; a credential id is 1 to 1023 bytes") }
            ids.append(id)
        }
        return ids
    }

    func userVerification(_ object: JSONNode, _ key: String, field: String? = nil) throws(WebAuthnRequestError) -> UserVerificationPreference {
        guard let text = try string(object, key, required: false, field: field) else { return .preferred }
        guard let value = UserVerificationPreference(rawValue: text) else {
            throw error(member(object, key) ?? object, "\(field ?? key) is \"\(text)\"; expected \"required\", \"preferred\" or \"discouraged\"")
        }
        return value
    }

    func extensions(_ root: JSONNode) throws(WebAuthnRequestError) -> String? {
        guard let node = member(root, "extensions") else { return nil }
        guard case .object(let members) = node.value else { throw error(node, "extensions is \(node.value.typeName); expected an object") }
        return members.isEmpty ? nil : node.value.serialized
    }
}
