internal import AutofillCore
internal import Foundation
#if canImport(FoundationXML)
internal import FoundationXML
#endif

/// Reads the decrypted XML of a database: the entries of every group (history left out), the
/// recycle bin, and Meta's HeaderHash (KDBX 3.1). Protected values are revealed with the inner
/// stream in document order, history entries' values included, as KeePass writes them.
final class KDBXDocument: NSObject, XMLParserDelegate {
    private let stream: InnerStream
    /// Whether times are base64 seconds since year 1 (KDBX 4) or ISO 8601 text (KDBX 3.1).
    private let binaryTimes: Bool

    private(set) var name = ""
    private(set) var headerHash: [UInt8]?
    private var recycleBin = ""
    private(set) var entries: [PendingEntry] = []
    private var failure: KDBXError?

    private var path: [String] = []
    private var text = ""
    private var isProtected = false
    /// Open groups: (UUID, name).
    private var groups: [(uuid: String, name: String)] = []
    private var entry: PendingEntry?
    private var stringKey = ""
    private var stringValue: Secret?
    private var historyDepth = 0
    /// One formatter for the document's ISO 8601 times (KDBX 3.1): making one is costly.
    private lazy var isoFormatter = ISO8601DateFormatter()

    /// An entry as read, before the recycle bin is known (Meta may name it after the entries).
    struct PendingEntry {
        var uuid = ""
        var strings: [String: Secret] = [:]
        var expires = false
        /// The ExpiryTime text, converted only when the entry expires (it comes before Expires).
        var expiryText = ""
        var groupUUIDs: [String] = []
        var groupNames: [String] = []
    }

    init(stream: InnerStream, binaryTimes: Bool) {
        self.stream = stream
        self.binaryTimes = binaryTimes
    }

    /// Parses `xml`; the database's entries.
    func read(_ xml: [UInt8]) throws(KDBXError) -> [KDBXEntry] {
        // A stream, parsed in chunks: given the whole document at once, Foundation's XMLParser on
        // Linux hands libxml2 one chunk, which it refuses past 10 MB (a database of 10,000 entries).
        let parser = XMLParser(stream: InputStream(data: Data(xml)))
        parser.delegate = self
        let parsed = parser.parse()
        if let failure { throw failure }
        guard parsed else {
            throw KDBXError(.corrupt, "the database's XML is malformed (line \(parser.lineNumber)): the file is damaged")
        }
        let bin = recycleBin.isEmpty || recycleBin == "AAAAAAAAAAAAAAAAAAAAAA==" ? nil : recycleBin
        return entries.map { pending in
            KDBXEntry(uuid: pending.uuid, strings: pending.strings, expiryTime: pending.expires ? time(pending.expiryText) : nil,
                      isInRecycleBin: bin.map { pending.groupUUIDs.contains($0) } ?? false, groupPath: Array(pending.groupNames.dropFirst()))
        }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        path.append(name)
        text = ""
        isProtected = attributes["Protected"]?.lowercased() == "true"
        switch name {
        case "Group" where entry == nil: groups.append((uuid: "", name: ""))
        case "History" where entry != nil: historyDepth += 1
        case "Entry" where historyDepth == 0 && entry == nil:
            entry = PendingEntry(groupUUIDs: groups.map(\.uuid), groupNames: groups.map(\.name))
        case "String": stringKey = ""; stringValue = nil
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        defer { path.removeLast(); text = ""; isProtected = false }
        let value: Secret
        if isProtected {
            // Consumes the stream even inside history, so later values line up.
            guard let revealed = reveal(text) else { return }
            value = revealed
        } else {
            value = Secret(text)
        }
        let parent = path.count >= 2 ? path[path.count - 2] : ""
        switch (parent, name) {
        case ("Meta", "DatabaseName"): self.name = value.revealed
        case ("Meta", "HeaderHash"): headerHash = Data(base64Encoded: value.revealed).map { [UInt8]($0) }
        case ("Meta", "RecycleBinUUID"): recycleBin = value.revealed
        case ("Group", "UUID") where entry == nil: groups[groups.count - 1].uuid = value.revealed
        case ("Group", "Name") where entry == nil: groups[groups.count - 1].name = value.revealed
        case (_, "Group") where entry == nil && !groups.isEmpty: groups.removeLast()
        case ("Entry", "UUID") where historyDepth == 0: entry?.uuid = value.revealed
        case ("Times", "Expires") where historyDepth == 0 && entry != nil: entry?.expires = value.revealed.lowercased() == "true"
        case ("Times", "ExpiryTime") where historyDepth == 0 && entry != nil: entry?.expiryText = value.revealed
        case ("String", "Key"): stringKey = value.revealed
        case ("String", "Value"): stringValue = value
        case ("Entry", "String") where historyDepth == 0: entry?.strings[stringKey] = stringValue ?? Secret("")
        case ("Entry", "History"): historyDepth -= 1
        case (_, "Entry") where historyDepth == 0:
            if let entry { entries.append(entry) }
            entry = nil
        default: break
        }
    }

    /// A protected value: base64 XORed with the inner stream.
    private func reveal(_ base64: String) -> Secret? {
        guard let data = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            failure = failure ?? KDBXError(.corrupt, "a protected value is not base64: the file is damaged")
            return nil
        }
        do {
            var plain = try stream.reveal([UInt8](data))
            defer { for index in plain.indices { plain[index] = 0 } }
            return Secret(String(decoding: plain, as: UTF8.self))
        } catch {
            failure = failure ?? error
            return nil
        }
    }

    /// A time: base64 of little-endian seconds since 0001-01-01 (KDBX 4), or ISO 8601 (KDBX 3.1).
    private func time(_ text: String) -> Date? {
        if binaryTimes, let data = Data(base64Encoded: text), data.count == 8 {
            let seconds = Int64(bitPattern: [UInt8](data).littleEndianInteger)
            return Date(timeIntervalSince1970: TimeInterval(seconds) - 62_135_596_800)
        }
        return isoFormatter.date(from: text)
    }
}
