internal import AutofillSystem
internal import FoundationEssentials
internal import Glibc

/// The file ``RecentFills`` keeps its records in: `fills.log` in the user's records folder, 0600, an
/// append-only journal of one line per record, `SECONDS.MMM TAG` (the time with milliseconds, then
/// the tag: 64 lowercase hex digits), so that recording a fill appends one short line instead of
/// reading, re-encoding and replacing the whole file.
///
/// - **Appends** take an exclusive lock (`fills.log.lock`, as ``StateFile`` does), open the journal
///   (`O_APPEND`), and write the lines in one `write`. The lock keeps two agents or CLI processes from
///   losing each other's records when one of them compacts.
/// - **Compaction**: an append that finds the journal over ``compactionBytes`` rewrites it with the
///   records still wanted (``RecentFills/window``, the newest ``RecentFills/maximumRecords``) through
///   a temporary file, fsync and rename, under the same lock.
/// - **Crashes**: a line is counted only when it is whole (ends with a newline and parses); a torn
///   last line left by a crash is ignored, and the next append starts on a line of its own, so it
///   never joins the torn one. Appends are not fsynced: a record lost to a power cut only means the
///   automatic passkey upgrade is not offered at that site for the next few minutes (the safe side).
struct FillJournal: Sendable {
    struct Record: Equatable, Sendable {
        var tag: String
        /// Seconds since 1970.
        var time: Double
    }

    /// The journal's path.
    let path: String
    /// Beyond this size an append compacts the journal (about 800 records).
    static let compactionBytes = 64 << 10
    /// The most a read takes from the end of the journal (a journal kept compact is far smaller).
    static let readLimit = 4 << 20
    /// The bytes of a line: time (`1764250000.123`), space, tag, newline.
    static let tagLength = 64

    /// The records in the journal, oldest first; torn and unreadable lines left out. A missing
    /// journal holds none. Refuses (exit 77) one that users other than the user and root could change.
    func records() throws(AutofillError) -> [Record] {
        try checkPermissions()
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT { return [] }
            throw AutofillError(.io, "cannot read the recent fills \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        return Self.parse(Self.readAll(descriptor))
    }

    /// Appends `records`, compacting the journal first when it grew over ``compactionBytes``:
    /// `keep` says which of the records there are still wanted then.
    func append(_ records: [Record], keep: ([Record]) -> [Record]) throws(AutofillError) {
        try checkPermissions()
        let folder = ConfigurationFile.directory(of: path)
        if access(folder, F_OK) != 0 {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw AutofillError(.io, "cannot create the folder \(folder): \(error)")
            }
        }
        let lockPath = "\(path).lock"
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lock >= 0 else { throw AutofillError(.io, "cannot open \(lockPath): \(String(cString: strerror(errno)))") }
        defer { close(lock) }  // closing the descriptor releases the lock
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw AutofillError(.io, "cannot lock \(lockPath): \(String(cString: strerror(errno)))") }
        }
        let journal = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard journal >= 0 else { throw AutofillError(.io, "cannot write the recent fills \(path): \(String(cString: strerror(errno)))") }
        defer { close(journal) }
        var info = stat()
        guard fstat(journal, &info) == 0 else { throw AutofillError(.io, "cannot write the recent fills \(path): \(String(cString: strerror(errno)))") }
        if info.st_size > Self.compactionBytes {
            let kept = keep(Self.parse(Self.readAll(journal))) + records
            try AtomicFile.write(Data(Self.lines(kept)), to: path, mode: 0o600)
            return
        }
        var bytes = Self.lines(records)
        // A torn last line (a crash mid-append) stays a line of its own, ignored.
        var last: UInt8 = 0
        if info.st_size > 0, pread(journal, &last, 1, off_t(info.st_size - 1)) == 1, last != 0x0A {
            bytes.insert(0x0A, at: 0)
        }
        guard Self.writeAll(journal, bytes) else {
            throw AutofillError(.io, "cannot write the recent fills \(path): \(String(cString: strerror(errno)))")
        }
    }

    private func checkPermissions() throws(AutofillError) {
        let problems = HostRecords.problems(ofRecordFile: path)
        guard problems.isEmpty else {
            throw AutofillError(.refused, "autofill does not use the recent fills \(path): users other than you could change them:", problems: problems)
        }
    }

    /// `records` as journal lines.
    static func lines(_ records: [Record]) -> [UInt8] {
        var bytes: [UInt8] = []
        for record in records where record.tag.utf8.count == tagLength && record.time >= 0 {
            let milliseconds = Int64((record.time * 1000).rounded())
            let fraction = String(milliseconds % 1000)
            bytes += Array("\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) \(record.tag)\n".utf8)
        }
        return bytes
    }

    /// The whole lines of `bytes` that are records; anything else (a torn or foreign line) is skipped.
    static func parse(_ bytes: [UInt8]) -> [Record] {
        var records: [Record] = []
        var start = 0
        while let end = bytes[start...].firstIndex(of: 0x0A) {
            if let record = record(bytes[start..<end]) { records.append(record) }
            start = end + 1
        }
        return records
    }

    private static func record(_ line: ArraySlice<UInt8>) -> Record? {
        guard let space = line.firstIndex(of: 0x20), line.endIndex - space - 1 == tagLength else { return nil }
        let tag = line[(space + 1)...]
        guard tag.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let time = Double(String(decoding: line[..<space], as: UTF8.self)), time.isFinite, time >= 0
        else { return nil }
        return Record(tag: String(decoding: tag, as: UTF8.self), time: time)
    }

    /// What `descriptor` holds from its start (its last ``readLimit`` bytes when it is larger).
    private static func readAll(_ descriptor: Int32) -> [UInt8] {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return [] }
        let size = Int(info.st_size)
        var offset = max(0, size - readLimit)
        var bytes = [UInt8](repeating: 0, count: size - offset)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + filled, $0.count - filled, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
            offset += count
        }
        return Array(bytes.prefix(filled))
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}
