internal import AutofillMatching
internal import Crypto
internal import FoundationEssentials

/// The passwords the host delivered recently: what an automatic passkey upgrade (conditional
/// registration) requires, so that only fills the host completed count. A password a provider
/// handed out but the user declined at the host's authentication is never recorded.
///
/// `fills.json` in the user's records folder (``HostRecords``: whatever the configuration says), 0600,
/// replaced atomically under a lock, like the trust records.
/// Each record is a time and a tag: SHA-256 of the provider id, the user name and one host the
/// password was filled for, once per parent domain down to the registrable domain, so a lookup by
/// relying party id (`example.com` for a fill at `login.example.com`) finds it without the file
/// listing sites or user names. Records older than ``window`` are dropped on every write, and at most
/// ``maximumRecords`` are kept.
public struct RecentFills: Sendable {
    struct Record: Codable, Sendable {
        var tag: String
        var time: Double
    }

    struct Document: Codable, Sendable {
        var version = 1
        var fills: [Record] = []
    }

    /// How recent a fill must be (5 minutes).
    public static let window: Double = 300
    /// The most records kept (the newest).
    static let maximumRecords = 256
    /// The file name inside the records folder.
    public static let fileName = "fills.json"

    private let file: StateFile<Document>
    private let now: @Sendable () -> Double

    /// The records kept in `folder`.
    public init(folder: HostRecords) {
        self.init(folder: folder, now: { Date().timeIntervalSince1970 })
    }

    /// The records kept in `folder`, with a clock of the caller's (tests).
    init(folder: HostRecords, now: @escaping @Sendable () -> Double) {
        file = StateFile(path: folder.file(Self.fileName), what: "the recent fills", empty: { Document() })
        self.now = now
    }

    /// Records that the host delivered `providerID`'s password for `user` at `host` now.
    public func record(providerID: String, user: String, host: String) throws(AutofillError) {
        let time = now()
        let tags = Self.hosts(from: host).map { Self.tag(providerID, user, $0) }
        try file.update { (document: inout Document) throws(AutofillError) in
            document.fills = document.fills.filter { $0.time > time - Self.window && $0.time <= time + 60 }
                + tags.map { Record(tag: $0, time: time) }
            document.fills = Array(document.fills.suffix(Self.maximumRecords))
        }
    }

    /// Whether the host delivered `providerID`'s password for `user` at `relyingParty` or one of its
    /// subdomains within ``window``.
    public func contains(providerID: String, user: String, relyingParty: String) -> Bool {
        guard let document = try? file.read() else { return false }
        let tag = Self.tag(providerID, user, relyingParty.lowercased())
        let time = now()
        return document.fills.contains { $0.tag == tag && $0.time > time - Self.window && $0.time <= time + 60 }
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
