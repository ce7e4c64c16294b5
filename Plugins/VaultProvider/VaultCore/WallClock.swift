internal import Glibc

/// The wall clock (seconds since 1970): passkey creation times, one-time codes, lock waits.
enum WallClock {
    /// The current time, with sub-second precision.
    @Sendable static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
