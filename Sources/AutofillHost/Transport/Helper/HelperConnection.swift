internal import AutofillWire
public import AutofillCore
internal import Dispatch
public import Logging
internal import Synchronization

/// A provider running in a helper process of its own (`autofill-provider-helper`), reached over
/// the helper protocol (``HelperProtocol``): the default way providers run.
///
/// The helper loads the plugin with the in-process loader's checks and binds it to a host-services
/// table whose every call travels back here, to this connection's ``ProviderSession`` (the same
/// pending-request, completion and UI rules as in-process). What the helper's plugin does cannot
/// harm the host: a crash, `abort()` or exit fails the requests it held at once
/// (`.failed(.transport)`, naming the provider and the signal); a request with a deadline that
/// passes is answered `.timedOut` and the helper is killed; a helper that reaches its memory
/// ceiling is reported as such. The next request starts a fresh helper. Every ending that was the
/// plugin's doing is reported once to `onFault` (quarantine counts them).
public final class HelperConnection: ProviderConnection {
    public let manifest: PluginManifest
    public let entryPoints: EntryPoints
    /// The host-side state: pending requests, store, settings, UI.
    public let session: ProviderSession
    /// The limits each helper of this provider runs under.
    public let options: HelperOptions
    /// The approved SHA-256 of each file of the bundle, admitted at launch: a helper started again after
    /// a fault loads only those bytes (a file swapped while the provider was warm is refused).
    private let pins: [String: String]?
    private let logger: Logger
    private let onFault: @Sendable (PluginManifest, ProviderFault) -> Void
    private let current = Mutex<RunningHelper?>(nil)
    /// The client whose request's deadline stopped the helper last: its fault is reported in that
    /// client's context (``ended(_:_:_:)``).
    private let deadlineClient = Mutex<ClientContext?>(nil)
    private let starts = Mutex(1)
    private let lifecycle: DispatchQueue

    /// The default fault handler: a warning in the provider's log (the lead wires quarantine here).
    public static func logFault(to logger: Logger) -> @Sendable (PluginManifest, ProviderFault) -> Void {
        { manifest, fault in logger.warning("provider fault: \(fault.message)", metadata: ["provider": "\(manifest.identifier)"]) }
    }

    private init(manifest: PluginManifest, entryPoints: EntryPoints, session: ProviderSession, options: HelperOptions,
                 pins: [String: String]?, logger: Logger, onFault: @escaping @Sendable (PluginManifest, ProviderFault) -> Void) {
        self.manifest = manifest
        self.entryPoints = entryPoints
        self.session = session
        self.options = options
        self.pins = pins
        self.logger = logger
        self.onFault = onFault
        self.lifecycle = DispatchQueue(label: "autofill.helper.\(manifest.identifier)")
    }

    deinit {
        current.withLock { $0 }?.stop(.released)
    }

    // MARK: Launching and validating

    /// Starts a helper for `manifest`'s plugin and loads it there, or throws `invalidPlugin` listing
    /// every problem (as ``PluginLoader/load(bundle:services:)`` does in-process), including a plugin
    /// that crashed or hung while loading.
    ///
    /// `beforeLoading` runs while the helper process starts up (its runtime takes a few
    /// milliseconds), before the helper learns which plugin to load: nothing of the plugin is read
    /// or run until it returns. If it throws, the helper is stopped and the error rethrown.
    /// `ProviderSetup.launch` admits the provider there (trust and quarantine); it returns the approved
    /// SHA-256 of each file of the bundle, which the helper checks each library against as it loads it
    /// (nil: nothing compared).
    public static func launch(
        manifest: PluginManifest, services: ProviderServices, options: HelperOptions = HelperOptions(),
        onFault: (@Sendable (PluginManifest, ProviderFault) -> Void)? = nil,
        beforeLoading: () throws(AutofillError) -> [String: String]? = { nil }
    ) throws(AutofillError) -> HelperConnection {
        var logger = services.logger
        logger[metadataKey: "provider"] = "\(manifest.identifier)"
        let session = ProviderSession(providerID: manifest.identifier, displayName: manifest.displayName, services: services)
        let onFault = onFault ?? logFault(to: services.logger)
        // The connection exists only once the load succeeded; until then, endings go to a box it takes over.
        let box = ConnectionBox()
        let spawned = Result { () throws(AutofillError) -> RunningHelper in
            try RunningHelper.spawn(
                manifest: manifest, options: options, handler: session, logger: logger,
                onEnd: { helper, ending, inFlight in
                    if let connection = box.connection {
                        connection.ended(helper, ending, inFlight)
                    } else if let fault = ending.fault {
                        onFault(manifest, fault)
                    }
                })
        }
        let pins: [String: String]?
        do {
            pins = try beforeLoading()
        } catch {
            if case .success(let helper) = spawned { helper.stop(.released) }
            throw error
        }
        let helper = try spawned.get()
        let load = helper.load(pins: pins)
        guard let entryPoints = load.entryPoints, !load.problems.contains(where: { $0.severity == .error }) else {
            helper.stop(.released)
            throw AutofillError(.invalidPlugin, "the plugin \(manifest.identifier) cannot be loaded:",
                                problems: load.problems.filter { $0.severity == .error })
        }
        let connection = HelperConnection(manifest: manifest, entryPoints: entryPoints, session: session, options: options, pins: pins,
                                          logger: logger, onFault: onFault)
        connection.current.withLock { $0 = helper }
        box.connection = connection
        return connection
    }

    /// Reads the bundle's plist and launches it (``launch(manifest:services:options:onFault:beforeLoading:)``).
    public static func launch(
        bundle: String, services: ProviderServices, options: HelperOptions = HelperOptions(),
        onFault: (@Sendable (PluginManifest, ProviderFault) -> Void)? = nil,
        beforeLoading: () throws(AutofillError) -> [String: String]? = { nil }
    ) throws(AutofillError) -> HelperConnection {
        let (manifest, problems) = ManifestReader.read(bundle: bundle)
        guard let manifest else {
            throw AutofillError(.invalidPlugin, "the plugin \(ManifestReader.normalized(bundle)) cannot be loaded:",
                                problems: problems.filter { $0.severity == .error })
        }
        return try launch(manifest: manifest, services: services, options: options, onFault: onFault, beforeLoading: beforeLoading)
    }

    /// Checks the plugin at `bundle` the way ``PluginLoader/validate(bundle:services:)`` does, but
    /// loads it in a helper, so a plugin that crashes or hangs while loading is reported, not fatal.
    /// The entry symbol is checked by the host itself first (``ELFDynamicSymbols``): a library
    /// without it is invalid whatever its code would say, and none of its code runs.
    public static func validate(bundle: String, services: ProviderServices, options: HelperOptions = HelperOptions())
        -> PluginValidation
    {
        let (manifest, plistProblems) = ManifestReader.read(bundle: bundle)
        var validation = PluginValidation(
            bundlePath: ManifestReader.normalized(bundle), manifest: manifest, entryPoints: nil, problems: plistProblems)
        guard let manifest else { return validation }
        // The entry symbol, checked by the host in the library's dynamic symbol table before any of
        // the plugin's code runs: what the helper later reports cannot make a library without it valid.
        if let problem = PluginProblem.entrySymbolCheck(manifest) {
            validation.problems.append(problem)
            return validation
        }
        let session = ProviderSession(providerID: manifest.identifier, displayName: manifest.displayName, services: services)
        var logger = services.logger
        logger[metadataKey: "provider"] = "\(manifest.identifier)"
        do {
            let (helper, load) = try RunningHelper.start(
                manifest: manifest, options: options, handler: session, logger: logger, onEnd: { _, _, _ in })
            helper.stop(.released)
            // The helper read the plist itself; its problems are the whole list, as in-process.
            validation.problems = load.problems
            validation.entryPoints = load.entryPoints
        } catch {
            validation.problems.append(PluginProblem(
                .loadFailed, file: manifest.libraryPath, message: error.message,
                fix: "see the message; `autofill plugin validate` needs the provider helper installed with autofill"))
        }
        return validation
    }

    // MARK: ProviderConnection

    public var strayCompletions: Int { session.strayCompletions }

    /// The helper process now serving this provider, if one is running: the one that runs the plugin
    /// (in namespaces, the child of the helper executed outside them; ``RunningHelper/servingPID``).
    public var helperProcessID: Int32? {
        current.withLock { $0 }.flatMap { $0.isRunning ? $0.servingPID : nil }
    }

    /// The sandbox of the helper now serving, as it reported it before opening the plugin; nil when
    /// it runs unsandboxed or no helper is running.
    public var sandboxReport: SandboxReport? {
        current.withLock { $0?.sandboxReport }
    }

    /// Ends the helper now serving, and with it everything the provider held in memory (`autofill
    /// lock`); requests it held fail, and the next request starts a fresh helper.
    public func endHelper() {
        current.withLock { $0 }?.stopAndWait(.released)
    }

    /// How many helpers this connection has started (1 after launch; each restart adds one).
    public var helperStarts: Int { starts.withLock { $0 } }

    public func send(_ request: ProviderRequest, deadline: Duration?) async -> ProviderOutcome {
        if let refusal = manifest.refusal(of: request, offered: entryPoints) { return .failed(refusal) }
        return await session.inTurn(request, deadline: deadline) { await sendNow(request, deadline: deadline) }
    }

    /// Sends `request` to the running helper (started again if needed), in its turn.
    private func sendNow(_ request: ProviderRequest, deadline: Duration?) async -> ProviderOutcome {
        let helper: RunningHelper
        switch await runningHelper() {
        case .success(let running): helper = running
        case .failure(let failure): return .failed(failure)
        }
        return await withCheckedContinuation { continuation in
            let id = session.register(request, continuation: continuation)
            guard helper.track(id, request.entryPoint) else {
                session.fail(id, ProviderFailure(.transport, "\(manifest.displayName) stopped before it got the request; try again"))
                return
            }
            if let deadline {
                // The kill is reported (and in the fault ledger) before the caller hears of the timeout.
                let client = ClientContext.current
                session.expire(id, after: deadline) { [weak helper, weak self] in
                    self?.deadlineClient.withLock { $0 = client }
                    helper?.stopAndWait(.deadline(request.entryPoint, deadline), answered: id)
                }
            }
            do throws(FrameError) {
                // False means the helper is gone: its reader fails the request it tracked.
                try helper.channel.send(.request(id, request))
            } catch {
                helper.untrack(id)
                session.fail(id, ProviderFailure(.transport, "the request is too large to send to \(manifest.displayName): \(error.message)"))
            }
        }
    }

    /// The running helper, or a fresh one (started on the lifecycle queue, one start at a time).
    private func runningHelper() async -> Result<RunningHelper, ProviderFailure> {
        if let helper = current.withLock({ $0 }), helper.isRunning {
            guard let file = helper.replacedFile else { return .success(helper) }
            // Its sandbox holds the old file by its inode (docs/SANDBOX.md, "What the provider sees after a rename").
            logger.notice("\(DisplayText.line(file, limit: 300)) was replaced since the helper of \(manifest.displayName) (pid \(helper.pid)) started, and its sandbox still holds the old file: that helper ends, and a new one takes the request")
            helper.retireWhenIdle()
        }
        return await withCheckedContinuation { continuation in
            lifecycle.async { continuation.resume(returning: self.restart()) }
        }
    }

    private func restart() -> Result<RunningHelper, ProviderFailure> {
        if let helper = current.withLock({ $0 }), helper.isRunning { return .success(helper) }
        let name = manifest.displayName
        let manifest = self.manifest, onFault = self.onFault
        do {
            let (helper, load) = try RunningHelper.start(
                manifest: manifest, options: options, pins: pins, handler: session, logger: logger,
                onEnd: { [weak self] helper, ending, inFlight in
                    if let self {
                        self.ended(helper, ending, inFlight)
                    } else if let fault = ending.fault {
                        onFault(manifest, fault)  // released meanwhile: the fault still counts
                    }
                })
            starts.withLock { $0 += 1 }
            guard load.entryPoints != nil, !load.problems.contains(where: { $0.severity == .error }) else {
                helper.stop(.released)
                let reasons = load.problems.filter { $0.severity == .error }.map(\.message).joined(separator: "; ")
                return .failure(ProviderFailure(.transport, "\(name) could not be started again: \(reasons)"))
            }
            current.withLock { $0 = helper }
            logger.notice("started a new helper (pid \(helper.pid)) for \(name)")
            return .success(helper)
        } catch {
            return .failure(ProviderFailure(.transport, "\(name) could not be started again: \(error.message)"))
        }
    }

    /// A helper ended: report the fault, fail what it held, let the next request start another. The
    /// fault first: whoever waits for a request (a command about to print and exit) hears of it only
    /// once the fault is recorded.
    private func ended(_ helper: RunningHelper, _ ending: RunningHelper.Ending, _ inFlight: [UInt64: EntryPoint]) {
        current.withLock { if $0 === helper { $0 = nil } }
        let stoppedBy = deadlineClient.withLock { client in
            defer { client = nil }
            return client
        }
        if let fault = ending.fault {
            // Reported in the context of a client whose request it ended: what the fault handler says
            // (a quarantine, a fault the ledger could not record) reaches that client, not only the log.
            let client = stoppedBy ?? inFlight.keys.sorted().lazy.compactMap { self.session.client(of: $0) }.first
            if let client, client.isAgentRequest {
                ClientContext.$current.withValue(client) { onFault(manifest, fault) }
            } else {
                onFault(manifest, fault)
            }
        }
        let name = manifest.displayName
        for (id, entryPoint) in inFlight.sorted(by: { $0.key < $1.key }) {
            let message: String
            if let fault = ending.fault, case .killedAtDeadline = fault.kind {
                message = "\(name) was stopped while answering \(entryPoint.appleName): \(fault.message)"
            } else if let what = ending.what {
                message = "\(name) \(what) while answering \(entryPoint.appleName)"
            } else {
                message = "\(name) was stopped while answering \(entryPoint.appleName)"
            }
            session.fail(id, ProviderFailure(.transport, message))
        }
    }
}

/// Holds, weakly, a connection made after its first helper started, for that helper's end handler.
private final class ConnectionBox: Sendable {
    private struct Reference {
        weak var connection: HelperConnection?
    }

    private let reference = Mutex(Reference())

    var connection: HelperConnection? {
        get { reference.withLock { $0.connection } }
        set { reference.withLock { $0.connection = newValue } }
    }
}
