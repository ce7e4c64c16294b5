internal import AutofillWire
internal import AutofillABI
internal import AutofillCore
internal import CAutofillHelper
internal import Dispatch
internal import Glibc
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

    private struct State {
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
        var namespacedHelper: pid_t?
        /// The reader is ending it: it takes no more requests.
        var reaping = false
        /// Its pid is released (reaped): nothing may signal it any more.
        var reaped = false
        var ending: Ending?
    }

    let pid: pid_t
    let channel: FrameChannel
    private let spawned: SpawnedHelper
    private let manifest: PluginManifest
    private let options: HelperOptions
    private let handler: any HostServicesHandler
    private let logger: Logger
    private let state = Mutex(State())
    private let settled = DispatchSemaphore(value: 0)  // loaded, or ended
    private let reaped = DispatchSemaphore(value: 0)
    private let onEnd: @Sendable (RunningHelper, Ending, [UInt64: EntryPoint]) -> Void
    /// Where the plugin's UI calls wait for the user, one at a time: a serial queue, so its thread
    /// comes from Dispatch's overcommitting pool and a prompt that waits minutes holds none of the few
    /// threads of `DispatchQueue.global()` (deadline timers need those).
    private let userInterfaceQueue: DispatchQueue

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
                spawned = try HelperSpawn.spawn(executable, memoryLimit: options.memoryLimitBytes, namespaces: namespaces)
            }
        } else if let waiting = HelperPrestart.take(executable: executable, memoryLimit: options.memoryLimitBytes) {
            spawned = waiting
        } else {
            spawned = try HelperSpawn.spawn(executable, memoryLimit: options.memoryLimitBytes)
        }
        let helper = RunningHelper(spawned: spawned, manifest: manifest, options: options, handler: handler, logger: logger, onEnd: onEnd)
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
    private func sendLoadIfReady(_ mark: (inout State) -> Void) {
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
            guard state.stopReason == nil, state.ending == nil, !state.reaping else { return false }
            state.inFlight[id] = entryPoint
            return true
        }
    }

    /// Forgets request `id` (it was answered or failed on the host's side).
    func untrack(_ id: UInt64) {
        _ = state.withLock { $0.inFlight.removeValue(forKey: id) }
    }

    /// Whether the helper can take requests.
    var isRunning: Bool {
        state.withLock { $0.stopReason == nil && $0.ending == nil && !$0.reaping }
    }

    /// Ends the helper with SIGKILL for `reason` (the first reason given wins); `id` is a request the
    /// caller already ended, left out of the in-flight ones that fail. A helper that had already
    /// ended on its own keeps its own ending (a crash stays a crash, even at a deadline).
    func stop(_ reason: StopReason, answered id: UInt64? = nil) {
        state.withLock { state in
            if let id { state.inFlight.removeValue(forKey: id) }
            guard !state.reaped, state.ending == nil else { return }
            if state.stopReason == nil && afh_has_ended(pid, 0) != 1 { state.stopReason = reason }
            // Under the lock: the reader reaps (releases the pid) only while holding it, so this pid is still the helper's.
            kill(pid, SIGKILL)
        }
    }

    /// For the process's exit: a helper still running is killed with its process group, as released
    /// (no fault), and not waited for; true when its ending must be waited for instead, because it
    /// ended on its own and its reader is (or is about to be) reporting it.
    func stopAtExit() -> Bool {
        state.withLock { state in
            // Reaped or classified: its ending is being reported right now (until it leaves LiveHelpers).
            if state.reaped || state.ending != nil || state.reaping || afh_has_ended(pid, 0) == 1 { return true }
            if state.stopReason == nil { state.stopReason = .released }
            afh_kill_group(pid)  // under the lock, not reaped: the group id is still the helper's
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

    // MARK: The reader thread

    private func readLoop() {
        let handler = self.handler
        var output = HelperOutputLog(logger: logger) { level, line in handler.printed(line, level: level) }
        var assembler = FrameAssembler()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        defer { buffer.deallocate() }
        // Readable when the process ends, whoever else holds its socket; -1 before Linux 5.3, where
        // the loop asks waitid every 50 ms instead.
        let watch = afh_pidfd_open(pid)
        defer { if watch >= 0 { close(watch) } }
        var descriptors = [
            pollfd(fd: spawned.channel, events: Int16(POLLIN), revents: 0),
            pollfd(fd: spawned.output, events: Int16(POLLIN), revents: 0),
            pollfd(fd: spawned.errorOutput, events: Int16(POLLIN), revents: 0),
            pollfd(fd: watch, events: Int16(POLLIN), revents: 0),
            pollfd(fd: spawned.fault, events: Int16(POLLIN), revents: 0),
        ]
        var ended = false
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), watch >= 0 ? -1 : 50)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            for index in 1...2 where descriptors[index].fd >= 0 && descriptors[index].revents != 0 {
                if !drain(descriptors[index].fd, into: &output, stream: index == 1 ? .stdout : .stderr, buffer: buffer) {
                    descriptors[index].fd = -1  // end-of-file: the plugin closed it; the protocol goes on
                }
            }
            if descriptors[4].fd >= 0 && descriptors[4].revents != 0 && !noteFault(buffer: buffer) {
                descriptors[4].fd = -1  // end-of-file
            }
            if watch >= 0 ? descriptors[3].revents != 0 : afh_has_ended(pid, 0) == 1 {
                ended = true
                break
            }
            guard descriptors[0].revents != 0 else { continue }
            let count = readSome(spawned.channel, into: buffer)
            guard count > 0, receive(count, from: buffer, into: &assembler) else { break }
        }
        if ended {
            state.withLock { $0.reaping = true }  // no new requests, no UI for it
            readLastFrames(into: &assembler, buffer: buffer)
        }
        finish(ended: ended, watch: watch, output: &output, buffer: buffer)
    }

    /// The fault reporter says a fatal signal arrived and waits: read the helper's address space
    /// (the kernel's figure, not anything the helper wrote), then let it die. What the note says is
    /// never read: at most it makes the host look. False at end-of-file.
    private func noteFault(buffer: UnsafeMutableRawBufferPointer) -> Bool {
        let count = readSome(spawned.fault, into: buffer)
        guard count != 0 else { return false }
        guard count > 0 else { return true }  // EAGAIN
        state.withLock { state in
            guard !state.reaped else { return }
            state.addressSpaceAtFault = afh_address_space(state.namespacedHelper ?? pid)
        }
        _ = afh_answer_fault(spawned.fault)
        return true
    }

    /// Handles the frames `count` bytes of `buffer` complete; false to stop reading (the helper is being stopped).
    private func receive(_ count: Int, from buffer: UnsafeMutableRawBufferPointer, into assembler: inout FrameAssembler) -> Bool {
        assembler.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        do {
            while let body = try assembler.next() {
                guard handle(try HelperMessage(body: body)) else { return false }
            }
            return true
        } catch {
            stop(.violation(error.message))
            return false
        }
    }

    /// After the process ended: the frames it sent before (a completion, a last log line), as far as
    /// they are in the socket now. At most 4 MB: more is a forked child still writing, not the helper.
    private func readLastFrames(into assembler: inout FrameAssembler, buffer: UnsafeMutableRawBufferPointer) {
        let flags = fcntl(spawned.channel, F_GETFL)
        guard flags >= 0, fcntl(spawned.channel, F_SETFL, flags | O_NONBLOCK) == 0 else { return }
        var budget = 4 << 20
        while budget > 0 {
            let count = readSome(spawned.channel, into: buffer)
            guard count > 0, receive(count, from: buffer, into: &assembler) else { return }
            budget -= count
        }
    }

    /// Reads what `descriptor` has into the output log; false at end-of-file.
    /// At most 1 MB a time: a writer that never stops (a child the plugin forked) cannot hold the reader.
    private func drain(_ descriptor: Int32, into output: inout HelperOutputLog, stream: HelperOutputLog.Stream,
                       buffer: UnsafeMutableRawBufferPointer) -> Bool {
        var budget = 1 << 20
        while budget > 0 {
            let count = readSome(descriptor, into: buffer)
            if count > 0 {
                output.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), from: stream)
                budget -= count
                continue
            }
            return count < 0 && errno == EAGAIN
        }
        return true
    }

    /// Handles one message from the helper; false to stop reading (the helper is being stopped).
    private func handle(_ message: HelperMessage) -> Bool {
        let helloSeen = state.withLock { $0.helloSeen }
        if !helloSeen {
            guard case .hello(let version, let abi) = message else {
                stop(.violation("it spoke before its hello"))
                return false
            }
            return hello(version: version, abi: abi)
        }
        switch message {
        case .hello:
            stop(.violation("a second hello"))
            return false
        case .loading(let stage):
            state.withLock { $0.stage = stage }
        case .sandboxed(let report):
            // Believed only before the plugin's library is opened: after that, its code could send anything.
            let accepted = state.withLock { state -> Bool in
                guard options.sandbox != nil, state.loadSent, state.stage == nil, state.sandbox == nil, state.load == nil else { return false }
                state.sandbox = report
                return true
            }
            guard accepted else {
                stop(.violation("a sandbox report out of turn"))
                return false
            }
            logger.info("\(manifest.displayName) (\(manifest.identifier)) \(report.summary(kind: BubblewrapSupport.kind(namespaces: spawned.namespaced)))")
        case .loaded(let problems, let entryPoints):
            enum Verdict { case first, second, unsandboxed }
            let verdict = state.withLock { state -> Verdict in
                guard state.load == nil else { return .second }
                if entryPoints != nil && options.sandbox != nil && state.sandbox == nil { return .unsandboxed }
                state.load = LoadResult(problems: problems, entryPoints: entryPoints)
                return .first
            }
            switch verdict {
            case .first: break
            case .second:
                stop(.violation("a second load result"))
                return false
            case .unsandboxed:
                stop(.violation("it loaded the plugin without reporting its sandbox"))
                return false
            }
            settled.signal()
        case .log(let level, let text):
            handler.log(level: level, message: text)
        case .malformedCall(let service, let problem):
            handler.reportMalformedCall(service, problem)
        case .call(let id, let call):
            serve(call, id: id)
        case .returned(let id):
            handler.entryPointReturned(id)
        case .load, .request, .reply:
            stop(.violation("it sent a host message"))
            return false
        }
        return true
    }

    private func hello(version: UInt32, abi: UInt32) -> Bool {
        guard version == HelperProtocol.version, abi == providerABIVersion else {
            let problem = PluginProblem(
                .loadFailed, file: HelperSpawn.selfExecutable(),
                message: "the provider helper speaks protocol version \(version) and C ABI version \(abi); this autofill speaks \(HelperProtocol.version) and \(providerABIVersion)",
                fix: "reinstall autofill: the helper (\(HelperProtocol.executableName)) must come from the same build as autofill")
            stop(.versionMismatch(problem))
            return false
        }
        // Before the plugin runs, the helper is the only process in its namespaces: find it now.
        let inner = spawned.namespaced ? HelperSpawn.namespacedHelper(of: pid) : nil
        sendLoadIfReady { state in
            state.helloSeen = true
            state.namespacedHelper = inner
        }
        return true
    }

    /// Answers one host-service call. UI waits for the user, so it is answered from another thread.
    private func serve(_ call: HostCall, id: UInt64) {
        let reply: HostReply
        switch call {
        case .setting(let key):
            reply = .setting(handler.setting(forKey: key))
        case .storeState:
            do {
                reply = .storeState(.success(try handler.identityStore.state()))
            } catch {
                reply = .storeState(.failure(.init(code: error.code)))
            }
        case .storeSave(let identities):
            reply = Self.storeReply { () throws(IdentityStoreError) in try handler.identityStore.save(identities) }
        case .storeRemove(let identities):
            reply = Self.storeReply { () throws(IdentityStoreError) in try handler.identityStore.remove(identities) }
        case .storeReplace(let identities):
            reply = Self.storeReply { () throws(IdentityStoreError) in try handler.identityStore.replace(with: identities) }
        case .storeRemoveAll:
            reply = Self.storeReply { () throws(IdentityStoreError) in try handler.identityStore.removeAll() }
        case .complete(let request, let answer):
            let status = handler.complete(request: request, with: answer)
            untrack(request)
            reply = .status(status.rawValue)
        case .present(let request, let ui):
            guard isRunning else {
                // Its last frames, read after it ended: nobody is left to answer the user.
                reply = .userInterface(.failure(.unavailable("the provider's helper ended")))
                break
            }
            let handler = self.handler, channel = self.channel
            userInterfaceQueue.async {
                let answer: Result<UserInterfaceAnswer, UserInterfaceError>
                do throws(UserInterfaceError) {
                    answer = .success(try handler.present(ui, forRequest: request))
                } catch {
                    answer = .failure(error)
                }
                _ = try? channel.send(.reply(id, .userInterface(answer)))
            }
            return
        case .addFile(let request, let folder, let name, let contents):
            // Writing and committing take a while: off the thread that reads the helper's frames.
            let handler = self.handler, channel = self.channel
            userInterfaceQueue.async {
                let (status, reason) = handler.addFile(request: request, folder: folder, name: name, contents: contents)
                _ = try? channel.send(.reply(id, .added(status.rawValue, reason)))
            }
            return
        }
        do {
            try channel.send(.reply(id, reply))
        } catch {
            stop(.violation(error.message))
        }
    }

    private static func storeReply(_ write: () throws(IdentityStoreError) -> Void) -> HostReply {
        do {
            try write()
            return .store(nil)
        } catch {
            return .store(error.code)
        }
    }

    // MARK: Ending

    /// Ends the helper's process group, reaps the process, classifies how it ended, and reports it.
    /// `ended`: the process had ended (else the channel did, and the process gets a moment to follow).
    private func finish(ended: Bool, watch: Int32, output: inout HelperOutputLog, buffer: UnsafeMutableRawBufferPointer) {
        state.withLock { $0.reaping = true }
        channel.close()
        if !ended && !waitForEnd(watch: watch, milliseconds: 100) {
            state.withLock { state in
                if state.stopReason == nil { state.stopReason = .violation("it closed its protocol channel") }
            }
        }
        // Its process group (whatever the plugin forked, and the helper itself if it still runs),
        // before reaping: until then no other process group can have its id.
        afh_kill_group(pid)
        _ = afh_has_ended(pid, 1)
        var status: Int32 = 0
        state.withLock { state in
            // Under the lock, so `stop` never signals the pid once it is released.
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            state.reaped = true
        }
        for (descriptor, stream) in [(spawned.output, HelperOutputLog.Stream.stdout), (spawned.errorOutput, .stderr)] {
            _ = drain(descriptor, into: &output, stream: stream, buffer: buffer)
            close(descriptor)
        }
        output.finish()
        close(spawned.fault)
        spawned.endSandbox(reap: true)

        let (ending, inFlight) = state.withLock { state -> (Ending, [UInt64: EntryPoint]) in
            let ending = classify(status: status, state: state)
            state.ending = ending
            let inFlight = state.inFlight
            state.inFlight = [:]
            return (ending, inFlight)
        }
        if let fault = ending.fault { logger.warning("\(fault.message)") }
        onEnd(self, ending, inFlight)
        LiveHelpers.remove(self)
        reaped.signal()
        settled.signal()
    }

    /// Waits up to `milliseconds` for the process to end; true when it has.
    private func waitForEnd(watch: Int32, milliseconds: Int32) -> Bool {
        if watch >= 0 {
            var descriptor = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
            while true {
                let ready = poll(&descriptor, 1, milliseconds)
                if ready < 0 && errno == EINTR { continue }
                return ready > 0
            }
        }
        for _ in 0..<(milliseconds / 2) {
            if afh_has_ended(pid, 0) != 0 { return true }
            usleep(2000)
        }
        return afh_has_ended(pid, 0) != 0
    }

    /// How the helper ended, from what the host saw: its wait status, the reason the host stopped it,
    /// the address space it read when the fault reporter asked it to look, and what it was doing
    /// (the host's own request list; while loading, the last stage the helper named, which can only
    /// choose between the host's phrases for the stages).
    private func classify(status: Int32, state: State) -> Ending {
        let name = manifest.displayName
        let stage = state.load == nil ? state.stage ?? .readingPlist : nil
        // What the helper was doing: loading, answering a request, or nothing.
        let doing: String
        if let stage {
            doing = stage.during(manifest)
        } else if let entry = state.inFlight.values.min(by: { $0.rawValue < $1.rawValue }) {
            doing = "while answering \(entry.appleName)"
        } else {
            doing = "between requests"
        }
        func fault(_ kind: ProviderFault.Kind, _ what: String, _ predicate: String? = nil) -> Ending {
            let predicate = predicate ?? "\(what) \(doing)"
            return Ending(fault: ProviderFault(kind, "\(name) \(predicate)"), what: what, predicate: predicate, stage: stage)
        }
        switch state.stopReason {
        case .released?:
            return Ending(fault: nil, what: nil, predicate: nil, stage: stage)
        case .versionMismatch?:
            return Ending(fault: nil, what: "could not be started", predicate: nil, stage: stage)
        case .deadline(let entry, let deadline)?:
            return fault(.killedAtDeadline, "did not answer within \(deadline.formattedSeconds) and was stopped",
                         "did not answer \(entry.appleName) within \(deadline.formattedSeconds) and was stopped")
        case .loadDeadline?:
            return fault(.killedAtDeadline, "did not finish loading within \(options.loadDeadline.formattedSeconds) and was stopped",
                         "did not finish loading within \(options.loadDeadline.formattedSeconds) (stuck \(doing)) and was stopped")
        case .violation(let problem)?:
            return fault(.protocolViolation, "broke the helper protocol (\(problem)) and was stopped")
        case nil:
            break
        }
        // bubblewrap exits with its child's status, a signal N as 128 + N (a provider's own exit(128 + N)
        // reads as that signal too: it could as well raise it).
        let namespacedSignal = spawned.namespaced && afh_exited(status) != 0 && (129...192).contains(afh_exit_status(status))
        if afh_signaled(status) != 0 || namespacedSignal {
            let signal = namespacedSignal ? afh_exit_status(status) - 128 : afh_term_signal(status)
            // At its ceiling: less than 1/16 of it (at least 16 MB) of address space left when the fault
            // reporter asked the host to look. The figure is the kernel's (/proc, read by the host);
            // the helper's note only made the host look, so a forged one can at most make the host read
            // a true figure. Not the faulting thread's errno: glibc leaves a stale ENOMEM behind
            // whenever it fails to reserve a thread arena under a tight ceiling.
            let limit = options.memoryLimitBytes
            if limit > 0, let space = state.addressSpaceAtFault, space + max(16 << 20, limit / 16) >= limit {
                return fault(.exceededMemory(limitBytes: limit), "ran out of its \(options.memoryLimitMegabytes) MB memory limit")
            }
            return fault(.crashed(signal: signal), "crashed (\(ProviderFault.signalName(signal)))")
        }
        return fault(.exited(status: afh_exit_status(status)), "exited (status \(afh_exit_status(status)))")
    }
}

extension Duration {
    /// The duration as a Dispatch interval.
    var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int(components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000))
    }
}
