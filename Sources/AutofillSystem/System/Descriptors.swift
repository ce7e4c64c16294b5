internal import CAutofillSystem

/// Descriptors (descriptors.c): pipes and socket pairs made close-on-exec, flags, sending without
/// SIGPIPE, waiting with poll, memfds and the descriptor limit.
public enum Descriptors {
    /// A connected AF_UNIX stream socket pair, both ends close-on-exec.
    public static func socketPair() throws(SystemError) -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        guard afsys_socketpair(&fds) == 0 else { throw .current("socketpair") }
        return (fds[0], fds[1])
    }

    /// A pipe, both ends close-on-exec; the read end non-blocking if `nonblockingRead`.
    public static func pipe(nonblockingRead: Bool = false) throws(SystemError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard afsys_pipe(&fds, nonblockingRead ? 1 : 0) == 0 else { throw .current("pipe") }
        return (fds[0], fds[1])
    }

    /// Sends some of `bytes` on socket `descriptor` (MSG_NOSIGNAL: a dead peer is EPIPE, never SIGPIPE);
    /// the number sent.
    public static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        let sent = afsys_send(descriptor, bytes.baseAddress, bytes.count)
        guard sent >= 0 else { throw .current("send") }
        return sent
    }

    /// Sets close-on-exec on `descriptor`.
    public static func setCloseOnExec(_ descriptor: Int32) throws(SystemError) {
        guard afsys_set_cloexec(descriptor) == 0 else { throw .current("fcntl") }
    }

    /// Sets or clears O_NONBLOCK on `descriptor`.
    public static func setNonblocking(_ descriptor: Int32, _ on: Bool) throws(SystemError) {
        guard afsys_set_nonblocking(descriptor, on ? 1 : 0) == 0 else { throw .current("fcntl") }
    }

    /// An anonymous in-memory file named `name` (memfd_create, close-on-exec).
    public static func memoryFile(named name: String) throws(SystemError) -> Int32 {
        let descriptor = afsys_memfd(name)
        guard descriptor >= 0 else { throw .current("memfd_create") }
        return descriptor
    }

    /// Waits until `descriptor` is readable or hung up (true), or `timeoutMilliseconds` pass (false;
    /// -1: never). Retries EINTR.
    public static func waitReadable(_ descriptor: Int32, timeoutMilliseconds: Int32) throws(SystemError) -> Bool {
        let ready = afsys_wait_readable(descriptor, timeoutMilliseconds)
        guard ready >= 0 else { throw .current("poll") }
        return ready == 1
    }

    /// Waits until `first` or `second` is readable or hung up, or `timeoutMilliseconds` pass (-1:
    /// never); which of them are ready (neither: timed out). Retries EINTR.
    public static func waitEither(_ first: Int32, _ second: Int32,
                                  timeoutMilliseconds: Int32) throws(SystemError) -> (first: Bool, second: Bool) {
        let ready = afsys_wait_either(first, second, timeoutMilliseconds)
        guard ready >= 0 else { throw .current("poll") }
        return (ready & 1 != 0, ready & 2 != 0)
    }

    /// Raises this process's soft limit of open descriptors to `wanted` (or the hard limit, if lower).
    public static func raiseLimit(to wanted: UInt64) throws(SystemError) {
        guard afsys_raise_descriptor_limit(wanted) == 0 else { throw .current("setrlimit") }
    }
}
