package import AutofillWire
internal import AutofillStore
internal import AutofillSystem
internal import Dispatch
package import Logging
internal import Synchronization

/// The agent: `autofill` as a per-user daemon that runs commands for its clients and keeps their
/// providers running between them (docs/AGENT.md).
///
/// It listens on ``AgentPaths/socket``. A peer must have this process's uid (`SO_PEERCRED`) and be
/// a person's client, not a provider helper or anything running under one (``admit(_:)``, checked
/// before a byte is read); it sends one `run` request (``AgentProtocol``) with its descriptors,
/// read with the others' by ``ConnectionIntake`` under a deadline. The agent runs only the commands
/// a client routes to it (``AgentRoute``), at most ``maximumRequests`` at once, each through
/// `handler` in a ``ClientContext`` of the client's, on a ``RequestExecutor`` of the request's own,
/// so one client waiting at a prompt or on a slow provider never holds up another. A client that
/// goes away mid-request is cancelled at once: its console is closed first (it gets nothing), its
/// terminal reads end, and what it started runs down without it.
///
/// It ends after its idle time (the user's configuration's, never a request's) without a request, when its socket is removed or replaced, on
/// SIGTERM or SIGINT, or on `autofill agent stop`; SIGHUP locks every provider and carries on.
/// Ending locks everything: the providers' helpers end with the agent.
public final class AgentServer: Sendable {
    /// What one command run for a client returns: its exit status.
    public typealias Handler = @Sendable (_ arguments: [String]) async -> Int32

    /// How starting ended.
    package enum Start {
        /// This process now serves.
        case started(AgentServer)
        /// Another agent already holds the socket's lock.
        case alreadyRunning(AgentPaths)
    }

    /// What `autofill agent status` shows.
    public struct Status: Sendable {
        public var pid: Int32
        public var socket: String
        public var uptime: Duration
        public var idleTimeout: Duration
        public var activeRequests: Int
        public var providers: [(id: String, pid: Int32?)]
    }

    /// How many requests the agent serves at once; one more is told it is busy.
    static let maximumRequests = 128

    private struct State {
        var active = 0
        /// Requests read and being served (``active`` counts the ones running a command).
        var serving = 0
        var lastActivity = ContinuousClock.now
        var idleTimeout: Duration
        var stopReason: String?
    }

    /// Whether `agent serve --idle-timeout` set the idle time (then no configuration changes it).
    private let idleTimeoutIsFixed: Bool

    /// The agent's paths.
    package let paths: AgentPaths
    /// The providers it keeps running, and the user's policy it holds.
    public let pool: ProviderPool
    let environment: [String: String]
    private let listener: Int32
    private let lockDescriptor: Int32
    private let socketIdentity: (device: UInt64, inode: UInt64)
    private let handler: Handler
    private let logger: Logger
    private let started = ContinuousClock.now
    private let state: Mutex<State>
    private let finished = DispatchSemaphore(value: 0)
    private let events = DispatchQueue(label: "autofill.agent.events")
    private let sources = Mutex<RetainedSources?>(nil)
    /// logind's locks and sleeps (nil without a system bus).
    private let lockWatcher = Mutex<SessionLockWatcher?>(nil)
    private let intake = Mutex<ConnectionIntake?>(nil)

    /// Keeps the signal and timer sources alive (Dispatch sources are thread-safe; the protocol does not say so).
    private struct RetainedSources: @unchecked Sendable {
        let sources: [any DispatchSourceProtocol]
    }

    /// The agent this process is, once started (its own commands reach it: stop, status, lock).
    public static var current: AgentServer? { running.withLock { $0 } }
    private static let running = Mutex<AgentServer?>(nil)

    private init(paths: AgentPaths, environment: [String: String], listener: Int32, lockDescriptor: Int32,
                 socketIdentity: (UInt64, UInt64), idleTimeout: Duration, idleTimeoutIsFixed: Bool, userPolicy: AgentPolicy,
                 handler: @escaping Handler, logger: Logger) {
        self.idleTimeoutIsFixed = idleTimeoutIsFixed
        self.paths = paths
        pool = ProviderPool(userPolicy: userPolicy)
        self.environment = environment
        self.listener = listener
        self.lockDescriptor = lockDescriptor
        self.socketIdentity = socketIdentity
        self.handler = handler
        self.logger = logger
        state = Mutex(State(idleTimeout: idleTimeout))
    }

    /// Starts serving in this process: the folder prepared, the lock taken, the socket bound (0600),
    /// this process hardened (not dumpable, no core dumps), signals and timers set. Refuses without a
    /// runtime folder, or with one that is not the user's own and private (``AgentPaths``). It holds
    /// `userPolicy` (``AgentPolicy/load(environment:)``) until it ends. Its idle time is `idleTimeout`:
    /// the user's configuration's, which an edit of that file changes (``adoptIdleTimeout(from:)``),
    /// unless `idleTimeoutIsFixed` (`agent serve --idle-timeout`).
    package static func start(environment: [String: String], idleTimeout: Duration, idleTimeoutIsFixed: Bool = false, userPolicy: AgentPolicy,
                             logger: Logger, handler: @escaping Handler) throws(AutofillError) -> Start {
        guard let paths = AgentPaths(environment: environment) else {
            throw AutofillError(.configuration, "cannot start the agent: \(AgentPaths.noRuntimeFolder)")
        }
        try paths.prepare()
        let lock: Int32
        do throws(SystemError) {
            guard let locked = try Files.lock(paths.lockFile) else { return .alreadyRunning(paths) }
            lock = locked
        } catch {
            throw AutofillError(.io, "cannot take the agent's lock \(paths.lockFile) (\(error.reason))")
        }
        // Holding the lock, any socket there is a dead agent's.
        try? Paths.remove(paths.socket)
        let listener: Int32
        do throws(SystemError) {
            listener = try UnixSocket.listen(paths.socket)
        } catch {
            Descriptors.closeQuietly(lock)
            throw AutofillError(.io, "cannot listen on \(paths.socket) (\(error.reason))")
        }
        let (device, inode) = (try? Files.identity(paths.socket)) ?? (0, 0)
        do throws(SystemError) {
            try Processes.harden()
        } catch {
            Descriptors.closeQuietly(listener)
            Descriptors.closeQuietly(lock)
            throw AutofillError(.internal, "cannot harden the agent (no core dumps, not dumpable): \(error.reason)")
        }
        // The identity stores stay open between requests while each path names the same file.
        SQLiteIdentityStore.reuseOpenedStores()
        // Room for every connection waiting for its request, and for the requests served with their
        // descriptors (a client's four, the helpers' pipes and sockets), beyond a desktop's usual 1,024.
        try? Descriptors.raiseLimit(to: UInt64(ConnectionIntake.maximumPending + 64 * maximumRequests + 1024))
        let server = AgentServer(paths: paths, environment: environment, listener: listener, lockDescriptor: lock,
                                 socketIdentity: (device, inode), idleTimeout: idleTimeout, idleTimeoutIsFixed: idleTimeoutIsFixed,
                                 userPolicy: userPolicy, handler: handler, logger: logger)
        guard let intake = ConnectionIntake(listener: listener, admit: { [server] in server.admit($0) },
                                            deliver: { [server] in server.dispatch($0) }, logger: logger)
        else {
            Descriptors.closeQuietly(listener)
            Descriptors.closeQuietly(lock)
            throw AutofillError(.internal, "cannot start the agent's connection thread: \(SystemError.current("pthread_create").reason)")
        }
        server.intake.withLock { $0 = intake }
        running.withLock { $0 = server }
        server.watch()
        server.events.async { server.watchSession(environment) }  // asking logind may take a moment
        logger.info("the agent (pid \(Users.processID)) listens on \(paths.socket)")
        return .started(server)
    }

    /// Blocks until the agent stops, then locks every provider (their helpers end), removes the
    /// socket if it is still this agent's, and releases the lock. Returns why it stopped.
    public func wait() -> String {
        finished.wait()
        let reason = state.withLock { $0.stopReason } ?? "stopped"
        logger.info("the agent stops: \(reason)")
        lockWatcher.withLock { $0 }?.stop()
        pool.lock()
        if let identity = try? Files.identity(paths.socket), identity == socketIdentity {
            try? Paths.remove(paths.socket)
        }
        Descriptors.closeQuietly(listener)
        Descriptors.closeQuietly(lockDescriptor)
        return reason
    }

    /// Stops the agent (``wait()`` returns) for `reason`.
    public func stop(_ reason: String) {
        let first = state.withLock { state in
            defer { if state.stopReason == nil { state.stopReason = reason } }
            return state.stopReason == nil
        }
        if first { finished.signal() }
    }

    /// Takes the idle time from `file`, a configuration a request read, when it is the user's own
    /// (``AgentPolicy/configurationPath``, found from the agent's environment as it started): an edit of
    /// its `AgentIdleTimeoutSeconds` takes effect on the next request. A configuration a request names
    /// (`--config`, `$AUTOFILL_CONFIG`) changes nothing, nor does any when `--idle-timeout` set the time:
    /// the idle time bounds how long what the user unlocked stays unlocked, and that is the user's to say.
    public func adoptIdleTimeout(from file: ConfigurationFile) {
        guard !idleTimeoutIsFixed, let own = pool.userPolicy.configurationPath, file.path == own else { return }
        let timeout = file.configuration.agentIdleTimeout
        state.withLock { $0.idleTimeout = timeout }
    }

    /// The agent now.
    public var status: Status {
        let (active, idle) = state.withLock { ($0.active, $0.idleTimeout) }
        return Status(pid: Users.processID, socket: paths.socket, uptime: ContinuousClock.now - started, idleTimeout: idle,
                      activeRequests: active, providers: pool.running)
    }

    // MARK: Signals and timers

    private func watch() {
        Signals.ignore(.brokenPipe)
        var made: [any DispatchSourceProtocol] = []
        for (signal, name) in [(Signal.terminate, "SIGTERM"), (Signal.interrupt, "SIGINT")] {
            Signals.ignore(signal)
            let source = DispatchSource.makeSignalSource(signal: signal.rawValue, queue: events)
            source.setEventHandler { [self] in stop("\(name)") }
            source.resume()
            made.append(source)
        }
        Signals.ignore(.hangUp)
        let hangup = DispatchSource.makeSignalSource(signal: Signal.hangUp.rawValue, queue: events)
        hangup.setEventHandler { [self] in
            let locked = pool.lock()
            logger.notice("SIGHUP: locked \(locked.ended.isEmpty ? "nothing (no provider was running)" : locked.ended.joined(separator: ", "))")
        }
        hangup.resume()
        made.append(hangup)
        let timer = DispatchSource.makeTimerSource(queue: events)
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        timer.setEventHandler { [self] in tick() }
        timer.resume()
        made.append(timer)
        let retained = RetainedSources(sources: made)
        sources.withLock { $0 = retained }
    }

    /// Locks every provider when logind says the session was locked or the machine goes to sleep
    /// (``SessionLockWatcher``); without a system bus, carries on without.
    private func watchSession(_ environment: [String: String]) {
        let logger = self.logger, pool = self.pool
        let sessionID = environment["XDG_SESSION_ID"].flatMap { $0.isEmpty ? nil : $0 }
        switch SessionLockWatcher.start(busAddress: environment["DBUS_SYSTEM_BUS_ADDRESS"], sessionID: sessionID, onLock: { reason in
            let locked = pool.lock()
            logger.notice("\(reason): locked \(locked.ended.isEmpty ? "nothing (no provider was running)" : locked.ended.joined(separator: ", "))")
        }) {
        case .success(let watcher):
            lockWatcher.withLock { $0 = watcher }
            logger.info("locks every provider when logind says the session locked or the system sleeps")
        case .failure(let error):
            logger.info("not listening to logind (\(error.message)); locking on session lock and sleep is off")
        }
    }

    /// Whether the agent listens to logind (``watchSession(_:)``).
    public var listensToLogind: Bool { lockWatcher.withLock { $0 != nil } }

    /// Ends the agent when it has been idle long enough, or when its socket is gone or replaced (as
    /// gpg-agent does: whoever removed it wants no agent there).
    private func tick() {
        let idle = state.withLock { state -> Duration? in
            guard state.active == 0 else { return nil }
            let idle = ContinuousClock.now - state.lastActivity
            return idle >= state.idleTimeout ? state.idleTimeout : nil
        }
        if let idle { return stop("no request for \(idle.formattedSeconds)") }
        // An upgrade or rebuild replaced the executable: end between requests, so the next command
        // starts the new code instead of being served by the old.
        if state.withLock({ $0.active == 0 }), HelperSpawn.selfExecutable().hasSuffix(" (deleted)") {
            return stop("its executable was replaced (an upgrade); the next command starts the new one")
        }
        let identity = try? Files.identity(paths.socket)
        if identity?.device != socketIdentity.device || identity?.inode != socketIdentity.inode {
            stop("its socket \(paths.socket) was removed or replaced")
        }
    }

    // MARK: Connections

    /// What a peer that may not drive the agent is told (the same whatever the reason: the details
    /// go to the agent's own log).
    static let confinedRefusal = "the agent serves only a person's own commands, not a provider's helper nor anything running under one, nor a process that runs confined (no_new_privs and a seccomp filter); the command runs in this process"

    /// Whether the peer of `socket` may talk to the agent: not a provider helper, nor anything under
    /// one (``Peer/confinement(of:agent:)``, docs/AGENT.md "Who may talk to it"). A peer refused is told
    /// ``confinedRefusal`` and nothing else.
    private func admit(_ socket: Int32) -> Bool {
        switch Peer.confinement(of: socket, agent: Users.processID) {
        case .allowed:
            return true
        case .refused(let reason), .unknown(let reason):
            let pid = (try? UnixSocket.peerCredentials(socket))?.pid ?? 0
            logger.warning("refused pid \(pid): \(reason)")
            _ = AgentProtocol.Message.runHere(reason: Self.confinedRefusal).send(on: socket)
            return false
        }
    }

    /// Takes a whole request from the intake (on its thread): served by a task on a
    /// ``RequestExecutor`` of its own, unless ``maximumRequests`` are being served already (then the
    /// client is told the agent is busy). A client that goes away mid-request is cancelled at once
    /// (the intake watches its connection): its console is closed first (it gets nothing), its
    /// terminal reads end, and what it started runs down without it.
    private func dispatch(_ request: ConnectionIntake.Request) {
        let admitted = state.withLock { state -> Bool in
            guard state.serving < Self.maximumRequests else { return false }
            state.serving += 1
            return true
        }
        guard admitted else {
            for descriptor in request.descriptors { Descriptors.closeQuietly(descriptor) }
            _ = AgentProtocol.Message.busy(reason: "the agent is busy: \(Self.maximumRequests) requests are being served; try again").send(on: request.socket)
            request.finish()
            logger.warning("told a client the agent is busy (\(Self.maximumRequests) requests being served)")
            return
        }
        guard case .run(let version, let arguments, let clientEnvironment, let program) = request.message,
              request.descriptors.count == 3 || request.descriptors.count == 4
        else {
            for descriptor in request.descriptors { Descriptors.closeQuietly(descriptor) }
            logger.warning("pid \(Self.peerID(request.socket)) sent something other than a request with its standard descriptors; refused")
            return end(request)
        }
        let console = Console(input: request.descriptors[0], output: request.descriptors[1], error: request.descriptors[2], owned: true)
        let terminal = request.descriptors.count == 4 ? request.descriptors[3] : nil
        let cancellation = RequestCancellation()
        let task = Task(executorPreference: RequestExecutor(label: "autofill.agent.request")) { [self] in
            defer {
                console.close()
                if let terminal { Descriptors.closeQuietly(terminal) }
                end(request)
            }
            if let refusal = refusal(version: version, arguments: arguments, environment: clientEnvironment, program: program) {
                logger.info("pid \(Self.peerID(request.socket)): \(refusal.log)")
                _ = AgentProtocol.Message.runHere(reason: refusal.reason).send(on: request.socket)
                return
            }
            let status = await run(arguments, environment: requestEnvironment(clientEnvironment), console: console, terminal: terminal,
                                   cancellation: cancellation)
            if request.clientLeft {
                logger.info("a client left before its command \(arguments.first ?? "") ended; cancelled")
            } else {
                _ = AgentProtocol.Message.exit(status: status).send(on: request.socket)
            }
        }
        request.whenClientLeaves {
            // It gets nothing from here on, and what waits on its terminal stops waiting.
            console.close()
            cancellation.cancel()
            task.cancel()
        }
    }

    /// A request no longer served: the intake closes its connection.
    private func end(_ request: ConnectionIntake.Request) {
        state.withLock { $0.serving -= 1 }
        request.finish()
    }

    /// The pid of the peer of `socket`, for the log (0 when unknown).
    private static func peerID(_ socket: Int32) -> Int32 { (try? UnixSocket.peerCredentials(socket))?.pid ?? 0 }

    /// Runs one command for a client in a ``ClientContext`` of its own; its exit status.
    private func run(_ arguments: [String], environment clientEnvironment: [String: String], console: Console, terminal: Int32?,
                     cancellation: RequestCancellation) async -> Int32 {
        state.withLock { state in
            state.active += 1
            state.lastActivity = .now
        }
        defer {
            state.withLock { state in
                state.active -= 1
                state.lastActivity = .now
            }
        }
        let verbose = arguments.prefix { $0 != "--" }.contains { $0 == "-v" || $0 == "--verbose" }
        let context = ClientContext(environment: clientEnvironment, console: console, terminal: terminal,
                                    cancellation: cancellation, pool: pool, logLevel: verbose ? .debug : .warning)
        // Each request resolves paths afresh (RealPath): a link changed since the last request is seen.
        return await RealPath.$memo.withValue(RealPath.Memo()) {
            await ClientContext.$current.withValue(context) { await handler(arguments) }
        }
    }
}
