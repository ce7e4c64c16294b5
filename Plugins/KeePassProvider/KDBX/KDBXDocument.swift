internal import AutofillCore
internal import Foundation

/// Reads the decrypted XML of a database as it streams in: the entries of every group (history left
/// out), the recycle bin, and Meta's HeaderHash (KDBX 3.1). Protected values are revealed with the
/// inner stream in document order, history entries' and attachments' included, as KeePass writes
/// them; only the text of the fields used is kept (an attachment is counted past, never held).
///
/// Where an element is, not only its name, says what it is: a `Group` is a group only directly under
/// `Root` or a group, an `Entry` only directly under a group, so a hostile nesting (a group inside an
/// entry, a history outside one) is read as nothing rather than upsetting the state.
final class KDBXDocument: XMLEventHandler, PayloadSink {
    private let stream: InnerStream
    /// Whether times are base64 seconds since year 1 (KDBX 4) or ISO 8601 text (KDBX 3.1).
    private let binaryTimes: Bool
    private lazy var parser = XMLEventParser(handler: self, what: "the database's XML")

    private(set) var name = ""
    private(set) var headerHash: [UInt8]?
    private var recycleBin = ""
    private var pending: [PendingEntry] = []

    /// What each open element is.
    private enum Role: Equatable {
        case root, meta, group, entry, times, history, string
        /// A text field that is kept.
        case field(Field)
        case other
    }

    private enum Field: Equatable {
        case databaseName, headerHash, recycleBin, groupUUID, groupName, entryUUID, expires, expiryTime, stringKey, stringValue
    }

    private var roles: [Role] = []
    /// The open groups' (UUID, name), root first.
    private var groups: [(uuid: String, name: String)] = []
    private var entry: PendingEntry?
    private var stringKey = ""
    private var stringValue: Secret?
    /// The text of the open element, when kept; the base64 characters of a protected value that is
    /// not (it still moves the inner stream on).
    private var text: [UInt8] = []
    private var isProtected = false
    private var skippedBase64 = 0
    /// The bytes of text kept so far, and the most kept: a hostile database of huge fields ends in an
    /// error instead of exhausting the helper's memory (a 100,000-entry database keeps about 20 MB).
    private var kept = 0
    static let maximumKept = 256 << 20
    /// One formatter for the document's ISO 8601 times (KDBX 3.1): making one is costly.
    private lazy var isoFormatter = ISO8601DateFormatter()

    /// An entry as read, before the recycle bin is known (Meta may name it after the entries).
    private struct PendingEntry {
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

    func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(KDBXError) { try parser.feed(bytes) }
    func finish() throws(KDBXError) { try parser.finish() }

    /// The entries read, once the document has ended.
    func entries() -> [KDBXEntry] {
        let bin = recycleBin.isEmpty || recycleBin == "AAAAAAAAAAAAAAAAAAAAAA==" ? nil : recycleBin
        return pending.map { pending in
            KDBXEntry(uuid: pending.uuid, strings: pending.strings, expiryTime: pending.expires ? time(pending.expiryText) : nil,
                      isInRecycleBin: bin.map { pending.groupUUIDs.contains($0) } ?? false, groupPath: Array(pending.groupNames.dropFirst()))
        }
    }

    func startElement(_ name: String, attributes: [String: String]) throws(KDBXError) {
        let parent = roles.last
        let role: Role
        switch (parent, name) {
        case (nil, "KeePassFile"): role = .other
        case (.other, "Meta") where roles.count == 1: role = .meta
        case (.other, "Root") where roles.count == 1: role = .root
        case (.meta, "DatabaseName"): role = .field(.databaseName)
        case (.meta, "HeaderHash"): role = .field(.headerHash)
        case (.meta, "RecycleBinUUID"): role = .field(.recycleBin)
        case (.root, "Group"), (.group, "Group"):
            role = .group
            groups.append((uuid: "", name: ""))
        case (.group, "UUID"): role = .field(.groupUUID)
        case (.group, "Name"): role = .field(.groupName)
        case (.group, "Entry"):
            role = .entry
            entry = PendingEntry(groupUUIDs: groups.map(\.uuid), groupNames: groups.map(\.name))
        case (.entry, "UUID"): role = .field(.entryUUID)
        case (.entry, "History"): role = .history
        case (.entry, "String"):
            role = .string
            stringKey = ""
            stringValue = nil
        case (.string, "Key"): role = .field(.stringKey)
        case (.string, "Value"): role = .field(.stringValue)
        case (.entry, "Times"): role = .times
        case (.times, "Expires"): role = .field(.expires)
        case (.times, "ExpiryTime"): role = .field(.expiryTime)
        default: role = .other
        }
        roles.append(role)
        text = []
        skippedBase64 = 0
        isProtected = attributes["Protected"]?.lowercased() == "true"
    }

    func characters(_ run: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        guard case .field = roles.last else {
            // Not kept; a protected value still moves the inner stream on by its decoded length.
            if isProtected { skippedBase64 += run.reduce(0) { $0 + (Self.isBase64Digit($1) ? 1 : 0) } }
            return
        }
        kept += run.count
        guard kept <= Self.maximumKept else {
            throw KDBXError(.unsupported, "the database's entries hold more than \(Self.maximumKept >> 20) MiB of text, where this reader stops: the file is not read")
        }
        text += run
    }

    func endElement(_ name: String) throws(KDBXError) {
        guard let role = roles.popLast() else { return }
        defer { text = []; skippedBase64 = 0; isProtected = false }
        switch role {
        case .group:
            groups.removeLast()
        case .entry:
            if let entry { pending.append(entry) }
            entry = nil
        case .string:
            if roles.last == .entry { entry?.strings[stringKey] = stringValue ?? Secret("") }
        case .field(let field):
            let value = isProtected ? try reveal() : Secret(String(decoding: text, as: UTF8.self))
            assign(value, to: field)
        case .other where isProtected:
            try stream.skip(skippedBase64 * 6 / 8)
        default:
            break
        }
    }

    private func assign(_ value: Secret, to field: Field) {
        switch field {
        case .databaseName: name = value.revealed
        case .headerHash: headerHash = Data(base64Encoded: value.revealed.trimmingCharacters(in: .whitespacesAndNewlines)).map { [UInt8]($0) }
        case .recycleBin: recycleBin = value.revealed
        case .groupUUID: if !groups.isEmpty { groups[groups.count - 1].uuid = value.revealed }
        case .groupName: if !groups.isEmpty { groups[groups.count - 1].name = value.revealed }
        case .entryUUID: entry?.uuid = value.revealed
        case .expires: entry?.expires = value.revealed.lowercased() == "true"
        case .expiryTime: entry?.expiryText = value.revealed
        case .stringKey: stringKey = value.revealed
        case .stringValue: stringValue = value
        }
    }

    /// A protected value: base64 XORed with the inner stream.
    private func reveal() throws(KDBXError) -> Secret {
        let base64 = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let data = Data(base64Encoded: base64) else {
            throw KDBXError(.corrupt, "a protected value is not base64: the file is damaged")
        }
        var plain = try stream.reveal([UInt8](data))
        defer { for index in plain.indices { plain[index] = 0 } }
        return Secret(String(decoding: plain, as: UTF8.self))
    }

    private static func isBase64Digit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
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
