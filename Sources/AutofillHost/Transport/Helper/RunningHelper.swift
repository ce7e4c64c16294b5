internal import AutofillWire
internal import AutofillABI
internal import AutofillCore
internal import AutofillSystem
internal import Dispatch
internal import Logging
internal import Synchronization

/// One helper process as the host sees it, from spawn to reaping: its channel, the thread that
/// reads it (and the plugin's output), the requests it holds, and how it ended.
///
/// The reader thread serves the plugin's host-service calls through `handler` (the provider's
/// ``ProviderSession``) in the order they arrive; only UI calls, which wait for the user, are
/// answered from another thread. The helper's end is its *process* ending, which the reader watches
/// (a pidfd), not the end of its socket: a child the plugin forked may hold the socket open for as
/// long as it likes. When the process ends (or the channel does), the reader ends the helper's
/// process group (whatever the plugin forked), reaps the process, classifies the ending
/// (``ProviderFault``) from what the host itself saw, and reports it once through `onEnd` with the
/// requests in flight.
final class RunningHelper: Sendable {
    /// Why the host ended a helper.
    enum StopReason: Sendable {
        /// A request with a deadline was not answered in time.
        case deadline(EntryPoint, Duration)
        /// The handshake and load did not finish in time.
        case loadDeadline
        /// The helper sent something that is not the protocol.
        case violation(String)
        /// The helper's versions do not match the host's.
        case versionMismatch(PluginProblem)
        /// The host is done with it (connection released, validation finished, load refused).
        case released
    }

    /// How a helper ended: the fault, if it was one, and the phrases for what it did.
    struct Ending: Sendable {
        /// Nil when the host stopped it for its own reasons (``StopReason/released``).
        var fault: ProviderFault?
        /// "crashed (SIGSEGV)", "ran out of its 512 MB memory limit", ...; nil with no fault.
        var what: String?
        /// The whole sentence after the provider's name: "crashed (SIGSEGV) in its entry function …".
        var predicate: String?
        /// The stage it was loading in, if it had not finished loading.
        var stage: LoadStage?
    }

    /// What the handshake and load produced.
    struct LoadResult: Sendable {
        var problems: [PluginProblem]
        var entryPoints: EntryPoints?
    }

    struct State {
        var stage: LoadStage?
        var helloSeen = false
        /// The host allowed the load (``load()``); `load` goes out once this and the hello are both in.
        var approved = false
        /// The approved SHA-256 of each file of the bundle, sent with `load` (nil: nothing compared).
        var pins: [String: String]?
        var loadSent = false
        /// The helper's report that its sandbox is in force (before it opened the plugin).
        var sandbox: SandboxReport?
        var load: LoadResult?
        var inFlight: [UInt64: EntryPoint] = [:]
        var stopReason: StopReason?
        /// The helper's address space when its fault reporter last sent a note, as the host read it from /proc.
        var addressSpaceAtFault: UInt64?
        /// In namespaces: the helper that serves (the child of the one executed outside), found at its hello.
        var namespacedHelper: Int32?
        /// The reader is ending it: it takes no more requests.
        var reaping = false
        /// Its pid is released (reaped): nothing may signal it any more.
        var reaped = false
        var ending: Ending?
        /// A `replace_file` whose contents are arriving in pieces (one at a time per helper).
        var replacing = ReplaceAssembly()
        /// The request after which the helper is ended (``retire(after:)``).
        var retireAfter: UInt64?
        /// It takes no new request and ends once those it holds are answered (``retireWhenIdle()``).
        var retiring = false
        /// The single files its sandbox holds by their inode, as they were when it started.
        var files = GrantedFiles.none
    }

    let pid: Int32
    let channel: FrameChannel
    let spawned: SpawnedHelper
    let manifest: PluginManifest
    let options: HelperOptions
    let handler: any HostServicesHandler
    let logger: Logger
    let state = Mutex(State())
    let settled = DispatchSemaphore(value: 0)  // loaded, or ended
    let reaped = DispatchSemaphore(value: 0)
    let onEnd: @Sendable (RunningHelper, Ending, [UInt64: EntryPoint]) -> Void
    /// Where the plugin's UI calls wait for the user, one at a time: a serial queue, so its thread
    /// comes from Dispatch's overcommitting pool and a prompt that waits minutes holds none of the few
    /// threads of `DispatchQueue.global()` (deadline timers need those).
    let userInterfaceQueue: DispatchQueue

    private init(spawned: SpawnedHelper, manifest: PluginManifest, options: HelperOptions, handler: any HostServicesHandler,
                 logger: Logger, onEnd: @escaping @Sendable (RunningHelper, Ending, [UInt64: EntryPoint]) -> Void) {
        self.spawned = spawned
        self.pid = spawned.pid
        self.channel = FrameChannel(descriptor: spawned.channel)
        self.manifest = manifest
        self.options = options
        self.handler = handler
        self.logger = logger
        self.onEnd = onEnd
        self.userInterfaceQueue = DispatchQueue(label: "autofill.helper.ui.\(manifest.identifier)")
    }

    // MARK: Starting

    /// Spawns a helper for `manifest`'s bundle and waits, up to the load deadline, for the handshake
    /// and the plugin's load. A plugin that cannot be loaded (invalid, crashed, hung) is reported as
    /// problems, exactly like in-process loading; only a helper that cannot be started at all throws.
    /// `pins`: the approved SHA-256 of each file of the bundle (nil: nothing compared).
    static func start(
        manifest: PluginManifest, options: HelperOptions, pins: [String: String]? = nil, handler: any HostServicesHandler, logger: Logger,
        onEnd: @escaping @Sendable (RunningHelper, Ending, [UInt64: EntryPoint]) -> Void
    ) throws(AutofillError) -> (helper: RunningHelper, load: LoadResult) {
        let helper = try spawn(manifest: manifest, options: options, handler: handler, logger: logger, onEnd: onEnd)
        return (helper, helper.load(pins: pins))
    }

    /// Spawns a helper for `manifest` and returns at once: the helper starts its runtime and says
    /// hello, but is not told which plugin to load (so nothing of the plugin is read or run) until
    /// ``load()``. The caller does other work meanwhile (admission); ``stop(_:answered:)`` ends it.
    static func spawn(
        manifest: PluginManifest, options: HelperOptions, handler: any HostServicesHandler, logger: Logger,
        onEnd: @escaping @Sendable (RunningHelper, Ending, [UInt64: EntryPoint]) -> Void
    ) throws(AutofillError) -> RunningHelper {
        let executable = try HelperSpawn.executable(options)
        let spawned: SpawnedHelper
        if options.namespaces, let policy = options.sandbox {
            // Its namespaces are made for this provider: only one started ahead for the same will do.
            let namespaces = HelperNamespaces(policy: policy, sessionBus: options.sessionBus, named: "\(manifest.displayName) (\(manifest.identifier))")
            if let waiting = HelperPrestart.take(executable: executable, memoryLimit: options.memoryLimitBytes, namespaces: namespaces) {
                spawned = waiting
            } else {
                spawned = try HelperSpawn.spawn(executable, memoryLimit: options.memoryLimitBytes, namespaces: namespaces,
                                                files: options.singleFiles.map(\.path))
            }
        } else if let waiting = HelperPrestart.take(executable: executable, memoryLimit: options.memoryLimitBytes) {
            spawned = waiting
        } else {
            spawned = try HelperSpawn.spawn(executable, memoryLimit: options.memoryLimitBytes)
        }
        let helper = RunningHelper(spawned: spawned, manifest: manifest, options: options, handler: handler, logger: logger, onEnd: onEnd)
        // Without namespaces the helper opens its files (Landlock) once told to load: their identities now are no later.
        let files = spawned.namespaced ? spawned.files : GrantedFiles(taking: options.sandbox == nil ? [] : options.singleFiles.map(\.path))
        helper.state.withLock { $0.files = files }
        LiveHelpers.add(helper)
        guard startDetachedThread({ helper.readLoop() }) else {
            LiveHelpers.remove(helper)
            HelperSpawn.discard(spawned)
            throw AutofillError(.internal, "cannot start a thread to talk to the provider helper of \(manifest.displayName)")
        }
        return helper
    }

    /// Tells the helper to load its plugin (as soon as its hello is in) and waits, up to the load
    /// deadline, for the result. `pins`: the approved SHA-256 of each file of the bundle, which each
    /// library the helper loads must match.
    func load(pins: [String: String]? = nil) -> LoadResult {
        if let proxy = spawned.busProxy {
            do throws(AutofillError) {
                try proxy.waitUntilListening(for: "\(manifest.displayName) (\(manifest.identifier))")
            } catch {
                stop(.released)
                reapedIfEnding()
                return LoadResult(problems: [PluginProblem(.loadFailed, file: manifest.bundlePath, message: error.message,
                                                           fix: "nothing of the provider ran; check that your session bus runs (docs/SANDBOX.md)")],
                                  entryPoints: nil)
            }
        }
        sendLoadIfReady {
            $0.approved = true
            $0.pins = pins
        }
        if settled.wait(timeout: .now() + options.loadDeadline.dispatchInterval) == .timedOut {
            stop(.loadDeadline)
        }
        reapedIfEnding()
        return loadResult()
    }

    /// Marks one of the two conditions of `load` (the hello, the host's approval) and sends `load`
    /// when both hold, exactly once.
    func sendLoadIfReady(_ mark: (inout State) -> Void) {
        let ready = state.withLock { state -> [String: String]?? in
            mark(&state)
            guard state.helloSeen, state.approved, !state.loadSent else { return nil }
            state.loadSent = true
            return .some(state.pins)
        }
        guard let pins = ready else { return }
        do {
            try channel.send(.load(protocolVersion: HelperProtocol.version, abiVersion: providerABIVersion, bundlePath: manifest.bundlePath,
                                   sandbox: options.sandbox, pins: pins))
        } catch {
            stop(.violation(error.message))
        }
    }

    /// The helper's sandbox as it reported it before opening the plugin; nil when unsandboxed.
    var sandboxReport: SandboxReport? { state.withLock { $0.sandbox } }

    /// After a stop, waits for the reader to reap the process, so its ending is known.
    private func reapedIfEnding() {
        guard state.withLock({ $0.stopReason != nil || $0.ending != nil }) else { return }
        waitUntilReaped()
    }

    /// Waits until the reader has reaped the process and reported its ending (`onEnd` returned), at
    /// most `timeout`. True when it has.
    @discardableResult
    func waitUntilReaped(timeout: Duration? = nil) -> Bool {
        if let timeout {
            guard reaped.wait(timeout: .now() + timeout.dispatchInterval) == .success else { return false }
        } else {
            reaped.wait()
        }
        reaped.signal()
        return true
    }

    /// The load's result: the helper's own, or a problem saying how it ended while loading.
    private func loadResult() -> LoadResult {
        state.withLock { state in
            if let load = state.load { return load }
            if case .versionMismatch(let problem) = state.stopReason { return LoadResult(problems: [problem], entryPoints: nil) }
            let during = (state.stage ?? .readingPlist).during(manifest)
            let ending = state.ending ?? Ending(fault: nil, what: nil, predicate: nil, stage: state.stage)
            let predicate = ending.predicate ?? "was stopped \(during)"
            let fix: String
            switch ending.fault?.kind {
            case .killedAtDeadline:
                fix = "a provider must return from its entry function promptly and do slow work later; report this to its author"
            case .exceededMemory:
                fix = "raise ProviderIsolation.MemoryLimitMB in the configuration if the provider really needs more, or report this to its author"
            default:
                fix = "the provider has a bug: report it to its author (`autofill plugin validate \(manifest.bundlePath)` shows this again)"
            }
            return LoadResult(
                problems: [PluginProblem(.loadFailed, file: manifest.libraryPath, message: "the provider \(predicate)", fix: fix)],
                entryPoints: nil)
        }
    }

    // MARK: Requests

    /// Notes that request `id` was sent to this helper; false if the helper is ending.
    func track(_ id: UInt64, _ entryPoint: EntryPoint) -> Bool {
        state.withLock { state in
            guard state.stopReason == nil, state.ending == nil, !state.reaping, !state.retiring else { return false }
            state.inFlight[id] = entryPoint
            return true
        }
    }

    /// Forgets request `id` (it was answered or failed on the host's side).
    func untrack(_ id: UInt64) {
        state.withLock { state in
            state.inFlight.removeValue(forKey: id)
            // Pieces of a replace for a request that ended are dropped, not kept until the helper ends.
            state.replacing.drop(request: id)
        }
        if state.withLock({ $0.retireAfter == id || ($0.retiring && $0.inFlight.isEmpty) }) { stop(.released) }
    }

    /// Takes no new request, and ends once the requests it holds are answered (at once when it holds none).
    func retireWhenIdle() {
        if state.withLock({ state in
            state.retiring = true
            return state.inFlight.isEmpty
        }) { stop(.released) }
    }

    /// A single file its sandbox holds that was replaced (another inode) since it started, or nil.
    var replacedFile: String? {
        state.withLock { $0.files }.replaced()
    }

    /// The process that runs the provider: in namespaces the one `pid` forked there (found at its
    /// hello; `pid` only waits for it), else `pid`. What `autofill agent status` reports: stopping it
    /// stops the provider's answers.
    var servingPID: Int32 {
        state.withLock { $0.namespacedHelper } ?? pid
    }

    /// Whether the helper can take requests.
    var isRunning: Bool {
        state.withLock { $0.stopReason == nil && $0.ending == nil && !$0.reaping && !$0.retiring }
    }

    /// Ends the helper with SIGKILL for `reason` (the first reason given wins); `id` is a request the
    /// caller already ended, left out of the in-flight ones that fail. A helper that had already
    /// ended on its own keeps its own ending (a crash stays a crash, even at a deadline).
    func stop(_ reason: StopReason, answered id: UInt64? = nil) {
        state.withLock { state in
            if let id { state.inFlight.removeValue(forKey: id) }
            guard !state.reaped, state.ending == nil else { return }
            if state.stopReason == nil && (try? Processes.hasEnded(pid)) != true { state.stopReason = reason }
            // Under the lock: the reader reaps (releases the pid) only while holding it, so this pid is still the helper's.
            try? Signals.send(.kill, to: pid)
        }
    }

    /// For the process's exit: a helper still running is killed with its process group, as released
    /// (no fault), and not waited for; true when its ending must be waited for instead, because it
    /// ended on its own and its reader is (or is about to be) reporting it.
    func stopAtExit() -> Bool {
        state.withLock { state in
            // Reaped or classified: its ending is being reported right now (until it leaves LiveHelpers).
            if state.reaped || state.ending != nil || state.reaping || (try? Processes.hasEnded(pid)) == true { return true }
            if state.stopReason == nil { state.stopReason = .released }
            try? Processes.killGroup(pid)  // under the lock, not reaped: the group id is still the helper's
            spawned.endSandbox(reap: false)  // the bus filter's folder too, which nothing else would remove
            return false
        }
    }

    /// ``stop(_:answered:)``, then waits (a few seconds at most) until the ending is reported: a
    /// fault is in the ledger before the caller tells anyone about the request.
    func stopAndWait(_ reason: StopReason, answered id: UInt64? = nil) {
        stop(reason, answered: id)
        if !waitUntilReaped(timeout: .seconds(5)) {
            logger.error("the helper of \(manifest.displayName) (pid \(pid)) was not reaped within 5 s of being stopped")
        }
    }
}

extension Duration {
    /// The duration as a Dispatch interval.
    var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int(components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000))
    }
}
