public import AutofillCore
internal import AutofillABI
internal import CAutofillProvider

/// The host's services as one provider sees them: logging, settings and its own identity store.
///
/// Every method may be called from any thread. The host bound this object's C table to this
/// provider alone, so nothing here can reach another provider's data.
public final class ProviderHost: Sendable {
    /// Log levels (`AF_LOG_*`).
    public enum LogLevel: Int32, Sendable {
        case debug = 0, info, notice, warning, error
    }

    let services: HostServices

    init(services: HostServices) {
        self.services = services
    }

    /// The ABI version the host speaks.
    public var abiVersion: UInt32 { services.table.abi_version }

    /// Writes a line to the host's log, tagged with this provider. Never log secrets.
    public func log(_ level: LogLevel, _ message: String) {
        var message = message
        message.withUTF8 { services.table.log?(level.rawValue, $0.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }, $0.count) }
    }

    /// The provider's setting `key` from the host configuration (`ProviderSettings`), nil when it is
    /// not set. A file setting the plist declares (`AFProviderSandbox`) comes as the absolute path the
    /// host resolved it to: the file the sandbox lets the provider open.
    public func setting(_ key: String) -> String? {
        var key = key
        var capacity = 256
        while true {
            var length = 0
            var buffer = [CChar](repeating: 0, count: capacity)
            let status = key.withUTF8 { keyBytes in
                services.table.get_setting?(
                    UnsafeRawPointer(keyBytes.baseAddress)?.assumingMemoryBound(to: CChar.self), keyBytes.count,
                    &buffer, capacity, &length) ?? AF_STATUS_NOT_FOUND
            }
            switch status {
            case AF_OK:
                return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            case AF_STATUS_BUFFER_TOO_SMALL where length > capacity:
                capacity = length
            default:
                return nil
            }
        }
    }

    /// The provider's own identity store (`ASCredentialIdentityStore.shared` for this provider).
    public var identityStore: any CredentialIdentityStore { HostIdentityStore(services: services) }
}

/// The host's `af_host_services` table.
struct HostServices: @unchecked Sendable {
    // @unchecked: the ABI promises the table stays valid and unchanged for the life of the
    // process, and that every function in it may be called from any thread.
    let pointer: UnsafePointer<af_host_services>

    var table: af_host_services { pointer.pointee }
}

/// An identity store reached through the host services.
struct HostIdentityStore: CredentialIdentityStore {
    let services: HostServices

    func state() throws(IdentityStoreError) -> IdentityStoreState {
        var state = af_store_state()
        try check(services.table.store_get_state?(&state) ?? AF_STATUS_STORE_INTERNAL, "state")
        return IdentityStoreState(isEnabled: state.is_enabled != 0, supportsIncrementalUpdates: state.supports_incremental_updates != 0)
    }

    func save(_ identities: [CredentialIdentity]) throws(IdentityStoreError) {
        try write(identities, "save", services.table.store_save)
    }

    func remove(_ identities: [CredentialIdentity]) throws(IdentityStoreError) {
        try write(identities, "remove", services.table.store_remove)
    }

    func replace(with identities: [CredentialIdentity]) throws(IdentityStoreError) {
        try write(identities, "replace", services.table.store_replace)
    }

    func removeAll() throws(IdentityStoreError) {
        try check(services.table.store_remove_all?() ?? AF_STATUS_STORE_INTERNAL, "remove all")
    }

    private func write(
        _ identities: [CredentialIdentity], _ operation: String,
        _ function: (@convention(c) (UnsafePointer<af_identity>?, Int) -> af_status)?
    ) throws(IdentityStoreError) {
        let status = withCArena { arena in
            let (list, count) = arena.identities(identities)
            return function?(list, count) ?? AF_STATUS_STORE_INTERNAL
        }
        try check(status, operation)
    }

    private func check(_ status: af_status, _ operation: String) throws(IdentityStoreError) {
        guard status != AF_OK else { return }
        let abiStatus = ABIStatus(status)
        throw IdentityStoreError(abiStatus.storeErrorCode ?? .internalError, "identity store \(operation) failed: \(abiStatus)")
    }
}
