@testable import AutofillHost
import Foundation
import Synchronization
import Testing

/// The line at one provider (``RequestTurns``) by itself: no-UI requests share the turn, a request that
/// may ask the user has it alone and is not starved by no-UI requests arriving after it, a no-UI request
/// waits at most its bound, and a waiter whose task is cancelled leaves the line.
struct RequestTurnsOrderTests {
    /// Waits (up to 30 s) until `condition` holds.
    func until(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func noUIRequestsShareTheTurn() async {
        let turns = RequestTurns()
        for _ in 0..<3 { #expect(await turns.enter(asking: false, waitingAtMost: .seconds(30)) == .admitted) }
        #expect(!turns.isBusyWithUser)
    }

    @Test func aRequestThatMayAskTheUserIsNotStarvedByNoUIRequestsAfterIt() async throws {
        let turns = RequestTurns()
        let order = Order()
        #expect(await turns.enter(asking: false, waitingAtMost: nil) == .admitted)  // a no-UI request in flight
        let asking = Task {
            let admission = await turns.enter(asking: true, waitingAtMost: nil)
            order.append("asking")
            return admission
        }
        try await until { turns.waiting == 1 }  // the UI request is in line
        let quiet = Task {
            let admission = await turns.enter(asking: false, waitingAtMost: .seconds(60))
            order.append("quiet")
            return admission
        }
        try await until { turns.waiting == 2 }
        #expect(order.all.isEmpty, "both wait: the UI request for the one in flight, the new one behind it")
        turns.leave(asking: false)
        #expect(await asking.value == .admitted)
        #expect(turns.waiting == 1)
        #expect(order.all == ["asking"], "the no-UI request waits while the user is asked")
        turns.leave(asking: true)
        #expect(await quiet.value == .admitted)
        #expect(order.all == ["asking", "quiet"])
    }

    @Test func aNoUIRequestWaitsAtMostItsBoundWhileTheUserIsAsked() async {
        let turns = RequestTurns()
        #expect(await turns.enter(asking: true, waitingAtMost: nil) == .admitted)
        #expect(turns.isBusyWithUser)
        #expect(await turns.enter(asking: false, waitingAtMost: .milliseconds(100)) == .busy)
        turns.leave(asking: true)
        #expect(await turns.enter(asking: false, waitingAtMost: .milliseconds(100)) == .admitted)
    }

    @Test func aWaiterWhoseTaskIsCancelledLeavesTheLine() async throws {
        let turns = RequestTurns()
        #expect(await turns.enter(asking: true, waitingAtMost: nil) == .admitted)
        let waiting = Task { await turns.enter(asking: true, waitingAtMost: nil) }
        try await until { turns.waiting == 1 }
        waiting.cancel()
        #expect(await waiting.value == .cancelled)
        turns.leave(asking: true)
        // Nobody holds the turn: the cancelled waiter did not take it.
        #expect(await turns.enter(asking: true, waitingAtMost: nil) == .admitted)
    }
}

/// The order things happened in, from several tasks.
final class Order: Sendable {
    private let list = Mutex<[String]>([])
    var all: [String] { list.withLock { $0 } }
    func append(_ event: String) { list.withLock { $0.append(event) } }
}
