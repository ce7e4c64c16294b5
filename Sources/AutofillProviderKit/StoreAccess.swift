public import AutofillCore

/// Why a provider could not reach its store (an encrypted vault, a database) for a request.
///
/// Providers that keep their store locked until the user unlocks it through their UI throw this from
/// the code that opens the store, and answer with ``ExtensionContext/cancelRequest(because:)``.
public enum StoreAccess: Error, Sendable {
    /// The store is locked: a request without UI answers `userInteractionRequired`, so the host asks
    /// again through the provider's UI.
    case locked
    /// The request fails with this error (wrong master password, unreadable file, cancelled).
    case failed(ExtensionError)
}
