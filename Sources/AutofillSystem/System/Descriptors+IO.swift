internal import Glibc

/// Reading and writing descriptors (swift-system's `FileDescriptor` operations, on the plain `Int32`
/// descriptors the code holds): each retries EINTR and throws the `errno` of any other failure.
extension Descriptors {
    /// Opens `path` with `flags` (always close-on-exec); `mode` applies when ``OpenFlags/create`` creates it.
    public static func open(_ path: String, _ flags: OpenFlags = .readOnly, mode: UInt32 = 0o600) throws(SystemError) -> Int32 {
        while true {
            let descriptor = Glibc.open(path, flags.rawValue | O_CLOEXEC, mode_t(mode))
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw .current("open \(path)") }
        }
    }

    /// Opens `name` relative to the folder open as `folder` (`openat`), as ``open(_:_:mode:)`` does.
    public static func open(_ name: String, in folder: Int32, _ flags: OpenFlags = .readOnly,
                            mode: UInt32 = 0o600) throws(SystemError) -> Int32 {
        while true {
            let descriptor = openat(folder, name, flags.rawValue | O_CLOEXEC, mode_t(mode))
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw .current("open \(name)") }
        }
    }

    /// Reads up to `buffer.count` bytes; the count, 0 at the end.
    public static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw .current("read") }
        }
    }

    /// Reads up to `buffer.count` bytes at `offset`, leaving the file position alone (`pread`); the
    /// count, 0 past the end.
    public static func read(_ descriptor: Int32, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        while true {
            let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { throw .current("pread") }
        }
    }

    /// Reads to the end, at most `limit` bytes: nil when there is more than that.
    public static func readAll(_ descriptor: Int32, limit: Int = .max) throws(SystemError) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try read(descriptor, into: raw) }
            }.get()
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else { return nil }
            bytes += chunk[0..<count]
        }
    }

    /// Writes all of `bytes`, however many calls it takes.
    public static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .current("write")
            }
            if written == 0 { throw SystemError("write", code: EIO) }  // never for a pipe, socket or file; no endless loop
            offset += written
        }
    }

    /// Writes all of `bytes`.
    public static func write(_ descriptor: Int32, _ bytes: some Collection<UInt8>) throws(SystemError) {
        let array = Array(bytes)
        try array.withUnsafeBytes { raw in Result { () throws(SystemError) in try write(descriptor, raw) } }.get()
    }

    /// Writes all of `text`'s UTF-8.
    public static func write(_ descriptor: Int32, _ text: String) throws(SystemError) {
        try write(descriptor, Array(text.utf8))
    }

    /// Sends all of `bytes` on the socket `descriptor` (``send(_:_:)``: a dead peer is EPIPE, never
    /// SIGPIPE), however many calls it takes; retries EINTR.
    public static func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Result { () throws(SystemError) in try send(descriptor, UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            switch sent {
            case .success(let count) where count > 0: offset += count
            case .success: throw SystemError("send", code: EPIPE)
            case .failure(let error) where error.interrupted: continue
            case .failure(let error): throw error
            }
        }
    }

    /// Flushes what was written to `descriptor` to the disk (`fsync`).
    public static func sync(_ descriptor: Int32) throws(SystemError) {
        guard fsync(descriptor) == 0 else { throw .current("fsync") }
    }

    /// Closes `descriptor`. An error is reported, but the descriptor is gone either way (Linux).
    public static func close(_ descriptor: Int32) throws(SystemError) {
        guard Glibc.close(descriptor) == 0 else { throw .current("close") }
    }

    /// Closes `descriptor`, ignoring any error: for cleanup, where nothing could be done about one.
    public static func closeQuietly(_ descriptor: Int32) { _ = Glibc.close(descriptor) }

    /// Makes `target` a copy of `descriptor` (`dup2`; close-on-exec cleared on `target`, as `dup2` does).
    public static func duplicate(_ descriptor: Int32, onto target: Int32) throws(SystemError) {
        while dup2(descriptor, target) < 0 {
            if errno != EINTR { throw .current("dup2") }
        }
    }

    /// A new descriptor (close-on-exec) for what `descriptor` is open on (`F_DUPFD_CLOEXEC`).
    public static func duplicate(_ descriptor: Int32) throws(SystemError) -> Int32 {
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw .current("fcntl F_DUPFD_CLOEXEC") }
        return copy
    }

    /// Waits until one of `descriptors` is readable or hung up, or `timeoutMilliseconds` pass (-1:
    /// never); which of them are ready, by index (none: timed out). A negative descriptor is never
    /// ready (poll ignores it). Retries EINTR.
    public static func waitReadable(any descriptors: [Int32], timeoutMilliseconds: Int32) throws(SystemError) -> [Bool] {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            let ready = poll(&polled, nfds_t(polled.count), timeoutMilliseconds)
            if ready >= 0 { return polled.map { $0.fd >= 0 && $0.revents != 0 } }
            if errno != EINTR { throw .current("poll") }
        }
    }

    /// Ends both directions of socket `descriptor` (`shutdown(SHUT_RDWR)`): the peer reads its end;
    /// the descriptor stays open until closed.
    public static func shutDown(_ descriptor: Int32) { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }

    /// Whether `descriptor` is open on a terminal (`isatty`).
    public static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }
}
