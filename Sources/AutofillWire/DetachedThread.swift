internal import Glibc

/// Starts `body` on a new detached POSIX thread: for loops that block in `poll` or `read` for a
/// helper's whole life, which must not hold a thread of Swift's or Dispatch's shared pools.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    pthread_attr_setstacksize(&attributes, 512 * 1024)
    var thread = pthread_t()
    let status = pthread_create(&thread, &attributes, { argument in
        let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    pthread_attr_destroy(&attributes)
    guard status == 0 else {
        Unmanaged<Box>.fromOpaque(box).release()
        return false
    }
    return true
}
