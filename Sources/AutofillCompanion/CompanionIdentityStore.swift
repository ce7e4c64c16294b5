@_exported public import AutofillCore
@_exported public import AutofillStore
internal import FoundationEssentials

/// The identity store of a provider, for its companion program (the containing app on Apple
/// platforms): the program that owns the provider's data and keeps its identities current outside
/// the host, for example right after the user adds a login.
///
/// ```swift
/// let store = try CompanionIdentityStore.open(providerID: "com.example.vault")
/// if try store.state().supportsIncrementalUpdates {
///     try store.save([.password(newLogin)])
/// } else {
///     try store.replace(with: everyIdentity)   // after a wipe: the full list
/// }
/// ```
///
/// The semantics are the host's (docs/IDENTITIES.md): writes are refused while the provider is
/// disabled, every write is all-or-nothing, and `storeBusy` means another writer held the store
/// for three seconds: try again.
public enum CompanionIdentityStore {
    /// Opens the store of `providerID` where the host keeps it (`$XDG_DATA_HOME/autofill/stores/`).
    public static func open(providerID: String) throws(IdentityStoreError) -> SQLiteIdentityStore {
        try open(providerID: providerID, environment: ProcessInfo.processInfo.environment)
    }

    /// Opens the store of `providerID` in `directory`: for a host configuration that sets its own
    /// `IdentityStoreDirectory`.
    public static func open(providerID: String, in directory: IdentityStoreDirectory) throws(IdentityStoreError) -> SQLiteIdentityStore {
        try SQLiteIdentityStore.open(providerID: providerID, in: directory)
    }

    /// Opens the store of `providerID` in the folder `environment` names (`XDG_DATA_HOME`, `HOME`).
    public static func open(providerID: String, environment: [String: String]) throws(IdentityStoreError) -> SQLiteIdentityStore {
        try SQLiteIdentityStore.open(providerID: providerID, in: IdentityStoreDirectory(environment: environment))
    }
}
