import AutofillSystem
import AutofillTestSupport
import Glibc
import Testing

/// The layer's files, paths, processes and users through the real kernel: what each call returns, and
/// that a refused call (a link where none may be, a file that exists) throws the errno that says so.
struct SystemFilesTests {
    @Test func aFileWrittenIsReadBackWholeAndByOffset() throws {
        let folder = try TemporaryFolder("system-files")
        let path = folder.path + "/file"
        let written = try Descriptors.open(path, [.writeOnly, .create, .exclusive], mode: 0o640)
        try Descriptors.write(written, "hello, layer")
        try Descriptors.sync(written)
        try Descriptors.close(written)
        let descriptor = try Descriptors.open(path)
        defer { Descriptors.closeQuietly(descriptor) }
        #expect(fcntl(descriptor, F_GETFD) & FD_CLOEXEC != 0)
        #expect(try Descriptors.readAll(descriptor, limit: 5) == nil)
        var byte: UInt8 = 0
        #expect(try withUnsafeMutableBytes(of: &byte) { raw in try Descriptors.read(descriptor, at: 7, into: raw) } == 1)
        #expect(byte == UInt8(ascii: "l"))
        let status = try FileStatus(descriptor: descriptor)
        #expect(status.kind == .regular && status.size == 12 && status.permissions == 0o640)
        let byPath = try FileStatus(path: path)
        #expect(status.owner == Users.effective && status == byPath)
        let again = try Descriptors.open(path)
        defer { Descriptors.closeQuietly(again) }
        #expect(try Descriptors.readAll(again).map { String(decoding: $0, as: UTF8.self) } == "hello, layer")
    }

    @Test func aLinkIsRefusedWhereNoneMayBeAndSeenForWhatItIs() throws {
        let folder = try TemporaryFolder("system-files")
        try Paths.makeFolder(folder.path + "/target", mode: 0o700)
        #expect(symlink(folder.path + "/target", folder.path + "/link") == 0)
        let error = #expect(throws: SystemError.self) { try Descriptors.open(folder.path + "/link", [.noFollow, .directory]) }
        #expect(error?.notAFolder == true || error?.isALink == true)
        #expect(try FileStatus(path: folder.path + "/link", followingLinks: false).kind == .symbolicLink)
        #expect(try FileStatus(path: folder.path + "/link").kind == .directory)
        #expect(try Paths.linkTarget(folder.path + "/link") == folder.path + "/target")
        let exists = #expect(throws: SystemError.self) { try Paths.makeFolder(folder.path + "/target") }
        #expect(exists?.alreadyExists == true)
        #expect(try Paths.contents(of: folder.path).sorted() == ["link", "target"])
        #expect(try Paths.contents(of: folder.path, limit: 1).count == 1)
    }

    @Test func pathsAreRenamedRemovedAndChecked() throws {
        let folder = try TemporaryFolder("system-files")
        let path = folder.path + "/a"
        Descriptors.closeQuietly(try Descriptors.open(path, [.writeOnly, .create], mode: 0o700))
        #expect(Paths.exists(path) && Paths.isExecutable(path) && Paths.isReadable(path))
        try Paths.setMode(path, 0o600)
        #expect(!Paths.isExecutable(path))
        try Paths.rename(path, to: folder.path + "/b")
        #expect(!Paths.exists(path))
        try Paths.remove(folder.path + "/b")
        let missing = #expect(throws: SystemError.self) { try Paths.remove(folder.path + "/b") }
        #expect(missing?.noSuchFile == true)
        let temporary = try Paths.makeTemporaryFolder(folder.path + "/t.")
        #expect(try FileStatus(path: temporary).permissions == 0o700)
        try Paths.removeFolder(temporary)
    }

    @Test func aSecondExclusiveLockWaitsItsTurn() throws {
        let folder = try TemporaryFolder("system-files")
        let first = try Descriptors.open(folder.path + "/lock", [.readWrite, .create])
        let second = try Descriptors.open(folder.path + "/lock", .readWrite)
        defer { Descriptors.closeQuietly(first); Descriptors.closeQuietly(second) }
        try Files.lockExclusive(first)
        #expect(try Files.tryLockExclusive(second) == false)
        try Files.unlock(first)
        #expect(try Files.tryLockExclusive(second))
    }

    @Test func aChildIsSignalledAndReapedWithoutWaiting() throws {
        let null = try Descriptors.open("/dev/null", .readWrite)
        defer { Descriptors.closeQuietly(null) }
        let pid = try Spawn.program("/bin/sleep", arguments: ["sleep", "600"], environment: [], input: null, output: null, error: null)
        #expect(try Processes.reapIfEnded(pid) == nil)
        #expect(Signals.processExists(pid))
        try Signals.send(.kill, to: pid)
        #expect(Processes.reap(pid).terminationSignal == SIGKILL)
        let gone = #expect(throws: SystemError.self) { try Signals.send(.terminate, to: pid) }
        #expect(gone?.noSuchProcess == true)
    }

    @Test func usersClocksAndVariablesAreReadFromTheSystem() throws {
        #expect(Users.current == getuid() && Users.effective == geteuid() && Users.processID == getpid())
        let account = try #require(Users.account(getuid()))
        #expect(account.home.hasPrefix("/") && !account.name.isEmpty)
        #expect(Users.group(account.group) != nil)
        #expect(Processes.variable("PATH") == String(cString: getenv("PATH")))
        #expect(Processes.variable("AUTOFILL_SURELY_UNSET_\(getpid())") == nil)
        let before = SystemClock.monotonic()
        SystemClock.sleep(milliseconds: 2)
        #expect(SystemClock.monotonic() > before && SystemClock.now() / 1_000_000_000 - SystemClock.seconds() <= 1)
    }
}
