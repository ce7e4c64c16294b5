public import Foundation

/// KeePass XML for `keepassxc-cli import`: entries with any attributes, a recycle bin, expiry.
public struct KeePassXML {
    /// One entry.
    public struct Entry: Sendable {
        public var title: String
        public var user: String
        public var password: String
        public var url: String
        /// Other attributes (`otp`, `KP2A_URL`, `KPEX_PASSKEY_*`, …), written with ProtectInMemory.
        public var fields: [String: String]
        public var expiry: Date?

        public init(title: String, user: String, password: String, url: String, fields: [String: String] = [:], expiry: Date? = nil) {
            self.title = title
            self.user = user
            self.password = password
            self.url = url
            self.fields = fields
            self.expiry = expiry
        }
    }

    public var entries: [Entry]
    /// Entries in the recycle bin.
    public var recycled: [Entry]
    /// Whether entries carry CustomData, which makes KeePassXC write KDBX 4 instead of 3.1.
    public var kdbx4: Bool

    public init(entries: [Entry], recycled: [Entry] = [], kdbx4: Bool = true) {
        self.entries = entries
        self.recycled = recycled
        self.kdbx4 = kdbx4
    }

    static let binUUID = "AAAAAAAAAAAAAAAAAAAAAg=="

    /// The XML text.
    public var text: String {
        var counter = 16
        func uuid() -> String {
            counter += 1
            return Data((0..<16).map { UInt8(truncatingIfNeeded: $0 == 15 ? counter : $0 == 14 ? counter >> 8 : 0x40) }).base64EncodedString()
        }
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        func entry(_ e: Entry) -> String {
            let strings = [("Title", e.title, false), ("UserName", e.user, false), ("Password", e.password, true), ("URL", e.url, false)]
                + e.fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value, true) }
            let times = e.expiry.map { "<Times><Expires>True</Expires><ExpiryTime>\(ISO8601DateFormatter().string(from: $0))</ExpiryTime></Times>" } ?? ""
            let custom = kdbx4 ? "<CustomData><Item><Key>autofill-test</Key><Value>1</Value></Item></CustomData>" : ""
            return "<Entry><UUID>\(uuid())</UUID>\(times)"
                + strings.map { "<String><Key>\(escape($0.0))</Key><Value\($0.2 ? " ProtectInMemory=\"True\"" : "")>\(escape($0.1))</Value></String>" }.joined()
                + "\(custom)</Entry>\n"
        }
        return """
            <?xml version="1.0" encoding="utf-8" standalone="yes"?>
            <KeePassFile><Meta><Generator>autofill tests</Generator><DatabaseName>Tests</DatabaseName>
            <RecycleBinEnabled>True</RecycleBinEnabled><RecycleBinUUID>\(Self.binUUID)</RecycleBinUUID></Meta>
            <Root><Group><UUID>AAAAAAAAAAAAAAAAAAAAAQ==</UUID><Name>Root</Name>
            \(entries.map(entry).joined())<Group><UUID>\(Self.binUUID)</UUID><Name>Recycle Bin</Name>
            \(recycled.map(entry).joined())</Group></Group></Root></KeePassFile>
            """
    }
}
