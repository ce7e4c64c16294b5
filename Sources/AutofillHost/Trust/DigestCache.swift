internal import AutofillSystem

/// SHA-256 digests of plugin files, remembered with each file's `stat` stamp so that a launch hashes
/// a library again only when it changed (`digests.json` in ``HostRecords``, beside the trust records:
/// a configuration cannot point at a cache of its own making either).
///
/// Why a stamp is enough: any write to a file, or any change of its mode or owner, sets its ctime to
/// the current time, and only the kernel sets ctime (`utimensat` can forge mtime, not ctime). The
/// stamp also holds device, inode and size, so a file replaced by `rename` is a new file. Two guards
/// against races, as git has for its index: a file whose ctime is less than two seconds old is
/// hashed but not remembered (a change within the same clock tick would keep the same ctime), and a
/// file whose stamp moved while it was being hashed is not remembered either.
///
/// What this trusts is what the trust check already trusts: only the user or root can write a
/// plugin's files (checked before), and whoever can write them can also write the records.
struct DigestCache: Sendable {
    /// A file as `stat` sees it.
    typealias Stamp = StatStamp

    struct Entry: Codable, Equatable, Sendable {
        var stamp: Stamp
        var sha256: String
    }

    struct Document: Codable, Sendable {
        var version = 1
        var files: [String: Entry] = [:]
    }

    static let fileName = "digests.json"
    /// Files changed more recently than this are not remembered (nanoseconds).
    static let settleTime: Int64 = StatStamp.settleTime

    private let file: StateFile<Document>
    private let settleTime: Int64

    /// The cache kept in `folder`; files changed less than `settleTime` nanoseconds ago are not remembered.
    init(folder: HostRecords, settleTime: Int64 = DigestCache.settleTime) {
        file = StateFile(path: folder.file(Self.fileName), what: "the plugin digest cache", empty: { Document() })
        self.settleTime = settleTime
    }

    /// What the cache holds for `path`, if anything.
    func entry(for path: String) -> Entry? {
        (try? file.read())?.files[path]
    }

    /// Replaces what the cache holds for `path` (tests).
    func remember(_ entry: Entry, for path: String) throws(AutofillError) {
        try file.update { (document: inout Document) throws(AutofillError) in document.files[path] = entry }
    }

    /// The SHA-256 of the file at `path`: remembered when its stamp is the one recorded, else computed
    /// (and remembered when the file has settled). A cache that cannot be read or written only costs
    /// the hashing.
    func sha256(ofFileAt path: String) throws(AutofillError) -> String {
        let before = Stamp(path: path)
        if let before, let entry = (try? file.read())?.files[path], entry.stamp == before {
            return entry.sha256
        }
        let digest = try PluginFingerprint.sha256(ofFileAt: path)
        guard let before, Stamp(path: path) == before, before.isSettled(settleTime: settleTime) else { return digest }
        try? file.update { (document: inout Document) throws(AutofillError) in
            document.files = document.files.filter { Paths.exists($0.key) }
            document.files[path] = Entry(stamp: before, sha256: digest)
        }
        return digest
    }
}
