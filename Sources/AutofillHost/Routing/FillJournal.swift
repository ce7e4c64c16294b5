internal import AutofillSystem
internal import FoundationEssentials

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
        let descriptor: Int32
        do {
            descriptor = try Descriptors.open(path, .noFollow)
        } catch {
            if error.noSuchFile { return [] }
            throw AutofillError(.io, "cannot read the recent fills \(path): \(error.reason)")
        }
        defer { Descriptors.closeQuietly(descriptor) }
        return Self.parse(Self.readAll(descriptor))
    }

    /// Appends `records`, compacting the journal first when it grew over ``compactionBytes``:
    /// `keep` says which of the records there are still wanted then.
    func append(_ records: [Record], keep: ([Record]) -> [Record]) throws(AutofillError) {
        try checkPermissions()
        let folder = ConfigurationFile.directory(of: path)
        if !Paths.exists(folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw AutofillError(.io, "cannot create the folder \(folder): \(error)")
            }
        }
        let lockPath = "\(path).lock"
        let lock = try RecordLock.take(lockPath, followingLinks: false)
        defer { Descriptors.closeQuietly(lock) }  // closing the descriptor releases the lock
        let journal: Int32
        let size: Int64
        do {
            journal = try Descriptors.open(path, [.readWrite, .append, .create, .noFollow], mode: 0o600)
        } catch {
            throw AutofillError(.io, "cannot write the recent fills \(path): \(error.reason)")
        }
        defer { Descriptors.closeQuietly(journal) }
        do {
            size = try FileStatus(descriptor: journal).size
        } catch {
            throw AutofillError(.io, "cannot write the recent fills \(path): \(error.reason)")
        }
        if size > Self.compactionBytes {
            let kept = keep(Self.parse(Self.readAll(journal))) + records
            try AtomicFile.write(Data(Self.lines(kept)), to: path, mode: 0o600)
            return
        }
        var bytes = Self.lines(records)
        // A torn last line (a crash mid-append) stays a line of its own, ignored.
        var last: UInt8 = 0
        if size > 0, (try? withUnsafeMutableBytes(of: &last) { raw in try Descriptors.read(journal, at: size - 1, into: raw) }) == 1,
            last != 0x0A
        {
            bytes.insert(0x0A, at: 0)
        }
        do {
            try Descriptors.write(journal, bytes)
        } catch {
            throw AutofillError(.io, "cannot write the recent fills \(path): \(error.reason)")
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
        guard let info = try? FileStatus(descriptor: descriptor), info.kind == .regular else { return [] }
        let size = Int(info.size)
        var offset = max(0, size - readLimit)
        var bytes = [UInt8](repeating: 0, count: size - offset)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { raw in
                (try? Descriptors.read(descriptor, at: Int64(offset), into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))) ?? -1
            }
            guard count > 0 else { break }
            filled += count
            offset += count
        }
        return Array(bytes.prefix(filled))
    }
}
