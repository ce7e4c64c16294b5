internal import Glibc

/// Threads of autofill's own, outside Swift's and Dispatch's shared pools.
public enum Threads {
    /// A thread, as `pthread_self` names it.
    public struct Identity: Sendable {
        fileprivate let raw: pthread_t
    }

    /// The calling thread.
    public static var current: Identity { Identity(raw: pthread_self()) }

    /// Whether `thread` is the calling thread (`pthread_equal`).
    public static func isCurrent(_ thread: Identity) -> Bool { pthread_equal(thread.raw, pthread_self()) != 0 }

    /// Starts `body` on a new detached POSIX thread (512 KiB of stack): for loops that block in `poll`
    /// or `read` for a helper's whole life. False when the thread could not be created.
    public static func startDetached(_ body: @escaping @Sendable () -> Void) -> Bool {
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
}
