import AutofillCore
import AutofillStore
import AutofillTestSupport
import Foundation

/// A temporary folder holding identity stores.
final class StoreFolder: Sendable {
    private let folder: TemporaryFolder
    var path: String { folder.path }
    var directory: IdentityStoreDirectory { IdentityStoreDirectory(path: "\(path)/stores") }

    init() throws {
        folder = try TemporaryFolder("store")
    }

    /// An enabled store for `providerID`.
    func enabledStore(_ providerID: String = "org.test.provider") throws -> SQLiteIdentityStore {
        let store = try SQLiteIdentityStore.open(providerID: providerID, in: directory)
        try store.setEnabled(true)
        return store
    }
}

enum Sample {
    static func password(_ user: String, _ service: String = "example.com", rank: Int = 0, record: String? = nil) -> CredentialIdentity {
        .password(.init(serviceIdentifier: .init(identifier: service, type: .domain), user: user, recordIdentifier: record, rank: rank))
    }

    static func passkey(_ user: String, id: UInt8, rp: String = "example.com") -> CredentialIdentity {
        .passkey(.init(relyingPartyIdentifier: rp, userName: user, credentialID: [id, 1, 2, 3], userHandle: [id]))
    }

    static func code(_ label: String, _ service: String = "https://example.com") -> CredentialIdentity {
        .oneTimeCode(.init(serviceIdentifier: .init(identifier: service, type: .url), label: label))
    }
}
