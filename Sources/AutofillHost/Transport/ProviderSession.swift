public import AutofillCore
public import AutofillABI
internal import Dispatch
internal import Logging
internal import Synchronization

/// The host's state for one loaded provider: its pending requests and its services.
///
/// Request ids come from a counter, so they are never pointers and never reused:
/// a second, late or forged completion finds nothing pending and is dropped.
///
/// **The UI watchdog.** A request of a UI entry point has no deadline: the user may take their
/// time. But once its entry point has returned (the transport calls ``entryPointReturned(_:)``), or
/// once the user answered one of its `ui_*` calls, while no `ui_*` call of it is in progress, the
/// provider is doing nothing the user can see; if that lasts `services.userInterfaceIdleTimeout`
/// (`UIIdleTimeoutSeconds`, 30 s by default) without a completion, the request fails (`timedOut`),
/// naming the provider, so a fallback can move on (a slow unlock after the prompt). Each `ui_*` call
/// stops the clock; its end starts it again. A completion after that is a stray, as after any deadline.
///
/// **Turns.** Requests reach the provider in turns (``RequestTurns``, ``inTurn(_:deadline:_:)``): one
/// that may ask the user alone, no-UI requests together, so no deadline runs out on a provider busy
/// with the user.
public final class ProviderSession: HostServicesHandler {
    private struct Pending {
        let request: ProviderRequest
        let continuation: CheckedContinuation<ProviderOutcome, Never>
        /// The entry point returned (UI requests; the watchdog runs only then, or after an answer).
        var returned = false
        /// A `ui_*` call of it ended: the user answered, and what follows is the provider's own work.
        var answered = false
        /// `ui_*` calls of this request in progress.
        var userInterfaceCalls = 0
        /// Changes whenever the idle clock starts or stops, so an old timer knows it is stale.
        var idleClock: UInt64 = 0
        /// The UI of the client this request serves, when it is not the session's own.
        var userInterface: (any ProviderUserInterface)?
        /// The agent's client this request serves (its stderr gets the provider's log lines).
        var client: ClientContext?
        /// The provider's log lines this request's client sees: the first ``LineBudget/linesPerRequest``.
        var logLines = LineBudget()
        /// A host write of this request (`add_file`, `replace_file`) was asked for, written or refused
        /// (one call per save or report).
        var wroteFile = false
    }

    private struct State {
        var nextID: UInt64 = 1
        var pending: [UInt64: Pending] = [:]
        var strayCompletions = 0
        /// Lines while no request is pending (loading, between requests).
        var logLines = LineBudget()
    }

    /// The provider's id.
    public let providerID: String
    /// The provider's display name, used in messages.
    public let displayName: String
    private let services: ProviderServices
    private let state = Mutex(State())
    /// The agent's client whose request launched the provider: its log lines at load go there.
    private let launchClient: ClientContext?
    /// Where deadlines and the watchdog fire. A serial queue of its own: its thread comes from
    /// Dispatch's overcommitting pool, so a transport that waits there (a helper's kill being
    /// reported) never holds one of the few threads of `DispatchQueue.global()`, whose timers the
    /// other providers' deadlines need.
    private let timers: DispatchQueue
    /// Whose turn it is: one request that may ask the user, or any number that may not.
    let turns = RequestTurns()

    /// Creates the session for one provider.
    public init(providerID: String, displayName: String, services: ProviderServices) {
        self.providerID = providerID
        self.displayName = displayName
        var services = services
        services.logger[metadataKey: "provider"] = "\(providerID)"
        self.services = services
        timers = DispatchQueue(label: "autofill.session.\(providerID)")
        launchClient = ClientContext.current.isAgentRequest ? ClientContext.current : nil
    }

    /// How many completions arrived for requests that were not pending.
    public var strayCompletions: Int { state.withLock { $0.strayCompletions } }

    /// How many requests are waiting for an answer.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// The UI for requests registered from this task, instead of the session's own: a provider the
    /// agent keeps running serves a different client with each request (``ScopedConnection``).
    @TaskLocal public static var requestUserInterface: (any ProviderUserInterface)?

    /// Registers `request`, returning its new id; the continuation is resumed exactly once. Its UI
    /// calls go to ``requestUserInterface`` if the registering task set one.
    public func register(_ request: ProviderRequest, continuation: CheckedContinuation<ProviderOutcome, Never>) -> UInt64 {
        let userInterface = Self.requestUserInterface
        let client = ClientContext.current.isAgentRequest ? ClientContext.current : nil
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            // Lines between requests get a fresh budget with each burst of requests.
            if state.pending.isEmpty && id > 1 { state.logLines = LineBudget() }
            state.pending[id] = Pending(request: request, continuation: continuation, userInterface: userInterface, client: client)
            return id
        }
    }

    /// Runs `send` (which registers and sends `request`) in the provider's turn (``RequestTurns``): a
    /// request of a UI entry point alone, no-UI requests together. A no-UI request waits for its turn
    /// at most `deadline`, then is answered `busy` without reaching the provider; its deadline proper
    /// starts when `send` registers it.
    public func inTurn(_ request: ProviderRequest, deadline: Duration?, _ send: () async -> ProviderOutcome) async -> ProviderOutcome {
        let asking = request.entryPoint.allowsUserInterface
        if turns.isBusyWithUser {
            services.logger.notice("\(request.entryPoint.appleName) waits: another request of \(displayName) may be asking the user something")
        }
        switch await turns.enter(asking: asking, waitingAtMost: asking ? nil : deadline) {
        case .admitted:
            break
        case .busy:
            return .failed(ProviderFailure(.busy, """
                \(displayName) is busy with another request that may be asking the user something (its prompt may be open \
                in another terminal); after waiting \((deadline ?? .zero).formattedSeconds) this request was not sent to it. \
                Answer or cancel that prompt, then try again
                """))
        case .cancelled:
            return .failed(ProviderFailure(.transport, "the request was cancelled before \(displayName) got it"))
        }
        defer { turns.leave(asking: asking) }
        return await send()
    }

    /// Gives up on `id` after `deadline` if it is still pending, then calls `onExpiry` (a helper
    /// transport kills the helper there); `onExpiry` is not called when the request was answered.
    public func expire(_ id: UInt64, after deadline: Duration, onExpiry: (@Sendable () -> Void)? = nil) {
        let nanoseconds = deadline.components.seconds * 1_000_000_000 + deadline.components.attoseconds / 1_000_000_000
        timers.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
            guard let pending = take(id) else { return }
            services.logger.warning("no answer to \(pending.request.entryPoint) within \(deadline); gave up")
            onExpiry?()
            pending.continuation.resume(returning: .failed(ProviderFailure(
                .timedOut, "\(displayName) did not answer within \(deadline.formattedSeconds)")))
        }
    }

    /// The entry point called for `id` returned. For a request of a UI entry point that is still
    /// pending, with no `ui_*` call in progress, this starts the idle clock of the UI watchdog.
    public func entryPointReturned(_ id: UInt64) {
        let clock = state.withLock { state -> UInt64? in
            guard state.pending[id]?.request.entryPoint.allowsUserInterface == true else { return nil }
            state.pending[id]?.returned = true
            return Self.startIdleClock(id, &state)
        }
        if let clock { watchIdleness(id, clock: clock) }
    }

    /// Starts request `id`'s idle clock if its entry point returned and no UI is showing: the clock's
    /// value, for ``watchIdleness(_:clock:)``, or nil.
    private static func startIdleClock(_ id: UInt64, _ state: inout State) -> UInt64? {
        guard var pending = state.pending[id], pending.returned || pending.answered, pending.userInterfaceCalls == 0 else { return nil }
        pending.idleClock += 1
        state.pending[id] = pending
        return pending.idleClock
    }

    /// Fails request `id` when its idle clock still reads `clock` after the idle timeout.
    private func watchIdleness(_ id: UInt64, clock: UInt64) {
        let timeout = services.userInterfaceIdleTimeout
        timers.asyncAfter(deadline: .now() + timeout.dispatchInterval) { [self] in
            let expired = state.withLock { state -> Pending? in
                guard let pending = state.pending[id], pending.idleClock == clock, pending.userInterfaceCalls == 0 else { return nil }
                return state.pending.removeValue(forKey: id)
            }
            guard let expired else { return }
            let entry = expired.request.entryPoint.appleName
            guard expired.returned else {
                // Still working after the user answered (a slow unlock): the request ends so a fallback can go on.
                services.logger.warning("\(entry) showed nothing and did not complete its request for \(timeout.formattedSeconds) after the user answered; gave up")
                expired.continuation.resume(returning: .failed(ProviderFailure(
                    .timedOut,
                    "\(displayName) did not complete \(entry) within \(timeout.formattedSeconds) after its prompt was answered, and showed nothing since; gave up (UIIdleTimeoutSeconds in the configuration sets the wait)")))
                return
            }
            services.logger.warning("\(entry) returned without completing its request, and nothing happened for \(timeout.formattedSeconds); gave up")
            expired.continuation.resume(returning: .failed(ProviderFailure(
                .timedOut,
                "\(displayName) returned from \(entry) without completing the request and showed nothing for \(timeout.formattedSeconds); gave up (a provider must complete or cancel every request; UIIdleTimeoutSeconds in the configuration sets the wait)")))
        }
    }

    /// The agent's client pending request `id` serves, if any.
    func client(of id: UInt64) -> ClientContext? {
        state.withLock { $0.pending[id]?.client }
    }

    /// Ends `id` with a host-side failure (used by transports that lose the provider).
    public func fail(_ id: UInt64, _ failure: ProviderFailure) {
        take(id)?.continuation.resume(returning: .failed(failure))
    }

    private func take(_ id: UInt64) -> Pending? {
        let (pending, dropped) = state.withLock { state -> (Pending?, Int) in
            var pending = state.pending.removeValue(forKey: id)
            return (pending, (pending?.logLines.takeDropped() ?? 0) + state.logLines.takeDropped())
        }
        if dropped > 0 {
            inClientContext(pending?.client) {
                services.logger.warning("\(LineBudget.droppedMessage(dropped, "lines", from: displayName, maximum: LineBudget.linesPerRequest))")
            }
        }
        return pending
    }

    /// Runs `body` (which logs) in the context of the agent's client the line belongs to: `client`,
    /// else the newest pending request's, else the one whose request launched the provider. Outside
    /// the agent, and for lines nobody is waiting for, in the current context.
    private func inClientContext(_ client: ClientContext?, _ body: () -> Void) {
        let context = client ?? state.withLock { state in
            state.pending.max { $0.key < $1.key }?.value.client
        } ?? launchClient
        guard let context else { return body() }
        ClientContext.$current.withValue(context, operation: body)
    }

    // MARK: HostServicesHandler
    //
    // Provider text enters the host here, from both transports: each reason, log line, UI text
    // and problem is made safe to show (DisplayText) before anything else sees it.

    public func log(level: ProviderLogLevel, message: String) {
        show(DisplayText.line(message), level: level)
    }

    public func printed(_ line: String, level: ProviderLogLevel) {
        show(line, level: level)
    }

    /// Logs a line of the provider's, safe to show already, to the client it belongs to, within the budget.
    private func show(_ line: String, level: ProviderLogLevel) {
        let logLevel: Logger.Level =
            switch level {
            case .debug: .debug
            case .info: .info
            case .notice: .notice
            case .warning: .warning
            case .error: .error
            }
        inClientContext(nil) {
            // Only lines the client would see count (its level: `-v` shows more), against the newest
            // pending request's budget, the request they are told with.
            guard services.logger.logLevel <= logLevel else { return }
            let admitted = state.withLock { state -> Bool in
                guard let newest = state.pending.keys.max() else { return state.logLines.admit() }
                return state.pending[newest]!.logLines.admit()
            }
            guard admitted else { return }
            services.logger.log(level: logLevel, "\(line)")
        }
    }

    public func setting(forKey key: String) -> String? {
        services.settings[key]
    }

    public var identityStore: any CredentialIdentityStore { services.store }

    public func complete(request id: UInt64, with answer: ProviderAnswer) -> ABIStatus {
        guard let pending = take(id) else {
            state.withLock { $0.strayCompletions += 1 }
            services.logger.warning(
                "completion for request \(id), which is not pending (completed already, given up after its deadline, or never issued); ignored")
            return .unknownRequest
        }
        let entry = pending.request.entryPoint
        switch answer {
        case .credential(let credential):
            guard pending.request.acceptedCompletions.contains(credential.kind) else {
                let message = "\(displayName) answered \(entry.appleName) with a \(credential.kind) completion, which does not fit the request"
                services.logger.error("\(message)")
                pending.continuation.resume(returning: .failed(ProviderFailure(.wrongCompletion, message)))
                return .wrongCompletion
            }
            if let missing = credential.missingSecret {
                let message = "\(displayName) answered \(entry.appleName) with an empty \(missing); nothing was filled"
                services.logger.error("\(message)")
                pending.continuation.resume(returning: .failed(ProviderFailure(.malformedCompletion, message)))
                return .invalidArgument
            }
            if case .generatePassword(let generate) = pending.request, case .generatedPassword(let password) = credential,
                let broken = GeneratedPasswordCheck.problem(with: password, for: generate)
            {
                let message = "\(displayName) generated a password that \(broken); refused"
                services.logger.error("\(message)")
                pending.continuation.resume(returning: .failed(ProviderFailure(.wrongCompletion, message)))
                return .invalidArgument
            }
            pending.continuation.resume(returning: .completed(credential))
            return .ok
        case .error(let error):
            pending.continuation.resume(returning: .canceled(error.displaySafe))
            return .ok
        case .malformed(let problem):
            let message = "\(displayName) sent a malformed answer to \(entry.appleName): \(DisplayText.line(problem))"
            services.logger.error("\(message)")
            pending.continuation.resume(returning: .failed(ProviderFailure(.malformedCompletion, message)))
            return .invalidArgument
        }
    }

    public func present(_ ui: UserInterfaceRequest, forRequest id: UInt64) throws(UserInterfaceError)
        -> UserInterfaceAnswer
    {
        guard let (request, requestUserInterface) = state.withLock({ state in state.pending[id].map { ($0.request, $0.userInterface) } }) else {
            throw .unavailable("request \(id) is not pending")
        }
        guard request.entryPoint.allowsUserInterface else {
            services.logger.warning("asked for UI during \(request.entryPoint.appleName), which allows none; refused")
            throw .unavailable("\(request.entryPoint.appleName) may not show UI")
        }
        // The watchdog's clock stops while the user is asked, and starts again after.
        state.withLock { state in
            state.pending[id]?.userInterfaceCalls += 1
            state.pending[id]?.idleClock += 1
        }
        defer {
            let clock = state.withLock { state -> UInt64? in
                state.pending[id]?.userInterfaceCalls -= 1
                state.pending[id]?.answered = true
                return Self.startIdleClock(id, &state)
            }
            if let clock { watchIdleness(id, clock: clock) }
        }
        // "Name (id)": the terminal shows both, in a frame the provider cannot draw (PromptFrame).
        return try (requestUserInterface ?? services.userInterface).present(ui.displaySafe, providerName: "\(displayName) (\(providerID))")
    }

    public func addFile(request id: UInt64, folder: String, name: String, contents: [UInt8]) -> (status: ABIStatus, reason: String) {
        writeFile(for: id, service: "add_file", verb: "add") { () throws(FileGrantWriter.Failure) -> String in
            try services.fileWriter.add(folder: folder, name: name, contents: contents, provider: "\(displayName) (\(providerID))")
        }
    }

    public func replaceFile(request id: UInt64, path: String, contents: UnsafeRawBufferPointer, expectedSHA256: [UInt8]) -> (status: ABIStatus, reason: String) {
        writeFile(for: id, service: "replace_file", verb: "replace") { () throws(FileGrantWriter.Failure) -> String in
            try services.fileWriter.replace(path: path, contents: contents, expectedSHA256: expectedSHA256, provider: "\(displayName) (\(providerID))")
        }
    }

    /// Runs `write` (a host write for the provider: ``FileGrantWriter``) for request `id` of the provider's
    /// call `service`, when the host may write for that request: it is pending, a save or a report, and
    /// asked for no write before (one file per request: a save writes one entry, and a provider cannot
    /// rewrite a whole store in one). Logs what was done, or why not, to the request's client.
    private func writeFile(for id: UInt64, service: String, verb: String,
                           _ write: () throws(FileGrantWriter.Failure) -> String) -> (status: ABIStatus, reason: String) {
        let (request, again) = state.withLock { state -> (ProviderRequest?, Bool) in
            guard let pending = state.pending[id] else { return (nil, false) }
            defer { state.pending[id]?.wroteFile = true }
            return (pending.request, pending.wroteFile)
        }
        guard let request else { return (.unknownRequest, "request \(id) is not pending") }
        guard !again else {
            let reason = "\(displayName) called \(service) a second time during one \(request.entryPoint.appleName); autofill \(verb)s one file per save or report (one call, written or refused); nothing was written"
            services.logger.warning("\(reason)")
            return (.refused, reason)
        }
        // Only while the user's save or report is being handled: never while filling, never in the background.
        guard [.prepareInterfaceForSavePassword, .reportCredentialUpdate].contains(request.entryPoint) else {
            let reason = "\(displayName) may \(verb) files only while it saves a password or applies a report, not during \(request.entryPoint.appleName); nothing was written"
            services.logger.warning("\(reason)")
            return (.refused, reason)
        }
        do {
            let done = try write()
            inClientContext(client(of: id)) { services.logger.info("\(DisplayText.line(done))") }
            return (.ok, "")
        } catch {
            inClientContext(client(of: id)) { services.logger.warning("\(displayName) asked to \(verb) a file: \(error.message)") }
            return (error.status, error.message)
        }
    }

    public func openFile(path: String) -> (status: ABIStatus, reason: String, descriptor: Int32) {
        do {
            let descriptor = try services.fileWriter.open(path: path, provider: "\(displayName) (\(providerID))")
            return (.ok, "", descriptor)
        } catch {
            services.logger.warning("\(displayName) asked to open a file: \(error.message)")
            return (error.status, error.message, -1)
        }
    }

    public func reportMalformedCall(_ service: String, _ problem: String) {
        services.logger.warning("malformed call to \(DisplayText.line(service)): \(DisplayText.line(problem))")
    }
}

extension Duration {
    /// "3 s", "0.25 s".
    var formattedSeconds: String {
        let milliseconds = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}
