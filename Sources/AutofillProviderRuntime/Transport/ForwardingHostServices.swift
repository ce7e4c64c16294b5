internal import AutofillABI
internal import AutofillCore
internal import Dispatch
internal import Synchronization

/// The helper side of a provider's host services: every call the plugin makes through its
/// libffi-bound table is sent to the host as a frame, and calls that return something wait for
/// the host's reply on the plugin's own thread. Nothing is decided here; the host decides.
final class ForwardingHostServices: HostServicesHandler {
    private final class Waiter: Sendable {
        let ready = DispatchSemaphore(value: 0)
        let reply = Mutex<HostReply?>(nil)
        /// An `open_file` call: its ok reply comes with a descriptor.
        let wantsDescriptor: Bool
        let descriptor = Mutex<Int32>(-1)

        init(wantsDescriptor: Bool) {
            self.wantsDescriptor = wantsDescriptor
        }
    }

    private let channel: FrameChannel
    private let nextID = Atomic<UInt64>(1)
    private let waiters = Mutex<[UInt64: Waiter]>([:])
    /// Descriptors the host attached to its replies, not yet handed to the call they answer.
    private let descriptors = Mutex<[Int32]>([])

    init(channel: FrameChannel) {
        self.channel = channel
    }

    /// Sends `call` and waits for the host's reply; nil when the call could not be sent (too large)
    /// or the host is gone (the helper is about to exit).
    package func call(_ call: HostCall) -> HostReply? {
        exchange(call, wantsDescriptor: false).reply
    }

    /// ``call(_:)``, and the descriptor its ok reply brought when `wantsDescriptor` (else -1).
    private func exchange(_ call: HostCall, wantsDescriptor: Bool) -> (reply: HostReply?, descriptor: Int32) {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let waiter = Waiter(wantsDescriptor: wantsDescriptor)
        waiters.withLock { $0[id] = waiter }
        let sent = (try? channel.send(.call(id, call))) ?? false
        guard sent else {
            _ = waiters.withLock { $0.removeValue(forKey: id) }
            return (nil, -1)
        }
        waiter.ready.wait()
        return (waiter.reply.withLock { $0 }, waiter.descriptor.withLock { $0 })
    }

    /// Keeps descriptors that arrived with the host's frames (the reader thread calls this).
    func received(_ new: [Int32]) {
        guard !new.isEmpty else { return }
        descriptors.withLock { $0 += new }
    }

    /// Hands the host's reply to the call waiting for it (the reader thread calls this).
    /// False for a reply nobody waits for (a protocol violation by the host).
    func deliver(_ reply: HostReply, to id: UInt64) -> Bool {
        guard let waiter = waiters.withLock({ $0.removeValue(forKey: id) }) else { return false }
        if waiter.wantsDescriptor, case .added(let status, _) = reply, status == ABIStatus.ok.rawValue {
            // The reply's frame brought it: the first one not yet handed over.
            guard let descriptor = descriptors.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return false }
            waiter.descriptor.withLock { $0 = descriptor }
        }
        waiter.reply.withLock { $0 = reply }
        waiter.ready.signal()
        return true
    }

    /// Wakes every waiting call with no reply (the host is gone).
    func abandonAll() {
        let all = waiters.withLock { waiters in
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        for waiter in all { waiter.ready.signal() }
    }

    // MARK: HostServicesHandler

    func log(level: ProviderLogLevel, message: String) {
        _ = try? channel.send(.log(level, message))
    }

    func setting(forKey key: String) -> String? {
        guard case .setting(let value)? = call(.setting(key)) else { return nil }
        return value
    }

    var identityStore: any CredentialIdentityStore { ForwardingIdentityStore(services: self) }

    func complete(request: UInt64, with answer: ProviderAnswer) -> ABIStatus {
        guard case .status(let status)? = call(.complete(request: request, answer)) else { return .unknownRequest }
        return ABIStatus(status)
    }

    func present(_ ui: UserInterfaceRequest, forRequest request: UInt64) throws(UserInterfaceError) -> UserInterfaceAnswer {
        guard case .userInterface(let result)? = call(.present(request: request, ui)) else {
            throw .unavailable("the host could not be reached")
        }
        return try result.get()
    }

    func addFile(request: UInt64, folder: String, name: String, contents: [UInt8]) -> (status: ABIStatus, reason: String) {
        guard case .added(let status, let reason)? = call(.addFile(request: request, folder: folder, name: name, contents: contents)) else {
            return (.ioError, "the host could not be reached")
        }
        return (ABIStatus(status), reason)
    }

    /// Announces the replace, then sends the contents in pieces of ``HelperProtocol/replaceChunkBytes``
    /// (a whole database is over a frame's limit); the host answers the last piece with the outcome.
    func replaceFile(request: UInt64, path: String, contents: UnsafeRawBufferPointer, expectedSHA256: [UInt8]) -> (status: ABIStatus, reason: String) {
        func send(_ call: HostCall) -> (status: ABIStatus, reason: String) {
            guard case .added(let status, let reason)? = self.call(call) else { return (.ioError, "the host could not be reached") }
            return (ABIStatus(status), reason)
        }
        var outcome = send(.replaceFile(request: request, path: path, expectedSHA256: expectedSHA256, length: UInt64(contents.count)))
        var offset = 0
        while outcome.status == .ok && offset < contents.count {
            let end = min(offset + HelperProtocol.replaceChunkBytes, contents.count)
            outcome = send(.replaceFileChunk(request: request, bytes: Array(UnsafeRawBufferPointer(rebasing: contents[offset..<end]))))
            offset = end
        }
        return outcome
    }

    func openFile(path: String) -> (status: ABIStatus, reason: String, descriptor: Int32) {
        let (reply, descriptor) = exchange(.openFile(path: path), wantsDescriptor: true)
        guard case .added(let status, let reason)? = reply else { return (.ioError, "the host could not be reached", -1) }
        return (ABIStatus(status), reason, ABIStatus(status) == .ok ? descriptor : -1)
    }

    func reportMalformedCall(_ service: String, _ problem: String) {
        _ = try? channel.send(.malformedCall(service: service, problem: problem))
    }
}

/// The provider's identity store as the helper sees it: every operation is a call to the host,
/// which holds the one store this provider may reach. The helper has no store of its own, no
/// path to one, and no way to name another provider's.
struct ForwardingIdentityStore: CredentialIdentityStore {
    let services: ForwardingHostServices

    func state() throws(IdentityStoreError) -> IdentityStoreState {
        switch services.call(.storeState) {
        case .storeState(.success(let state))?: return state
        case .storeState(.failure(let failure))?: throw IdentityStoreError(failure.code, "the host refused")
        default: throw Self.unreachable
        }
    }

    func save(_ identities: [CredentialIdentity]) throws(IdentityStoreError) { try write(.storeSave(identities)) }
    func remove(_ identities: [CredentialIdentity]) throws(IdentityStoreError) { try write(.storeRemove(identities)) }
    func replace(with identities: [CredentialIdentity]) throws(IdentityStoreError) { try write(.storeReplace(identities)) }
    func removeAll() throws(IdentityStoreError) { try write(.storeRemoveAll) }

    private func write(_ call: HostCall) throws(IdentityStoreError) {
        switch services.call(call) {
        case .store(nil)?: return
        case .store(let code?)?: throw IdentityStoreError(code, "the host refused")
        default: throw Self.unreachable
        }
    }

    private static let unreachable = IdentityStoreError(
        .internalError, "the identity store could not be reached (the call is over the helper protocol's size limit, or the host is gone)")
}
