internal import AutofillWire
internal import AutofillSystem
internal import Logging
internal import Synchronization

/// The agent's connections, on one thread (docs/AGENT.md, "Limits"): it accepts them, reads their
/// requests and watches the clients of the requests being served, all in one `poll`, so a request
/// crosses no thread between its arrival and the one that serves it, and a peer that connects and
/// stalls holds no thread of its own and delays nobody: it is dropped ``AgentProtocol/requestDeadline``
/// after it connected, or sooner when ``maximumPending`` others wait (the oldest goes first), and a
/// request over ``AgentProtocol/maximumRequestBytes`` is dropped as it arrives.
///
/// A peer of another uid is closed on as it is accepted. Before the first byte of a connection is
/// read, `admit` decides whether its peer may talk to the agent at all (it answers a peer it refuses
/// itself). A whole request goes to `deliver` as a ``Request``, which owns its descriptors from then
/// on; the intake keeps its socket, and closes it once the request is ``Request/finish()``ed.
final class ConnectionIntake: Sendable {
    typealias Admit = @Sendable (_ socket: Int32) -> Bool
    typealias Deliver = @Sendable (_ request: Request) -> Void

    /// How many connections may wait for their request at once.
    static let maximumPending = 1024
    /// How many connections one turn of the loop accepts before it reads what the others sent.
    static let acceptsPerTurn = 64

    private let listener: Int32
    private let wakeRead: Int32, wakeWrite: Int32
    /// Sockets of requests that finished, for the loop to close.
    private let finished = Mutex<[Int32]>([])
    private let admit: Admit
    private let deliver: Deliver
    private let logger: Logger

    /// Starts the intake's thread on `listener`; nil when no thread or pipe can be had.
    init?(listener: Int32, admit: @escaping Admit, deliver: @escaping Deliver, logger: Logger) {
        guard let pipe = try? Descriptors.pipe(nonblockingRead: true) else { return nil }
        try? Descriptors.setNonblocking(pipe.write, true)
        try? Descriptors.setNonblocking(listener, true)
        self.listener = listener
        wakeRead = pipe.read
        wakeWrite = pipe.write
        self.admit = admit
        self.deliver = deliver
        self.logger = logger
        guard startDetachedThread({ [self] in loop() }) else {
            Descriptors.closeQuietly(pipe.read)
            Descriptors.closeQuietly(pipe.write)
            return nil
        }
    }

    /// A whole request read from a client, and what the intake does with its connection while it is
    /// served: it watches the socket, and when the client closes it (or writes more, which the
    /// protocol forbids) before ``finish()``, runs the handler given to ``whenClientLeaves(_:)``, once.
    final class Request: Sendable {
        /// The client's connection (blocking again); the intake's to close.
        let socket: Int32
        let message: AgentProtocol.Message
        /// The descriptors the client sent: the receiver's to close.
        let descriptors: [Int32]
        private let intake: ConnectionIntake
        private let state = Mutex<State>(State())

        private struct State {
            var leaving: (@Sendable () -> Void)?
            var left = false
            var finished = false
        }

        fileprivate init(socket: Int32, message: AgentProtocol.Message, descriptors: [Int32], intake: ConnectionIntake) {
            self.socket = socket
            self.message = message
            self.descriptors = descriptors
            self.intake = intake
        }

        /// What to do when the client goes away mid-request (runs on the intake's thread: it must not block).
        func whenClientLeaves(_ body: @escaping @Sendable () -> Void) {
            state.withLock { $0.leaving = body }
        }

        /// Whether the client went away before the request finished.
        var clientLeft: Bool { state.withLock { $0.left } }

        /// The request is done with its socket (its answer sent, or none to send): the intake closes it.
        func finish() {
            let first = state.withLock { state in
                defer { state.finished = true }
                return !state.finished
            }
            guard first else { return }
            intake.finished.withLock { $0.append(socket) }
            _ = try? Descriptors.write(intake.wakeWrite, [1])
        }

        fileprivate var watched: Bool { state.withLock { !$0.left && !$0.finished } }

        fileprivate func clientWentAway() {
            let leaving = state.withLock { state -> (@Sendable () -> Void)? in
                guard !state.left, !state.finished else { return nil }
                state.left = true
                return state.leaving
            }
            leaving?()
        }
    }

    private struct Pending {
        let socket: Int32
        let deadline: ContinuousClock.Instant
        var assembler = FrameAssembler(maximumFrameBytes: AgentProtocol.maximumRequestBytes)
        var descriptors: [Int32] = []
        var admitted = false
        var received = 0

        func drop() {
            for descriptor in descriptors { Descriptors.closeQuietly(descriptor) }
            Descriptors.closeQuietly(socket)
        }
    }

    private enum Progress { case waiting, refused, delivered(Request), failed(String) }

    private func loop() {
        var listening = true
        var pending: [Pending] = []
        var serving: [Int32: Request] = [:]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            for socket in finished.withLock({ sockets in defer { sockets.removeAll() }; return sockets }) {
                if serving.removeValue(forKey: socket) != nil { Descriptors.closeQuietly(socket) }
            }
            let watchedServing = serving.values.filter(\.watched).map(\.socket)
            let watched = [wakeRead, listening ? listener : -1] + pending.map(\.socket) + watchedServing
            let now = ContinuousClock.now
            let timeout = pending.map(\.deadline).min().map { deadline -> Int32 in
                let left = deadline - now
                return max(0, Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000)))
            } ?? -1
            let ready: [Bool]
            do {
                ready = try Descriptors.waitReadable(any: watched, timeoutMilliseconds: timeout)
            } catch {
                SystemClock.sleep(milliseconds: 10)
                continue
            }
            if ready[0] {
                var drain = [UInt8](repeating: 0, count: 256)
                while ((try? drain.withUnsafeMutableBytes { raw in try Descriptors.read(wakeRead, into: raw) }) ?? 0) > 0 {}
            }
            for (offset, socket) in watchedServing.enumerated() where ready[2 + pending.count + offset] {
                serving[socket]?.clientWentAway()
            }
            var failures: [String: Int] = [:]
            var done = Set<Int>()
            for index in pending.indices where ready[2 + index] {
                if advance(&pending[index], buffer: &buffer, failures: &failures, serving: &serving) { done.insert(index) }
            }
            let later = ContinuousClock.now
            var expired = 0
            for index in pending.indices where !done.contains(index) && pending[index].deadline <= later {
                pending[index].drop()
                done.insert(index)
                expired += 1
            }
            if expired > 0 { failures["no whole request within \(AgentProtocol.requestDeadline.components.seconds) s of connecting", default: 0] += expired }
            if !done.isEmpty { pending = pending.indices.filter { !done.contains($0) }.map { pending[$0] } }
            if ready[1] {
                // Each new connection is read at once: a client sends its request as it connects.
                for socket in accept(stillListening: &listening) {
                    var connection = Pending(socket: socket, deadline: ContinuousClock.now + AgentProtocol.requestDeadline)
                    if !advance(&connection, buffer: &buffer, failures: &failures, serving: &serving) { pending.append(connection) }
                }
            }
            if pending.count > Self.maximumPending {
                let excess = pending.count - Self.maximumPending
                for connection in pending.prefix(excess) { connection.drop() }
                pending.removeFirst(excess)
                failures["\(Self.maximumPending) other connections were waiting to send their requests", default: 0] += excess
            }
            for (why, count) in failures { logger.info("dropped \(count) connection\(count == 1 ? "" : "s"): \(why)") }
        }
    }

    /// Reads what `connection` has; whether the intake is done with it as a pending connection
    /// (refused, failed and closed, or its request delivered and now in `serving`).
    private func advance(_ connection: inout Pending, buffer: inout [UInt8], failures: inout [String: Int],
                         serving: inout [Int32: Request]) -> Bool {
        switch progress(&connection, buffer: &buffer) {
        case .waiting:
            return false
        case .refused:
            Descriptors.closeQuietly(connection.socket)
        case .delivered(let request):
            serving[request.socket] = request
            deliver(request)
        case .failed(let why):
            connection.drop()
            failures[why, default: 0] += 1
        }
        return true
    }

    /// Up to ``acceptsPerTurn`` connections waiting on the listener, nonblocking, each of this uid
    /// (`SO_PEERCRED`; another's is closed on at once). `stillListening` turns false once the listener is closed.
    private func accept(stillListening: inout Bool) -> [Int32] {
        var accepted: [Int32] = []
        while accepted.count < Self.acceptsPerTurn {
            let connection: Int32
            do throws(SystemError) {
                connection = try UnixSocket.accept(listener)
            } catch {
                if error.badDescriptor || error.invalidArgument { stillListening = false }  // closed: stopping
                if error.outOfDescriptors { SystemClock.sleep(milliseconds: 50) }
                break
            }
            let peer = try? UnixSocket.peerCredentials(connection)
            guard let peer, peer.uid == Users.current else {
                logger.warning("refused a connection from pid \(peer?.pid ?? 0) of uid \(peer?.uid ?? 0): the agent serves uid \(Users.current) only")
                Descriptors.closeQuietly(connection)
                continue
            }
            try? Descriptors.setNonblocking(connection, true)
            accepted.append(connection)
        }
        return accepted
    }

    /// Reads what `connection` has: `.refused` when its peer may not talk to the agent (it was told),
    /// `.delivered` once its request is whole (the socket blocking again).
    private func progress(_ connection: inout Pending, buffer: inout [UInt8]) -> Progress {
        if !connection.admitted {
            guard admit(connection.socket) else { return .refused }
            connection.admitted = true
        }
        while true {
            let result = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in
                    try UnixSocket.receive(connection.socket, into: raw, descriptors: &connection.descriptors, waiting: false)
                }
            }
            let count: Int
            switch result {
            case .success(let received): count = received
            case .failure(let error): return error.wouldBlock ? .waiting : .failed("its connection failed")
            }
            if count == 0 { return .failed("the peer closed the connection before its request was whole") }
            connection.received += count
            guard connection.received <= AgentProtocol.maximumRequestBytes + 4 else { return .failed("a request over the limit") }
            buffer.withUnsafeBytes { connection.assembler.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            do {
                guard let body = try connection.assembler.next() else { continue }
                guard !connection.assembler.isMidFrame else { return .failed("bytes after the request") }
                let message = try AgentProtocol.Message(body: body)
                try? Descriptors.setNonblocking(connection.socket, false)
                return .delivered(Request(socket: connection.socket, message: message, descriptors: connection.descriptors, intake: self))
            } catch {
                return .failed("something that is not the agent protocol (\(error.message))")
            }
        }
    }
}
