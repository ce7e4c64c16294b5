internal import AutofillSystem

/// Starts `body` on a new detached POSIX thread (``Threads/startDetached(_:)``): for loops that block in
/// `poll` or `read` for a helper's whole life, which must not hold a thread of Swift's or Dispatch's
/// shared pools.
package func startDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    Threads.startDetached(body)
}
