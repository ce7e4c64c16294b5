internal import Glibc

/// The clocks: wall time and time since boot, in nanoseconds, and sleeping.
public enum SystemClock {
    /// The wall clock (`CLOCK_REALTIME`, what file times use), nanoseconds since the epoch.
    public static func now() -> Int64 { read(CLOCK_REALTIME) }

    /// A clock that never jumps (`CLOCK_MONOTONIC`), nanoseconds: for measuring how long something took.
    public static func monotonic() -> Int64 { read(CLOCK_MONOTONIC) }

    /// Seconds since the epoch (`time`).
    public static func seconds() -> Int64 { Int64(time(nil)) }

    /// Sleeps `milliseconds` (a signal may cut it short).
    public static func sleep(milliseconds: Int) { _ = usleep(useconds_t(milliseconds * 1000)) }

    private static func read(_ clock: clockid_t) -> Int64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
