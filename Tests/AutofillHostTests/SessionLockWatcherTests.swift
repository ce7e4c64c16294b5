@testable import AutofillHost
import AutofillTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

/// The watcher against a real `dbus-daemon` of the test's own (``PrivateSystemBus``), with a stand-in
/// for logind (Fixtures/login1_fixture.c) owning `org.freedesktop.login1`, and impostors: `dbus-send`
/// and the fixture in its "impostor" mode, which own nothing. "Nothing else fired" is checked by
/// making logind send one more event afterwards and finding it alone: the bus delivers in order,
/// and every impostor's signal was handled by the bus before it.
struct SessionLockWatcherTests {
    static let locked = SessionLockWatcher.sessionLocked
    static let sleeping = SessionLockWatcher.goingToSleep

    /// The reasons `onLock` was given, in order.
    final class Events: Sendable {
        private let reasons = Mutex<[String]>([])
        private let ended = Mutex<AutofillError?>(nil)

        func lock(_ reason: String) { reasons.withLock { $0.append(reason) } }
        func end(_ error: AutofillError) { ended.withLock { $0 = error } }

        var all: [String] { reasons.withLock { $0 } }
        var endError: AutofillError? { ended.withLock { $0 } }

        /// The reasons once there are `count` of them, or what there is after 10 s.
        func wait(for count: Int) -> [String] {
            let deadline = ContinuousClock.now + .seconds(10)
            while all.count < count && ContinuousClock.now < deadline { usleep(5_000) }
            return all
        }
    }

    /// Runs `body` with a private bus, the stand-in logind on it (`noSession`: knowing no session for
    /// this process), and a watcher recording into `events`; stops all three afterwards.
    func watching(noSession: Bool = false, sessionID: String? = nil,
                  _ body: (PrivateSystemBus, Events, SessionLockWatcher) throws -> Void) throws {
        let bus = try PrivateSystemBus()
        defer { bus.stop() }
        try bus.startLogind(noSession: noSession)
        let events = Events()
        let watcher = try watch(bus, events, sessionID: sessionID)
        defer { watcher.stop() }
        try body(bus, events, watcher)
    }

    /// Starts a watcher on `bus` recording into `events`.
    func watch(_ bus: PrivateSystemBus, _ events: Events, sessionID: String? = nil) throws -> SessionLockWatcher {
        try SessionLockWatcher.start(busAddress: bus.address, sessionID: sessionID, onLock: events.lock, onEnd: events.end).get()
    }

    @Test func aLockOfTheWatchedSessionAndGoingToSleepReachTheCallback() throws {
        try watching() { bus, events, watcher in
            #expect(watcher.watchedSession == PrivateSystemBus.ownSession, "logind's GetSessionByPID names the session")

            try bus.logindSends("Lock", path: PrivateSystemBus.ownSession)
            #expect(events.wait(for: 1) == [Self.locked])
            try bus.logindSends("PrepareForSleep", true)
            #expect(events.wait(for: 2) == [Self.locked, Self.sleeping])
        }
    }

    @Test func wakingUpAnotherSessionsLockAndAnUnlockedHintDoNotLock() throws {
        try watching() { bus, events, watcher in

            try bus.logindSends("PrepareForSleep", false)
            try bus.logindSends("Lock", path: PrivateSystemBus.otherSession)
            try bus.logindSends("LockedHint", path: PrivateSystemBus.ownSession, false)
            try bus.logindSends("LockedHint", path: PrivateSystemBus.otherSession, true)
            try bus.logindSends("PrepareForSleep", true)  // the marker
            #expect(events.wait(for: 1) == [Self.sleeping])
            usleep(100_000)
            #expect(events.all == [Self.sleeping])
        }
    }

    /// Desktops that lock the screen themselves tell logind with SetLockedHint; no Lock signal follows.
    @Test func theLockedHintBecomingTrueLocks() throws {
        try watching() { bus, events, watcher in

            try bus.logindSends("LockedHint", path: PrivateSystemBus.ownSession, true)
            #expect(events.wait(for: 1) == [Self.locked])
        }
    }

    @Test func theSessionNamedByItsIDIsWatched() throws {
        try watching(sessionID: "c7") { bus, events, watcher in
            #expect(watcher.watchedSession == "/org/freedesktop/login1/session/c7", "logind's GetSession names it")

            try bus.logindSends("Lock", path: PrivateSystemBus.ownSession)  // this process's, but not the one named
            try bus.logindSends("Lock", path: "/org/freedesktop/login1/session/c7")
            #expect(events.wait(for: 1) == [Self.locked])
            usleep(100_000)
            #expect(events.all == [Self.locked])
        }
    }

    /// A daemon started by systemd --user belongs to no session: every session of its user is watched.
    @Test func outsideAnySessionEverySessionOfThisUserIsWatched() throws {
        try watching(noSession: true, sessionID: "c7") { bus, events, watcher in
            #expect(watcher.watchedSession == nil)

            try bus.logindSends("Lock", path: PrivateSystemBus.otherSession)  // another user's (ListSessions)
            try bus.logindSends("Lock", path: PrivateSystemBus.ownSession)
            #expect(events.wait(for: 1) == [Self.locked])
            try bus.logindSends("LockedHint", path: PrivateSystemBus.otherSession, true)
            try bus.logindSends("LockedHint", path: PrivateSystemBus.ownSession, true)
            #expect(events.wait(for: 2) == [Self.locked, Self.locked])
            usleep(100_000)
            #expect(events.all == [Self.locked, Self.locked])
        }
    }

    @Test func signalsFromAConnectionThatDoesNotOwnLogindsNameAreIgnored() throws {
        try watching() { bus, events, watcher in

            // dbus-send, to everyone (the bus's match rules already drop these) and to the watcher alone
            // (no match rule filters a unicast signal: the watcher's own check must).
            for destination in [nil, watcher.uniqueName] {
                try bus.dbusSendSignal(path: "/org/freedesktop/login1", "org.freedesktop.login1.Manager.PrepareForSleep", ["boolean:true"],
                                       to: destination)
                try bus.dbusSendSignal(path: PrivateSystemBus.ownSession, "org.freedesktop.login1.Session.Lock", to: destination)
            }
            // Every signal, to everyone and to the watcher; then the bus's NameOwnerChanged, forged to say
            // the impostor owns the name now, followed by the signals again.
            let all = ["PrepareForSleep", "Lock", "LockedHint"]
            try bus.impostorSends(all, to: nil)
            try bus.impostorSends(all, to: watcher.uniqueName)
            try bus.impostorSends(["NameOwnerChanged"] + all, to: watcher.uniqueName)
            try bus.impostorSends(["NameOwnerChanged"] + all, to: nil)

            try bus.logindSends("PrepareForSleep", true)  // the marker: logind is still believed
            #expect(events.wait(for: 1) == [Self.sleeping])
            usleep(100_000)
            #expect(events.all == [Self.sleeping])
        }
    }

    /// logind may start after the agent, or restart: the owner of its name is followed.
    @Test func logindStartingAfterTheWatcherAndRestartingIsFollowed() throws {
        let bus = try PrivateSystemBus()
        defer { bus.stop() }
        let events = Events()
        let watcher = try watch(bus, events)
        defer { watcher.stop() }
        #expect(watcher.watchedSession == nil, "no logind to ask: every session of this user")

        try bus.startLogind()
        try bus.logindSends("PrepareForSleep", true)
        #expect(events.wait(for: 1) == [Self.sleeping])
        try bus.logindSends("Lock", path: PrivateSystemBus.ownSession)
        #expect(events.wait(for: 2) == [Self.sleeping, Self.locked])

        try bus.quitLogind()
        try bus.startLogind()
        try bus.logindSends("PrepareForSleep", true)
        #expect(events.wait(for: 3) == [Self.sleeping, Self.locked, Self.sleeping])
    }

    @Test(arguments: ["unix:path=/nonexistent/autofill-test/system_bus_socket", "not-an-address"])
    func noReachableBusIsAClearError(address: String) {
        let result = SessionLockWatcher.start(busAddress: address, sessionID: nil, onLock: { _ in })
        guard case .failure(let error) = result else {
            Issue.record("a watcher started without a bus")
            return
        }
        #expect(error.code == .notFound)
        #expect(error.message.hasPrefix("the agent cannot lock providers when the session locks or the machine sleeps: "
            + "cannot connect to the system bus (\(address)): "), "\(error.message)")
        if address.hasPrefix("unix:") { #expect(error.message.contains("No such file or directory"), "\(error.message)") }
    }

    @Test func theBusGoingAwayEndsTheWatcherWithAnError() throws {
        try watching() { bus, events, watcher in

            bus.stopDaemon()
            let deadline = ContinuousClock.now + .seconds(10)
            while events.endError == nil && ContinuousClock.now < deadline { usleep(5_000) }
            let error = try #require(events.endError)
            #expect(error.code == .io)
            #expect(error.message.hasSuffix("the system bus closed the connection"), "\(error.message)")
            #expect(events.all.isEmpty)
        }
    }

    @Test func afterStopNoCallbackFollowsAndStopCanBeRepeated() throws {
        let bus = try PrivateSystemBus()
        defer { bus.stop() }
        try bus.startLogind()
        let events = Events()
        let watcher = try watch(bus, events)
        watcher.stop()
        watcher.stop()

        try bus.logindSends("PrepareForSleep", true)
        try bus.logindSends("Lock", path: PrivateSystemBus.ownSession)
        usleep(200_000)
        #expect(events.all.isEmpty)
        #expect(events.endError == nil, "stopping is no failure")
    }

    @Test func onLockMayStopTheWatcher() throws {
        let bus = try PrivateSystemBus()
        defer { bus.stop() }
        try bus.startLogind()
        let events = Events()
        let started = Mutex<SessionLockWatcher?>(nil)
        let watcher = try SessionLockWatcher.start(busAddress: bus.address, sessionID: nil, onLock: { reason in
            events.lock(reason)
            started.withLock { $0 }?.stop()  // returns at once: it is the watcher's own thread
        }).get()
        started.withLock { $0 = watcher }
        defer {
            watcher.stop()
            started.withLock { $0 = nil }  // the watcher held itself through onLock
        }

        try bus.logindSends("PrepareForSleep", true)
        #expect(events.wait(for: 1) == [Self.sleeping])
        try bus.logindSends("PrepareForSleep", true)
        usleep(200_000)
        #expect(events.all == [Self.sleeping])
    }
}
