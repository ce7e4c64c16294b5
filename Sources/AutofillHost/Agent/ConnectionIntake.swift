internal import AutofillWire
internal import AutofillSystem
internal import Synchronization

/// The connections the agent accepted and has not yet read a whole request from (docs/AGENT.md,
/// "Limits"). One thread polls them all, so a peer that connects and stalls holds no thread of its
/// own and delays nobody: it is dropped ``AgentProtocol/requestDeadline`` after it connected, or
/// sooner when ``maximumPending`` others wait (the oldest goes first), and a request over
/// ``AgentProtocol/maximumRequestBytes`` is dropped as it arrives.
///
/// Before the first byte of a connection is read, `admit` decides whether its peer may talk to the
/// agent at all (it answers a peer it refuses itself); a whole request goes to `deliver`, which owns
/// the socket and the descriptors from then on.
final class ConnectionIntake: Sendable {
    typealias Admit = @Sendable (_ socket: Int32) -> Bool
    typealias Deliver = @Sendable (_ socket: Int32, _ message: AgentProtocol.Message, _ descriptors: [Int32]) -> Void

    /// How many connections may wait for their request at once.
    static let maximumPending = 1024

    private let arrivals = Mutex<[Int32]>([])
    private let wakeRead: Int32, wakeWrite: Int32
    private let admit: Admit
    private let deliver: Deliver
    private let dropped: @Sendable (_ count: Int, _ why: String) -> Void

    /// Starts the intake's thread; nil when no thread or pipe can be had.
    init?(admit: @escaping Admit, deliver: @escaping Deliver, dropped: @escaping @Sendable (Int, String) -> Void) {
        guard let pipe = try? Descriptors.pipe(nonblockingRead: true) else { return nil }
        try? Descriptors.setNonblocking(pipe.write, true)
        wakeRead = pipe.read
        wakeWrite = pipe.write
        self.admit = admit
        self.deliver = deliver
        self.dropped = dropped
        guard startDetachedThread({ [self] in loop() }) else {
            Descriptors.closeQuietly(pipe.read)
            Descriptors.closeQuietly(pipe.write)
            return nil
        }
    }

    /// Hands over a connection just accepted.
    func add(_ socket: Int32) {
        try? Descriptors.setNonblocking(socket, true)
        arrivals.withLock { $0.append(socket) }
        _ = try? Descriptors.write(wakeWrite, [1])
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

    private enum Progress { case waiting, done, failed(String) }

    private func loop() {
        var pending: [Pending] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let now = ContinuousClock.now
            for socket in arrivals.withLock({ arrived in defer { arrived.removeAll() }; return arrived }) {
                pending.append(Pending(socket: socket, deadline: now + AgentProtocol.requestDeadline))
            }
            if pending.count > Self.maximumPending {
                let excess = pending.count - Self.maximumPending
                for connection in pending.prefix(excess) { connection.drop() }
                pending.removeFirst(excess)
                dropped(excess, "\(Self.maximumPending) other connections were waiting to send their requests")
            }
            let watched = [wakeRead] + pending.map(\.socket)
            let nearest = pending.map(\.deadline).min()
            let timeout = nearest.map { deadline -> Int32 in
                let left = deadline - now
                return max(0, Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000)))
            } ?? -1
            let ready: [Bool]
            do {
                ready = try Descriptors.waitReadable(any: watched, timeoutMilliseconds: timeout)
            } catch {
                SystemClock.sleep(milliseconds: 10)
                ready = watched.map { _ in false }
            }
            if ready[0] {
                var drain = [UInt8](repeating: 0, count: 256)
                while ((try? drain.withUnsafeMutableBytes { raw in try Descriptors.read(wakeRead, into: raw) }) ?? 0) > 0 {}
            }
            var finished = Set<Int>()
            var failures: [String: Int] = [:]
            for index in pending.indices where ready[index + 1] {
                switch progress(&pending[index], buffer: &buffer) {
                case .waiting: continue
                case .done: finished.insert(index)
                case .failed(let why):
                    pending[index].drop()
                    failures[why, default: 0] += 1
                    finished.insert(index)
                }
            }
            let later = ContinuousClock.now
            var expired = 0
            for index in pending.indices where !finished.contains(index) && pending[index].deadline <= later {
                pending[index].drop()
                finished.insert(index)
                expired += 1
            }
            if expired > 0 { failures["no whole request within \(AgentProtocol.requestDeadline.components.seconds) s of connecting", default: 0] += expired }
            for (why, count) in failures { dropped(count, why) }
            if !finished.isEmpty {
                pending = pending.indices.filter { !finished.contains($0) }.map { pending[$0] }
            }
        }
    }

    /// Reads what `connection` has; `.done` when it was refused or its request delivered (the
    /// socket is no longer the intake's).
    private func progress(_ connection: inout Pending, buffer: inout [UInt8]) -> Progress {
        if !connection.admitted {
            guard admit(connection.socket) else {
                Descriptors.closeQuietly(connection.socket)
                return .done
            }
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
                deliver(connection.socket, message, connection.descriptors)
                return .done
            } catch {
                return .failed("something that is not the agent protocol (\(error.message))")
            }
        }
    }
}
