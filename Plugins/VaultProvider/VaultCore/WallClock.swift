internal import AutofillSystem

/// The wall clock (seconds since 1970): passkey creation times, one-time codes, lock waits.
enum WallClock {
    /// The current time, with sub-second precision.
    @Sendable static func now() -> Double {
        let nanoseconds = SystemClock.now()
        return Double(nanoseconds / 1_000_000_000) + Double(nanoseconds % 1_000_000_000) / 1e9
    }
}
