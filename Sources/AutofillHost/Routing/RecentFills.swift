internal import AutofillSystem
internal import AutofillMatching
internal import Crypto
internal import FoundationEssentials

/// The passwords the host delivered recently: what an automatic passkey upgrade (conditional
/// registration) requires, so that only fills the host completed count. A password a provider
/// handed out but the user declined at the host's authentication is never recorded.
///
/// `fills.log` in the user's records folder (``HostRecords``: whatever the configuration says), 0600:
/// an append-only journal (``FillJournal``), so recording a fill appends one line under a lock
/// instead of rewriting a file. Each record is a time and a tag: SHA-256 of the provider id, the user
/// name and one host the password was filled for, once per parent domain down to the registrable
/// domain, so a lookup by relying party id (`example.com` for a fill at `login.example.com`) finds
/// it without the file listing sites or user names. Records older than ``window`` do not count, and
/// compaction keeps at most ``maximumRecords`` (the newest) within it. (Before the journal the records
/// were `fills.json`, rewritten on every fill; the first compaction removes that file.)
public struct RecentFills: Sendable {
    typealias Record = FillJournal.Record

    /// How recent a fill must be (5 minutes).
    public static let window: Double = 300
    /// The most records a compaction keeps (the newest).
    static let maximumRecords = 256
    /// The file name inside the records folder.
    public static let fileName = "fills.log"
    /// The file the records were kept in before the journal.
    static let formerFileName = "fills.json"

    private let journal: FillJournal
    private let former: String
    private let now: @Sendable () -> Double

    /// The records kept in `folder`.
    public init(folder: HostRecords) {
        self.init(folder: folder, now: { Date().timeIntervalSince1970 })
    }

    /// The records kept in `folder`, with a clock of the caller's (tests).
    init(folder: HostRecords, now: @escaping @Sendable () -> Double) {
        journal = FillJournal(path: folder.file(Self.fileName))
        former = folder.file(Self.formerFileName)
        self.now = now
    }

    /// Records that the host delivered `providerID`'s password for `user` at `host` now.
    public func record(providerID: String, user: String, host: String) throws(AutofillError) {
        let time = now()
        let tags = Self.hosts(from: host).map { Self.tag(providerID, user, $0) }
        let former = self.former
        try journal.append(tags.map { Record(tag: $0, time: time) }) { records in
            try? Paths.remove(former)
            return Array(records.filter { Self.counts($0, at: time) }.suffix(max(0, Self.maximumRecords - tags.count)))
        }
    }

    /// Whether the host delivered `providerID`'s password for `user` at `relyingParty` or one of its
    /// subdomains within ``window``.
    public func contains(providerID: String, user: String, relyingParty: String) -> Bool {
        guard let records = try? journal.records() else { return false }
        let tag = Self.tag(providerID, user, relyingParty.lowercased())
        let time = now()
        return records.contains { $0.tag == tag && Self.counts($0, at: time) }
    }

    /// Whether `record` is within ``window`` of `time` (and not over a minute ahead of it: a clock set back).
    static func counts(_ record: Record, at time: Double) -> Bool {
        record.time > time - window && record.time <= time + 60
    }

    /// `host` and its parent domains down to the registrable domain ("login.example.com",
    /// "example.com"); an IP address or a host without one, alone.
    static func hosts(from host: String) -> [String] {
        let host = host.lowercased()
        guard let registrable = PublicSuffixList.shared.registrableDomain(host), host.hasSuffix(registrable) else { return [host] }
        var hosts = [host]
        var rest = Substring(host)
        while rest.count > registrable.count, let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            hosts.append(String(rest))
        }
        return hosts
    }

    static func tag(_ providerID: String, _ user: String, _ host: String) -> String {
        let digest = SHA256.hash(data: Array("autofill recent fill v1\0\(providerID)\0\(user)\0\(host)".utf8))
        return digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
