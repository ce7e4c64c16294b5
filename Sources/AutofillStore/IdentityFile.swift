public import AutofillCore

/// The identities JSON file (docs/IDENTITIES.md): how companion programs and provider authors
/// hand identities to `autofill identities save|remove|replace`.
///
/// ```json
/// { "identities": [
///   { "kind": "password", "serviceIdentifier": { "identifier": "example.com", "type": "domain" },
///     "user": "alice", "recordIdentifier": "r1", "rank": 2 },
///   { "kind": "passkey", "relyingPartyIdentifier": "example.com", "userName": "alice",
///     "credentialID": "base64url", "userHandle": "base64url" },
///   { "kind": "oneTimeCode", "serviceIdentifier": { "identifier": "https://example.com", "type": "URL" },
///     "label": "alice@example.com" } ] }
/// ```
///
/// A file with any error is refused whole, with the line and field named.
public enum IdentityFile {
    /// A problem with the file: where it is and what is wrong.
    public struct Problem: Error, Hashable, Sendable, CustomStringConvertible {
        public var line: Int
        public var column: Int?
        public var field: String?
        public var message: String

        public var description: String {
            let position = column.map { "line \(line), column \($0)" } ?? "line \(line)"
            return field.map { "\(position): \($0): \(message)" } ?? "\(position): \(message)"
        }
    }

    /// The identities in a file's bytes.
    public static func decode(_ bytes: [UInt8]) throws(Problem) -> [CredentialIdentity] {
        let root: JSONNode
        do {
            root = try JSONDocumentReader.parse(bytes)
        } catch {
            throw Problem(line: error.line, column: error.column, field: nil, message: error.message)
        }
        guard case .object(let members) = root.value else {
            throw Problem(line: root.line, field: nil, message: "expected an object with an \"identities\" array, found \(root.value.typeName)")
        }
        try checkFields(members, allowed: ["identities"], at: nil, line: root.line)
        guard let list = members.first(where: { $0.key == "identities" })?.value else {
            throw Problem(line: root.line, field: "identities", message: "missing: add \"identities\": [ … ]")
        }
        guard case .array(let elements) = list.value else {
            throw Problem(line: list.line, field: "identities", message: "expected an array, found \(list.value.typeName)")
        }
        var identities: [CredentialIdentity] = []
        identities.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let identity = try identity(element, at: "identities[\(index)]")
            // The store would refuse it too; here the user also learns the line.
            if let problem = IdentityRow.problem(identity) {
                throw Problem(line: element.line, field: "identities[\(index)]", message: problem)
            }
            identities.append(identity)
        }
        return identities
    }

    static let passwordFields: Set<String> = ["kind", "serviceIdentifier", "user", "recordIdentifier", "rank"]
    static let passkeyFields: Set<String> = ["kind", "relyingPartyIdentifier", "userName", "credentialID", "userHandle", "recordIdentifier", "rank"]
    static let oneTimeCodeFields: Set<String> = ["kind", "serviceIdentifier", "label", "recordIdentifier", "rank"]

    private static func identity(_ node: JSONNode, at path: String) throws(Problem) -> CredentialIdentity {
        guard case .object(let members) = node.value else {
            throw Problem(line: node.line, field: path, message: "expected an identity object, found \(node.value.typeName)")
        }
        let fields = Fields(members: members, path: path, line: node.line)
        let kind = try fields.string("kind")
        switch kind {
        case "password":
            try checkFields(members, allowed: passwordFields, at: path, line: node.line)
            return .password(PasswordCredentialIdentity(
                serviceIdentifier: try fields.serviceIdentifier(), user: try fields.string("user"),
                recordIdentifier: try fields.optionalString("recordIdentifier"), rank: try fields.rank()))
        case "passkey":
            try checkFields(members, allowed: passkeyFields, at: path, line: node.line)
            return .passkey(PasskeyCredentialIdentity(
                relyingPartyIdentifier: try fields.string("relyingPartyIdentifier"), userName: try fields.string("userName"),
                credentialID: try fields.base64URL("credentialID"), userHandle: try fields.base64URL("userHandle"),
                recordIdentifier: try fields.optionalString("recordIdentifier"), rank: try fields.rank()))
        case "oneTimeCode":
            try checkFields(members, allowed: oneTimeCodeFields, at: path, line: node.line)
            return .oneTimeCode(OneTimeCodeCredentialIdentity(
                serviceIdentifier: try fields.serviceIdentifier(), label: try fields.string("label"),
                recordIdentifier: try fields.optionalString("recordIdentifier"), rank: try fields.rank()))
        default:
            throw Problem(line: fields.line(of: "kind"), field: "\(path).kind",
                          message: "\"\(kind)\" is not a kind; use \"password\", \"passkey\" or \"oneTimeCode\"")
        }
    }

    private static func checkFields(_ members: [(key: String, value: JSONNode)], allowed: Set<String>, at path: String?, line: Int) throws(Problem) {
        var seen = Set<String>()
        for member in members {
            let field = path.map { "\($0).\(member.key)" } ?? member.key
            guard allowed.contains(member.key) else {
                throw Problem(line: member.value.line, field: field,
                              message: "unknown field; the fields here are \(allowed.sorted().joined(separator: ", "))")
            }
            guard seen.insert(member.key).inserted else {
                throw Problem(line: member.value.line, field: field, message: "given twice")
            }
        }
    }

    /// Typed access to one object's fields, with errors naming the field and its line.
    private struct Fields {
        let members: [(key: String, value: JSONNode)]
        let path: String
        let line: Int

        func node(_ key: String) -> JSONNode? { members.first { $0.key == key }?.value }
        func line(of key: String) -> Int { node(key)?.line ?? line }

        func string(_ key: String) throws(Problem) -> String {
            guard let node = node(key) else { throw Problem(line: line, field: "\(path).\(key)", message: "missing (expected a string)") }
            guard case .string(let text) = node.value else {
                throw Problem(line: node.line, field: "\(path).\(key)", message: "expected a string, found \(node.value.typeName)")
            }
            return text
        }

        func optionalString(_ key: String) throws(Problem) -> String? {
            guard let node = node(key) else { return nil }
            if case .null = node.value { return nil }
            return try string(key)
        }

        func base64URL(_ key: String) throws(Problem) -> [UInt8] {
            let text = try string(key)
            guard let bytes = Base64URL.decode(text) else {
                throw Problem(line: line(of: key), field: "\(path).\(key)", message: "not base64url text (A–Z, a–z, 0–9, '-' and '_')")
            }
            return bytes
        }

        func rank() throws(Problem) -> Int {
            guard let node = node("rank") else { return 0 }
            guard case .number(let text) = node.value, let value = Int(text) else {
                throw Problem(line: node.line, field: "\(path).rank", message: "expected a whole number, found \(node.value.typeName)")
            }
            return value
        }

        func serviceIdentifier() throws(Problem) -> ServiceIdentifier {
            let field = "\(path).serviceIdentifier"
            guard let node = node("serviceIdentifier") else {
                throw Problem(line: line, field: field, message: "missing: give { \"identifier\": \"example.com\", \"type\": \"domain\" }")
            }
            guard case .object(let members) = node.value else {
                throw Problem(line: node.line, field: field,
                              message: "expected { \"identifier\": …, \"type\": \"domain\" or \"URL\" }, found \(node.value.typeName)")
            }
            try IdentityFile.checkFields(members, allowed: ["identifier", "type"], at: field, line: node.line)
            let inner = Fields(members: members, path: field, line: node.line)
            let typeText = try inner.string("type")
            guard let type = ServiceIdentifier.IdentifierType(rawValue: typeText) else {
                throw Problem(line: inner.line(of: "type"), field: "\(field).type", message: "\"\(typeText)\" is not a type; use \"domain\" or \"URL\"")
            }
            return ServiceIdentifier(identifier: try inner.string("identifier"), type: type)
        }
    }

    /// One identity as the file writes it (also `autofill identities list --json`).
    public struct Entry: Encodable, Sendable {
        public struct Service: Encodable, Sendable {
            public let identifier: String
            public let type: String
        }

        public let kind: String
        public let serviceIdentifier: Service?
        public let user: String?
        public let relyingPartyIdentifier: String?
        public let userName: String?
        public let credentialID: String?
        public let userHandle: String?
        public let label: String?
        public let recordIdentifier: String?
        public let rank: Int

        /// The entry for `identity`.
        public init(_ identity: CredentialIdentity) {
            var service: Service?, user: String?, rp: String?, userName: String?, credentialID: String?, handle: String?, label: String?
            switch identity {
            case .password(let id):
                service = Service(identifier: id.serviceIdentifier.identifier, type: id.serviceIdentifier.type.rawValue)
                user = id.user
            case .passkey(let id):
                rp = id.relyingPartyIdentifier
                userName = id.userName
                credentialID = Base64URL.encode(id.credentialID)
                handle = Base64URL.encode(id.userHandle)
            case .oneTimeCode(let id):
                service = Service(identifier: id.serviceIdentifier.identifier, type: id.serviceIdentifier.type.rawValue)
                label = id.label
            }
            kind = identity.kind.rawValue
            serviceIdentifier = service
            self.user = user
            relyingPartyIdentifier = rp
            self.userName = userName
            self.credentialID = credentialID
            userHandle = handle
            self.label = label
            recordIdentifier = identity.recordIdentifier
            rank = identity.rank
        }
    }
}
