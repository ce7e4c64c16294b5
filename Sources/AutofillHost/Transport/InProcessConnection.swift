public import AutofillCore
internal import Dispatch

/// A provider loaded into this process with `dlopen`, reached through its C table.
///
/// Entry points are called one at a time on the provider's own serial queue, never on the
/// caller's thread, so a provider that blocks cannot block the host's deadline.
public final class InProcessConnection: ProviderConnection {
    public let manifest: PluginManifest
    public let entryPoints: EntryPoints
    /// The host-side state: pending requests, store, settings, UI.
    public let session: ProviderSession
    private let table: ProviderTable
    private let hostServices: HostServicesTable
    private let queue: DispatchQueue

    init(manifest: PluginManifest, table: ProviderTable, session: ProviderSession, hostServices: HostServicesTable) {
        self.manifest = manifest
        self.table = table
        self.session = session
        self.hostServices = hostServices
        self.entryPoints = table.entryPoints
        self.queue = DispatchQueue(label: "autofill.provider.\(manifest.identifier)")
    }

    public var strayCompletions: Int { session.strayCompletions }

    public func send(_ request: ProviderRequest, deadline: Duration?) async -> ProviderOutcome {
        if let refusal = manifest.refusal(of: request, offered: entryPoints) { return .failed(refusal) }
        return await session.inTurn(request, deadline: deadline) {
            await withCheckedContinuation { continuation in
                let id = session.register(request, continuation: continuation)
                if let deadline { session.expire(id, after: deadline) }
                let table = self.table, session = self.session
                queue.async {
                    table.call(request, id: id)
                    session.entryPointReturned(id)  // the UI watchdog's clock may start now
                }
            }
        }
    }
}
