internal import CAutofillSystem

/// Unix stream sockets (unix_socket.c): listening (0600) and connecting by path, the peer's credentials
/// (SO_PEERCRED), and bytes sent and received with descriptors attached (SCM_RIGHTS).
public enum UnixSocket {
    /// The most descriptors one message carries.
    public static let maximumDescriptors = Int(AFSYS_MAX_FDS)

    /// A listening socket bound to `path` (which must not exist), mode 0600, backlog 128.
    public static func listen(_ path: String) throws(SystemError) -> Int32 {
        let descriptor = afsys_listen(path)
        guard descriptor >= 0 else { throw SystemError.current("listen on \(path)") }
        return descriptor
    }

    /// Accepts one connection on `listener` (close-on-exec).
    public static func accept(_ listener: Int32) throws(SystemError) -> Int32 {
        let descriptor = afsys_accept(listener)
        guard descriptor >= 0 else { throw .current("accept") }
        return descriptor
    }

    /// A socket connected to `path` (ENOENT: no socket; ECONNREFUSED: a socket nobody listens on).
    public static func connect(_ path: String) throws(SystemError) -> Int32 {
        let descriptor = afsys_connect(path)
        guard descriptor >= 0 else { throw SystemError.current("connect to \(path)") }
        return descriptor
    }

    /// The connected peer's uid and pid, as the kernel recorded them when it connected.
    public static func peerCredentials(_ socket: Int32) throws(SystemError) -> (uid: UInt32, pid: Int32) {
        var uid: UInt32 = 0, pid: Int32 = 0
        guard afsys_peer_credentials(socket, &uid, &pid) == 0 else { throw .current("getsockopt SO_PEERCRED") }
        return (uid, pid)
    }

    /// Sends all of `bytes` (not empty) with `descriptors` (at most ``maximumDescriptors``) attached to
    /// the first byte; MSG_NOSIGNAL.
    public static func send(_ socket: Int32, _ bytes: UnsafeRawBufferPointer, descriptors: [Int32]) throws(SystemError) {
        let sent = descriptors.withUnsafeBufferPointer { fds in
            afsys_send_with_fds(socket, bytes.baseAddress, bytes.count, fds.baseAddress, fds.count)
        }
        guard sent == 0 else { throw .current("sendmsg") }
    }

    /// Receives up to `bytes.count` bytes into `bytes`, appending the descriptors attached to them
    /// (close-on-exec) to `descriptors`; the byte count, 0 at end of stream. Without `waiting`, throws
    /// EAGAIN when nothing is there yet.
    public static func receive(_ socket: Int32, into bytes: UnsafeMutableRawBufferPointer, descriptors: inout [Int32],
                               waiting: Bool = true) throws(SystemError) -> Int {
        var fds = [Int32](repeating: -1, count: maximumDescriptors)
        var fdCount = 0
        let count = waiting
            ? afsys_receive_with_fds(socket, bytes.baseAddress, bytes.count, &fds, fds.count, &fdCount)
            : afsys_receive_with_fds_now(socket, bytes.baseAddress, bytes.count, &fds, fds.count, &fdCount)
        descriptors += fds.prefix(fdCount)
        guard count >= 0 else { throw .current("recvmsg") }
        return count
    }
}
