internal import AutofillCore
internal import AutofillMatching
internal import AutofillStore

/// Figures 3 and 4: `replace(with:)` of a provider's full list and `save` of one identity into a
/// full store; peers: the same rows written by a bare prepared `INSERT` loop in one transaction
/// (SQLite directly, same schema and indexes, same journal settings).
struct StoreWriteBenchmark {
    struct Result {
        /// The first replace, into an empty store.
        var replaceIntoEmpty: Double
        /// Replaces of a full store (the previous list deleted, the new one inserted).
        var replace: Samples
        /// The peer: DELETE, then the bare INSERT loop, one transaction, rows prepared beforehand.
        var bareReplace: Samples
        /// Computing the rows' keys and lookup keys (parsing each service, asking libpsl): work
        /// `replace` does and the bare peer does not.
        var rowPreparation: Samples
        /// Saves of one new identity each, and of one existing identity with a new rank.
        var saveNew: Samples
        var saveUpdate: Samples
        /// The peer: one bare INSERT in its own transaction.
        var bareSave: Samples
        var storeBytes: Int
    }

    let workspace: Workspace
    let data: GeneratedData
    let replaceRuns: Int
    let saves: Int

    func run(progress: (String) -> Void, generator: inout SeededGenerator) throws -> Result {
        let directory = IdentityStoreDirectory(path: "\(workspace.root)/write-stores")
        let store = try SQLiteIdentityStore.open(providerID: "org.bench.writes", in: directory)
        try store.setEnabled(true)
        // Alternate two different full lists, as a provider whose list changed would.
        let lists = [data.identities[0], data.identities[data.identities.count > 1 ? 1 : 0]]

        // The peer's database: the store's own schema, read back from its file, so both sides have
        // the same indexes; the same journal settings.
        let sqlite = try DirectSQLite()
        let peer = try sqlite.open("\(workspace.root)/write-stores/bare.sqlite")
        let schema = try sqlite.open(store.path).strings("SELECT sql FROM sqlite_master WHERE sql NOT NULL AND name NOT LIKE 'sqlite_%'")
        try peer.execute("PRAGMA journal_mode = WAL")
        try peer.execute("PRAGMA synchronous = NORMAL")
        for statement in schema { try peer.execute(statement) }
        let insert = try peer.prepare(BareRow.insertSQL)

        progress("store: replace of \(lists[0].count) identities and the bare INSERT peer, \(replaceRuns) runs each, interleaved")
        let (first, _) = try measure { try store.replace(with: lists[1]) }
        try Self.bareReplace(peer, insert, lists[1].map(BareRow.init))
        var replaceTimes: [Duration] = [], bareTimes: [Duration] = [], preparation: [Duration] = []
        for run in 0..<replaceRuns {
            let list = lists[run % 2]
            let (elapsed, _) = try measure { try store.replace(with: list) }
            replaceTimes.append(elapsed)
            // The peer gets its rows ready-made; making them is timed apart.
            let (prepared, rows) = measure { list.map(BareRow.init) }
            preparation.append(prepared)
            let (bare, _) = try measure { try Self.bareReplace(peer, insert, rows) }
            bareTimes.append(bare)
        }

        progress("store: \(saves) saves of one identity into a store of \(try store.count())")
        let generatorData = IdentityGenerator(universe: data.universe)
        let fresh = generatorData.generate(providers: 1, perProvider: saves, generator: &generator)[0]
        var saveNew: [Duration] = [], saveUpdate: [Duration] = [], bareSave: [Duration] = []
        let current = lists[(replaceRuns - 1) % 2]
        for index in 0..<saves {
            let identity = fresh[index % fresh.count]
            let (newElapsed, _) = try measure { try store.save([identity]) }
            saveNew.append(newElapsed)
            let existing = Self.withRank(current[(index * 7919) % current.count], index)
            let (updateElapsed, _) = try measure { try store.save([existing]) }
            saveUpdate.append(updateElapsed)
            let row = BareRow(identity)
            let (bareElapsed, _) = try measure {
                try peer.execute("BEGIN IMMEDIATE")
                insert.reset()
                row.bind(to: insert)
                try insert.step()
                try peer.execute("COMMIT")
            }
            bareSave.append(bareElapsed)
        }
        return Result(replaceIntoEmpty: first.milliseconds, replace: Samples(replaceTimes), bareReplace: Samples(bareTimes),
                      rowPreparation: Samples(preparation), saveNew: Samples(saveNew), saveUpdate: Samples(saveUpdate),
                      bareSave: Samples(bareSave), storeBytes: Workspace.fileSize(store.path) + Workspace.fileSize(store.path + "-wal"))
    }

    private static func bareReplace(_ database: DirectSQLite.Database, _ insert: DirectSQLite.Statement, _ rows: [BareRow]) throws {
        try database.execute("BEGIN IMMEDIATE")
        try database.execute("DELETE FROM identity")
        for row in rows {
            insert.reset()
            row.bind(to: insert)
            try insert.step()
        }
        try database.execute("COMMIT")
    }

    private static func withRank(_ identity: CredentialIdentity, _ seed: Int) -> CredentialIdentity {
        let rank = 1 + (identity.rank + 1 + seed) % 100
        switch identity {
        case .password(var id): id.rank = rank; return .password(id)
        case .passkey(var id): id.rank = rank; return .passkey(id)
        case .oneTimeCode(var id): id.rank = rank; return .oneTimeCode(id)
        }
    }
}

/// One identity as the columns of the store's `identity` table, computed beforehand (the same
/// values the store writes: its key, kind, service, user, lookup key).
struct BareRow {
    static let insertSQL = """
        INSERT INTO identity (key, kind, service_type, service, user, record_identifier, credential_id, user_handle, rank, lookup_key)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
        """

    let key: [UInt8]
    let kind: Int64
    let serviceType: String
    let service: String
    let user: String
    let record: String?
    let credentialID: [UInt8]?
    let userHandle: [UInt8]?
    let rank: Int64
    let lookupKey: String?

    init(_ identity: CredentialIdentity) {
        key = IdentityKey(identity).bytes
        lookupKey = IdentityIndex.lookupKey(for: identity)
        rank = Int64(identity.rank)
        record = identity.recordIdentifier.flatMap { $0.isEmpty ? nil : $0 }
        switch identity {
        case .password(let id):
            (kind, serviceType, service, user) = (1, id.serviceIdentifier.type.rawValue, id.serviceIdentifier.identifier, id.user)
            (credentialID, userHandle) = (nil, nil)
        case .passkey(let id):
            (kind, serviceType, service, user) = (2, ServiceIdentifier.IdentifierType.domain.rawValue, id.relyingPartyIdentifier, id.userName)
            (credentialID, userHandle) = (id.credentialID, id.userHandle)
        case .oneTimeCode(let id):
            (kind, serviceType, service, user) = (3, id.serviceIdentifier.type.rawValue, id.serviceIdentifier.identifier, id.label)
            (credentialID, userHandle) = (nil, nil)
        }
    }

    func bind(to statement: DirectSQLite.Statement) {
        statement.bind(1, key)
        statement.bind(2, kind)
        statement.bind(3, serviceType)
        statement.bind(4, service)
        statement.bind(5, user)
        statement.bind(6, record)
        statement.bind(7, credentialID)
        statement.bind(8, userHandle)
        statement.bind(9, rank)
        statement.bind(10, lookupKey)
    }
}
