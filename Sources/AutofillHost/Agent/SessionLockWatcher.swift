internal import AutofillWire
internal import CAutofillSessionBus
internal import Dispatch
internal import AutofillSystem
internal import Synchronization

/// Tells `autofill agent` when to lock every provider: when logind says the user's session was
/// locked, or that the machine is about to sleep.
///
/// The watcher listens to logind on the **system bus** (through `CAutofillSessionBus`, libdbus):
/// `org.freedesktop.login1.Session`'s signal `Lock` and its property `LockedHint` becoming true on
/// the watched session, and `org.freedesktop.login1.Manager`'s signal `PrepareForSleep(true)`
/// (waking up, `PrepareForSleep(false)`, is no event). It believes a signal only when it comes from
/// the connection that owns `org.freedesktop.login1` at that moment, as the bus itself says
/// (`GetNameOwner`, then `NameOwnerChanged`), so another program on the bus can neither send a lock
/// nor a sleep as logind; it could not stop one either, since only logind's own signals count and
/// nothing it sends turns them off. docs/AGENT.md has the whole story, including how it was tested.
///
/// The watched session is `sessionID`'s (by default `$XDG_SESSION_ID`), else this process's own
/// (logind's `GetSessionByPID`); a daemon outside any session (started by `systemd --user`) watches
/// every session of its user instead, each lock checked against logind's `ListSessions`.
///
/// A machine without a system bus is no failure of the agent: ``start(busAddress:sessionID:onLock:onEnd:)``
/// returns an error saying so and the caller carries on without the watcher.
public final class SessionLockWatcher: Sendable {
    /// The reason ``start(busAddress:sessionID:onLock:onEnd:)``'s `onLock` is given when the watched
    /// session was locked.
    public static let sessionLocked = "the session was locked"
    /// The reason `onLock` is given when the machine is about to sleep (suspend or hibernate).
    public static let goingToSleep = "the system is going to sleep"

    /// The session id in `$XDG_SESSION_ID`, the session the agent watches by default; nil when unset or empty.
    public static var environmentSessionID: String? {
        guard let id = Processes.variable("XDG_SESSION_ID") else { return nil }
        return id.isEmpty ? nil : id
    }

    /// logind's object path of the watched session (`/org/freedesktop/login1/session/_32`), or nil
    /// when every session of this user is watched.
    public let watchedSession: String?
    /// The watcher's unique name on the bus (`:1.42`), for diagnostics and tests.
    let uniqueName: String
    private let listener: Listener

    private init(watchedSession: String?, uniqueName: String, listener: Listener) {
        self.watchedSession = watchedSession
        self.uniqueName = uniqueName
        self.listener = listener
    }

    deinit { listener.stop() }

    /// Connects to the system bus and starts listening on a thread of the watcher's own.
    ///
    /// - Parameters:
    ///   - busAddress: the bus's D-Bus address (`unix:path=…`); nil for the system bus as libdbus
    ///     finds it (`$DBUS_SYSTEM_BUS_ADDRESS`, else `/run/dbus/system_bus_socket`). Tests pass a
    ///     private bus here rather than change the environment of a process that runs threads.
    ///   - sessionID: the logind session to watch; nil (or one logind does not know) for this
    ///     process's own session, and failing that every session of this user.
    ///   - onLock: called with ``sessionLocked`` or ``goingToSleep``, on the watcher's thread, once
    ///     per event, never after ``stop()`` returned. It should return quickly: logind waits for no
    ///     one before a sleep unless asked to (an inhibitor lock), so locking should start at once.
    ///   - onEnd: called once, on the watcher's thread, if the watcher ends by itself (the bus closed
    ///     the connection: it stopped or restarted); never after ``stop()``.
    /// - Returns: the running watcher, or an ``AutofillError``: `notFound` when no system bus can be
    ///   reached, `io` when the bus refuses to pass on logind's signals, `internal` when the system
    ///   is out of memory or threads. It blocks while logind is asked for the session: 4 s at most
    ///   when logind hangs, at once when it is absent (which is no error: the watcher follows the
    ///   name and listens once logind appears).
    public static func start(
        busAddress: String? = nil, sessionID: String? = SessionLockWatcher.environmentSessionID,
        onLock: @escaping @Sendable (_ reason: String) -> Void, onEnd: (@Sendable (_ error: AutofillError) -> Void)? = nil
    ) -> Result<SessionLockWatcher, AutofillError> {
        var message = [CChar](repeating: 0, count: 1024)
        var opened: OpaquePointer?
        let status = afsb_open(busAddress, sessionID, &opened, &message, message.count)
        guard status == AFSB_OK, let opened else {
            return .failure(error(status, message))
        }
        let watchedSession = afsb_session_path(opened).map { String(cString: $0) }
        let uniqueName = String(cString: afsb_unique_name(opened))
        let listener = Listener(pointer: WatcherPointer(raw: opened), onLock: onLock, onEnd: onEnd)
        guard startDetachedThread({ listener.run() }) else {
            afsb_close(opened)
            return .failure(AutofillError(.internal, "cannot start a thread to listen to logind on the system bus"))
        }
        return .success(SessionLockWatcher(watchedSession: watchedSession, uniqueName: uniqueName, listener: listener))
    }

    /// Stops listening and closes the connection. When it returns, `onLock` and `onEnd` are not
    /// running and will not be called again (called from `onLock` itself, it returns at once and the
    /// thread ends after `onLock` returns). Any thread, any number of times.
    public func stop() {
        listener.stop()
    }

    /// The error for an `afsb_open` or `afsb_run` status and its message.
    static func error(_ status: Int32, _ message: [CChar]) -> AutofillError {
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let what = "the agent cannot lock providers when the session locks or the machine sleeps"
        switch status {
        case AFSB_NO_BUS: return AutofillError(.notFound, "\(what): \(text) (is there a system bus? dbus-daemon or dbus-broker runs it)")
        case AFSB_BUS_REFUSED, AFSB_DISCONNECTED: return AutofillError(.io, "\(what): \(text)")
        default: return AutofillError(.internal, "\(what): \(text.isEmpty ? "status \(status)" : text)")
        }
    }
}

/// The C watcher. `@unchecked Sendable`: the pointer is used by `afsb_run` on the listener's thread,
/// by `afsb_stop` (which only writes to an eventfd and may be called from any thread) and by
/// `afsb_close`, which runs once, under `Listener.state`'s lock, after `afsb_run` returned; `afsb_stop`
/// is only called under the same lock while the watcher is open, so no call can follow the close.
private struct WatcherPointer: @unchecked Sendable {
    let raw: OpaquePointer
}

/// The listening thread's side: runs `afsb_run`, turns events into reasons, closes the C watcher.
private final class Listener: Sendable {
    struct State {
        /// The C watcher is open (not yet closed by the thread).
        var open = true
        /// ``stop()`` was called: the thread's end is no failure.
        var stopRequested = false
        /// The listening thread, once it runs.
        var thread: Threads.Identity?
    }

    private let pointer: WatcherPointer
    private let onLock: @Sendable (String) -> Void
    private let onEnd: (@Sendable (AutofillError) -> Void)?
    private let state = Mutex(State())
    /// Signalled (and left signalled) once the thread closed the C watcher and returned from `onEnd`.
    private let finished = DispatchSemaphore(value: 0)

    init(pointer: WatcherPointer, onLock: @escaping @Sendable (String) -> Void, onEnd: (@Sendable (AutofillError) -> Void)?) {
        self.pointer = pointer
        self.onLock = onLock
        self.onEnd = onEnd
    }

    /// The thread's body: listens until stopped or disconnected.
    func run() {
        state.withLock { $0.thread = Threads.current }
        var message = [CChar](repeating: 0, count: 512)
        // Unretained: the thread's closure holds the listener until this returns.
        let context = Unmanaged.passUnretained(self).toOpaque()
        let status = afsb_run(pointer.raw, { event, context in
            guard let context else { return }
            Unmanaged<Listener>.fromOpaque(context).takeUnretainedValue().deliver(event)
        }, context, &message, message.count)
        let stopRequested = state.withLock { state -> Bool in
            afsb_close(pointer.raw)
            state.open = false
            return state.stopRequested
        }
        if status != AFSB_OK && !stopRequested { onEnd?(SessionLockWatcher.error(status, message)) }
        finished.signal()
    }

    private func deliver(_ event: Int32) {
        switch event {
        case AFSB_EVENT_LOCK: onLock(SessionLockWatcher.sessionLocked)
        case AFSB_EVENT_SLEEP: onLock(SessionLockWatcher.goingToSleep)
        default: break
        }
    }

    /// Makes the thread end and waits until it has (closed the C watcher, returned from `onEnd`),
    /// unless called on that thread.
    func stop() {
        let onThread = state.withLock { state -> Bool in
            state.stopRequested = true
            if state.open { afsb_stop(pointer.raw) }
            guard let thread = state.thread else { return false }
            return Threads.isCurrent(thread)
        }
        guard !onThread else { return }
        finished.wait()
        finished.signal()
    }
}
