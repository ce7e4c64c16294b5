internal import Dispatch
internal import Synchronization

/// Whose turn it is at one provider: **one request that may ask the user, or any number that may
/// not**, never both at once (a readers–writer lock whose writers are the requests of UI entry points).
///
/// A provider runs its entry points one at a time, so while one of them waits for the user (a master
/// password prompt), every request queued behind it waits too. Without turns, a no-UI request of
/// another client would reach the provider in that state, pass its deadline, and have the provider
/// killed mid-prompt, counted as a fault. With them, a no-UI request never reaches a provider that is
/// busy with the user: it waits for its turn at most as long as its deadline, and is then answered
/// "busy" without the provider being blamed; its deadline starts only once it is sent. A request that
/// may ask the user waits for the requests before it (the no-UI ones are bounded by their deadlines;
/// another prompt, by the user), in order, so a stream of no-UI requests cannot starve it.
///
/// A waiter whose task is cancelled (its client left) leaves the line at once.
final class RequestTurns: Sendable {
    /// What a wait for a turn ended with.
    enum Admission: Sendable, Equatable {
        /// The request holds a turn: send it, then ``leave(asking:)``.
        case admitted
        /// Its wait ran out while the provider was busy with a request that may ask the user.
        case busy
        /// Its task was cancelled while it waited.
        case cancelled
    }

    private struct Waiter {
        let ticket: UInt64
        let asking: Bool
        let continuation: CheckedContinuation<Admission, Never>
    }

    private struct State {
        var nextTicket: UInt64 = 1
        /// No-UI requests holding a turn.
        var quiet = 0
        /// A request that may ask the user holds the turn.
        var asking = false
        /// In arrival order.
        var waiting: [Waiter] = []
        /// Tickets handed out whose waiter is not in the line yet.
        var unregistered: Set<UInt64> = []
        /// Of those, the ones cancelled already.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Mutex(State())
    private let timers = DispatchQueue(label: "autofill.turns")

    /// Whether a request that may ask the user holds the turn now.
    var isBusyWithUser: Bool { state.withLock { $0.asking } }

    /// How many requests wait in line now.
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// Waits for a turn: exclusive when `asking` (a UI entry point), shared otherwise. A no-UI request
    /// waits at most `wait` (nil: as long as it takes) and only while a request that may ask the user
    /// holds or awaits the turn.
    func enter(asking: Bool, waitingAtMost wait: Duration?) async -> Admission {
        let ticket = state.withLock { state -> UInt64? in
            if Self.mayEnter(asking: asking, state) && state.waiting.isEmpty {
                Self.take(asking: asking, &state)
                return nil
            }
            defer { state.nextTicket += 1 }
            state.unregistered.insert(state.nextTicket)
            return state.nextTicket
        }
        guard let ticket else { return .admitted }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let early = state.withLock { state -> Bool in
                    state.unregistered.remove(ticket)
                    if state.cancelledEarly.remove(ticket) != nil { return true }
                    state.waiting.append(Waiter(ticket: ticket, asking: asking, continuation: continuation))
                    return false
                }
                if early { return continuation.resume(returning: .cancelled) }
                // The turn may have come between the first look and now.
                admitWaiting()
                if let wait {
                    timers.asyncAfter(deadline: .now() + wait.dispatchInterval) { [self] in give(up: ticket, with: .busy) }
                }
            }
        } onCancel: {
            give(up: ticket, with: .cancelled)
        }
    }

    /// Gives the turn back; the next waiters get theirs.
    func leave(asking: Bool) {
        state.withLock { state in
            if asking { state.asking = false } else { state.quiet -= 1 }
        }
        admitWaiting()
    }

    /// Takes `ticket` out of the line and answers it `admission`, unless it was admitted already.
    private func give(up ticket: UInt64, with admission: Admission) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) else {
                if admission == .cancelled && state.unregistered.contains(ticket) { state.cancelledEarly.insert(ticket) }
                return nil
            }
            return state.waiting.remove(at: index)
        }
        guard let waiter else { return }
        waiter.continuation.resume(returning: admission)
        // A request that may ask the user and gave up may have held back no-UI requests behind it.
        admitWaiting()
    }

    /// Admits waiters from the front of the line, in order, as long as they may enter.
    private func admitWaiting() {
        let admitted = state.withLock { state -> [Waiter] in
            var admitted: [Waiter] = []
            while let first = state.waiting.first, Self.mayEnter(asking: first.asking, state) {
                Self.take(asking: first.asking, &state)
                admitted.append(state.waiting.removeFirst())
            }
            return admitted
        }
        for waiter in admitted { waiter.continuation.resume(returning: .admitted) }
    }

    private static func mayEnter(asking: Bool, _ state: State) -> Bool {
        asking ? !state.asking && state.quiet == 0 : !state.asking
    }

    private static func take(asking: Bool, _ state: inout State) {
        if asking { state.asking = true } else { state.quiet += 1 }
    }
}
