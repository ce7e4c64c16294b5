import AutofillSystem
import AutofillTestSupport
import Glibc
import Testing

/// The Swift layer over CAutofillSystem, through the real kernel: what each call returns, and that a
/// failure throws the errno with what failed.
struct SystemLayerTests {
    @Test func aFailureCarriesItsErrnoAndNamesWhatFailed() throws {
        let missing = "/nonexistent-\(getpid())/agent.socket"
        let error = #expect(throws: SystemError.self) { try UnixSocket.connect(missing) }
        #expect(error?.code == ENOENT)
        #expect(error?.description == "connect to \(missing) failed (No such file or directory)")
    }

    @Test func pipesAndSocketPairsAreCloseOnExec() throws {
        let pipe = try Descriptors.pipe(nonblockingRead: true)
        let pair = try Descriptors.socketPair()
        defer { for descriptor in [pipe.read, pipe.write, pair.0, pair.1] { close(descriptor) } }
        for descriptor in [pipe.read, pipe.write, pair.0, pair.1] {
            #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
        }
        #expect(fcntl(pipe.read, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(pipe.write, F_GETFL) & O_NONBLOCK == 0)
    }

    @Test func waitingSeesWhichDescriptorIsReadable() throws {
        let first = try Descriptors.pipe(), second = try Descriptors.pipe()
        defer { for descriptor in [first.read, first.write, second.read, second.write] { close(descriptor) } }
        #expect(try Descriptors.waitReadable(first.read, timeoutMilliseconds: 0) == false)
        var byte: UInt8 = 1
        #expect(write(second.write, &byte, 1) == 1)
        let ready = try Descriptors.waitEither(first.read, second.read, timeoutMilliseconds: 10_000)
        #expect(ready.first == false && ready.second == true)
        #expect(try Descriptors.waitReadable(second.read, timeoutMilliseconds: 10_000))
    }

    @Test func descriptorsTravelWithTheFirstByte() throws {
        let pair = try Descriptors.socketPair(), passed = try Descriptors.pipe()
        defer { for descriptor in [pair.0, pair.1, passed.read, passed.write] { close(descriptor) } }
        let message: [UInt8] = [1, 2, 3]
        try message.withUnsafeBytes { raw in try UnixSocket.send(pair.0, raw, descriptors: [passed.write]) }
        var received: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { raw in
            try UnixSocket.receive(pair.1, into: raw, descriptors: &received)
        }
        defer { for descriptor in received { close(descriptor) } }
        #expect(Array(buffer[0..<count]) == message)
        #expect(received.count == 1)
        #expect(received.allSatisfy { fcntl($0, F_GETFD) & FD_CLOEXEC != 0 })
        let credentials = try UnixSocket.peerCredentials(pair.1)
        #expect(credentials.uid == getuid() && credentials.pid == getpid())
    }

    @Test func receivingWithoutWaitingSaysNothingIsThereYet() throws {
        let pair = try Descriptors.socketPair()
        defer { close(pair.0); close(pair.1) }
        try Descriptors.setNonblocking(pair.1, true)
        var received: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 16)
        let error = #expect(throws: SystemError.self) {
            try buffer.withUnsafeMutableBytes { raw in
                try UnixSocket.receive(pair.1, into: raw, descriptors: &received, waiting: false)
            }
        }
        #expect(error?.wouldBlock == true)
    }

    @Test func aSecondLockOnTheSameFileIsRefused() throws {
        let folder = try TemporaryFolder("system-layer")
        let path = folder.path + "/lock"
        let held = try #require(try Files.lock(path))
        defer { close(held) }
        // flock locks belong to the open file description: a second open conflicts, as another agent's would.
        #expect(try Files.lock(path) == nil)
        let identity = try Files.identity(path)
        var status = stat()
        #expect(lstat(path, &status) == 0)
        #expect(identity.device == UInt64(status.st_dev) && identity.inode == UInt64(status.st_ino))
    }

    @Test func aProgramsEndIsDecoded() throws {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        try #require(null >= 0)
        defer { close(null) }
        let exited = try Spawn.program("/bin/sh", arguments: ["/bin/sh", "-c", "exit 3"], environment: [], input: null, output: null,
                                       error: null)
        let killed = try Spawn.program("/bin/sh", arguments: ["/bin/sh", "-c", "kill -SEGV $$"], environment: [], input: null,
                                       output: null, error: null)
        var first: Int32 = 0, second: Int32 = 0
        while waitpid(exited, &first, 0) < 0 && errno == EINTR {}
        while waitpid(killed, &second, 0) < 0 && errno == EINTR {}
        #expect(WaitStatus(first).exited && WaitStatus(first).exitStatus == 3)
        #expect(WaitStatus(second).signaled && WaitStatus(second).terminationSignal == SIGSEGV)
        #expect(Processes.signalName(SIGSEGV) == "SEGV")
    }

    @Test func aSpawnThatCannotStartThrowsItsErrno() throws {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        try #require(null >= 0)
        defer { close(null) }
        let error = #expect(throws: SystemError.self) {
            try Spawn.program("/nonexistent/program", arguments: ["program"], environment: [], input: null, output: null, error: null)
        }
        #expect(error?.code == ENOENT)
    }
}
