// The HOTP state file: the next counter of each HOTP entry, written atomically before a code is used.
import AutofillSystem
import FoundationEssentials

/// `{"version": 1, "counters": {"otp-…": 7}}`: the next counter value per record identifier.
///
/// Every use locks `<file>.lock` (flock, so other processes and other loads wait), reads the
/// file, and writes the new value atomically (`AtomicFile`: temporary file, fsync, rename, fsync of
/// the folder), mode 0600, before the code leaves the provider. A counter is never used twice, even if a later step fails.
struct CounterFile: Sendable {
    struct Problem: Error {
        let reason: String
    }

    private struct Contents: Codable {
        var version = 1
        var counters: [String: UInt64] = [:]
    }

    let path: String

    /// Takes the counter to use for `record` (the stored one, or `initial` from the URI if that
    /// is larger) and stores the next one; returns the counter to make the code with.
    func take(_ record: String, initial: UInt64) throws(Problem) -> UInt64 {
        try withLock { () throws(Problem) -> UInt64 in
            var contents = try load()
            let counter = max(contents.counters[record] ?? initial, initial)
            guard counter < UInt64.max else {
                throw Problem(reason: "the HOTP counter of \(record) is used up; enrol the account again")
            }
            contents.counters[record] = counter + 1
            try save(contents)
            return counter
        }
    }

    /// The stored next counter of `record`, if any (for tests and diagnostics).
    func stored(_ record: String) throws(Problem) -> UInt64? {
        try load().counters[record]
    }

    private func load() throws(Problem) -> Contents {
        guard FileManager.default.fileExists(atPath: path) else { return Contents() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(reason: "cannot read the HOTP state file \(path)")
        }
        do {
            return try JSONDecoder().decode(Contents.self, from: data)
        } catch {
            throw Problem(reason: "the HOTP state file \(path) is damaged; repair it (counters must not go back) or remove it")
        }
    }

    private func save(_ contents: Contents) throws(Problem) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(contents) else { throw Problem(reason: "cannot encode the HOTP state") }
        do {
            try AtomicFile.write([UInt8](data), to: path, mode: 0o600)
        } catch {
            throw Problem(reason: "cannot write the HOTP state file \(path): \(error)")
        }
    }

    /// Runs `body` holding an exclusive flock on `<path>.lock`; gives up after about a second.
    private func withLock<T>(_ body: () throws(Problem) -> T) throws(Problem) -> T {
        let fd: Int32
        do {
            fd = try Descriptors.open(path + ".lock", [.readWrite, .create], mode: 0o600)
        } catch {
            throw Problem(reason: "cannot open the HOTP lock file \(path).lock: \(error.reason)")
        }
        defer { Descriptors.closeQuietly(fd) }
        var attempts = 0
        while true {
            let taken = try? Files.tryLockExclusive(fd)  // nil: flock failed otherwise
            if taken == true { break }
            attempts += 1
            guard taken != nil, attempts < 100 else { throw Problem(reason: "the HOTP state file \(path) is busy; try again") }
            SystemClock.sleep(milliseconds: 10)
        }
        defer { try? Files.unlock(fd) }
        return try body()
    }
}
