internal import Synchronization

/// What this process decoded from files, kept while each file's ``StatStamp`` stays the same, so that
/// the agent, which runs every command as a fresh `autofill` would, does not parse the configuration,
/// every plugin's Info.plist and the trust, digest and fault records again for each request
/// (docs/AGENT.md, "What the agent keeps between requests").
///
/// Only the parsing is kept. Every check that decides something runs at every request as before:
/// permissions, the bundle's digests against the trust record (with ``DigestCache``, which hashes
/// a library again when its stamp moved), the quarantine. A file whose stamp moved is read again on
/// the next use, so an edited configuration takes effect on the next request and a changed bundle
/// file is refused on the next request, as without the agent.
///
/// A value is remembered only when every file it came from had the same stamp before and after it
/// was read, and has settled (``StatStamp/isSettled(now:settleTime:)``): a file changed twice in one
/// clock tick could otherwise keep the stamp of bytes never read. A file that does not exist is
/// never remembered. Failures (a `throw`) are never remembered either.
package enum StampedCache {
    private struct Key: Hashable {
        var kind: String
        var paths: [String]
    }

    private struct Entry: @unchecked Sendable {
        // `any Sendable` values only (``value(_:of:read:)`` takes `T: Sendable`).
        var stamps: [StatStamp]
        var value: Any
    }

    /// The most values kept; beyond it the cache starts afresh (a search folder of many bundles).
    package static let maximumEntries = 512

    private static let entries = Mutex<[Key: Entry]>([:])
    /// Settle time in nanoseconds (tests shorten it).
    private static let settleTime = Atomic<Int64>(StatStamp.settleTime)

    /// The value `read` makes of the files at `paths`: the one remembered when their stamps are the
    /// ones it was read with, else `read()`'s (remembered when they held still and settled). `kind`
    /// tells apart values made differently from the same files.
    package static func value<T: Sendable, Failure: Error>(
        _ kind: String, of paths: [String], read: () throws(Failure) -> T
    ) throws(Failure) -> T {
        let key = Key(kind: kind, paths: paths)
        let before = paths.compactMap { StatStamp(path: $0) }
        let complete = before.count == paths.count
        if complete, let entry = entries.withLock({ $0[key] }), entry.stamps == before, let value = entry.value as? T {
            return value
        }
        let value = try read()
        guard complete else { return value }
        let after = paths.compactMap { StatStamp(path: $0) }
        let now = StatStamp.now(), settle = settleTime.load(ordering: .relaxed)
        guard after == before, before.allSatisfy({ $0.isSettled(now: now, settleTime: settle) }) else { return value }
        entries.withLock { entries in
            if entries.count >= maximumEntries && entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(stamps: before, value: value)
        }
        return value
    }

    /// Forgets everything (tests).
    static func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    /// Sets how long a file must have held still before it is remembered (tests: 0).
    static func setSettleTime(nanoseconds: Int64) {
        settleTime.store(nanoseconds, ordering: .relaxed)
    }
}
