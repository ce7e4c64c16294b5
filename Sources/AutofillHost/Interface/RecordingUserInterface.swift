internal import AutofillCore
internal import Synchronization

/// Wraps a UI and remembers whether it had to refuse a request as unavailable, so the router can
/// tell "the provider needed UI and there was none" from other failures.
final class RecordingUserInterface: ProviderUserInterface {
    private let base: any ProviderUserInterface
    private let refused = Mutex<String?>(nil)

    init(_ base: any ProviderUserInterface) {
        self.base = base
    }

    /// Why the last request since `reset()` could not be shown, if one could not.
    var unavailableReason: String? { refused.withLock { $0 } }

    func reset() {
        refused.withLock { $0 = nil }
    }

    func present(_ request: UserInterfaceRequest, providerName: String) throws(UserInterfaceError) -> UserInterfaceAnswer {
        do {
            return try base.present(request, providerName: providerName)
        } catch {
            if case .unavailable(let why) = error { refused.withLock { $0 = why } }
            throw error
        }
    }
}
