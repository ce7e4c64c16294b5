
/// An opened KeePass database: its entries (history left out), read-only.
public struct KDBXDatabase: Sendable, CustomStringConvertible {
    /// The format version, "3.1" or "4.0"/"4.1".
    public let formatVersion: String
    /// The database's name (Meta/DatabaseName).
    public let name: String
    /// Every current entry, recycle-bin ones included (``KDBXEntry/isInRecycleBin`` says which).
    public let entries: [KDBXEntry]

    public init(formatVersion: String, name: String, entries: [KDBXEntry]) {
        self.formatVersion = formatVersion
        self.name = name
        self.entries = entries
    }

    public var description: String { "KDBXDatabase(KDBX \(formatVersion), \(entries.count) entries)" }
}
