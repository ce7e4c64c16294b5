internal import AutofillCore
internal import AutofillMatching

/// One identity as a row of the `identity` table.
struct IdentityRow {
    static let columns = "kind, service_type, service, user, record_identifier, credential_id, user_handle, rank"
    static let maximumTextLength = 65536
    static let maximumUserHandleLength = 64  // WebAuthn: user handles are at most 64 bytes
    static let maximumCredentialIDLength = 1023  // WebAuthn: credential ids are at most 1023 bytes

    /// The `kind` column's value for `kind`.
    static func code(of kind: CredentialIdentity.Kind) -> Int64 {
        switch kind {
        case .password: 1
        case .passkey: 2
        case .oneTimeCode: 3
        }
    }

    let identity: CredentialIdentity
    let key: [UInt8]
    let lookupKey: String?

    /// Rows for `identities`, or an error naming the first invalid one; nothing is written then.
    static func validated(_ identities: [CredentialIdentity]) throws(IdentityStoreError) -> [IdentityRow] {
        var rows: [IdentityRow] = []
        rows.reserveCapacity(identities.count)
        for (index, identity) in identities.enumerated() {
            if let problem = problem(identity) {
                throw IdentityStoreError(.internalError, "identity \(index + 1) of \(identities.count) (\(identity.kind)) is invalid: \(problem); nothing was written")
            }
            rows.append(IdentityRow(identity: identity, key: IdentityKey(identity).bytes, lookupKey: IdentityIndex.lookupKey(for: identity)))
        }
        return rows
    }

    static func problem(_ identity: CredentialIdentity) -> String? {
        let texts: [(String, String)]
        switch identity {
        case .password(let id):
            texts = [("service identifier", id.serviceIdentifier.identifier), ("user", id.user), ("record identifier", id.recordIdentifier ?? "")]
        case .oneTimeCode(let id):
            texts = [("service identifier", id.serviceIdentifier.identifier), ("label", id.label), ("record identifier", id.recordIdentifier ?? "")]
        case .passkey(let id):
            texts = [("relying party", id.relyingPartyIdentifier), ("user name", id.userName), ("record identifier", id.recordIdentifier ?? "")]
            if id.credentialID.isEmpty { return "the credential id is empty" }
            if id.credentialID.count > maximumCredentialIDLength { return "the credential id is over \(maximumCredentialIDLength) bytes" }
            if id.userHandle.isEmpty || id.userHandle.count > maximumUserHandleLength { return "the user handle must be 1 to \(maximumUserHandleLength) bytes" }
        }
        if texts[0].1.isEmpty { return "the \(texts[0].0) is empty" }
        for (name, text) in texts where text.utf8.count > maximumTextLength { return "the \(name) is over \(maximumTextLength) bytes" }
        return nil
    }

    func bind(to statement: SQLiteConnection.Statement) throws(SQLiteError) {
        try statement.bind(1, key)
        switch identity {
        case .password(let id):
            try statement.bind(2, 1)
            try statement.bind(3, id.serviceIdentifier.type.rawValue)
            try statement.bind(4, id.serviceIdentifier.identifier)
            try statement.bind(5, id.user)
        case .passkey(let id):
            try statement.bind(2, 2)
            try statement.bind(3, ServiceIdentifier.IdentifierType.domain.rawValue)
            try statement.bind(4, id.relyingPartyIdentifier)
            try statement.bind(5, id.userName)
            try statement.bind(7, id.credentialID)
            try statement.bind(8, id.userHandle)
        case .oneTimeCode(let id):
            try statement.bind(2, 3)
            try statement.bind(3, id.serviceIdentifier.type.rawValue)
            try statement.bind(4, id.serviceIdentifier.identifier)
            try statement.bind(5, id.label)
        }
        try statement.bind(6, identity.recordIdentifier.flatMap { $0.isEmpty ? nil : $0 })
        try statement.bind(9, Int64(identity.rank))
        try statement.bind(10, lookupKey)
    }

    /// Reads every row `statement` yields whose kind is in `kinds`.
    static func read(_ statement: SQLiteConnection.Statement, kinds: Set<CredentialIdentity.Kind>) throws(SQLiteError) -> [CredentialIdentity] {
        var result: [CredentialIdentity] = []
        while try statement.step() {
            let service = statement.string(2) ?? ""
            let user = statement.string(3) ?? ""
            let record = statement.string(4)
            let rank = Int(statement.int64(7))
            let type = ServiceIdentifier.IdentifierType(rawValue: statement.string(1) ?? "") ?? .domain
            switch statement.int64(0) {
            case 1 where kinds.contains(.password):
                result.append(.password(.init(serviceIdentifier: .init(identifier: service, type: type), user: user, recordIdentifier: record, rank: rank)))
            case 2 where kinds.contains(.passkey):
                result.append(.passkey(.init(relyingPartyIdentifier: service, userName: user, credentialID: statement.bytes(5),
                                             userHandle: statement.bytes(6), recordIdentifier: record, rank: rank)))
            case 3 where kinds.contains(.oneTimeCode):
                result.append(.oneTimeCode(.init(serviceIdentifier: .init(identifier: service, type: type), label: user, recordIdentifier: record, rank: rank)))
            default:
                continue
            }
        }
        return result
    }
}
