internal import Foundation

/// Copies a decrypted database document to an ``XMLOutput``, element by element, applying one
/// ``KDBXEdit``: every protected value is revealed with the old inner stream and written with the
/// new one, in document order; everything else (other entries, groups, history, attachments' text,
/// deleted objects, icons, custom data) is copied as read. Each entry of a group is held while it is
/// read (entries are small; attachments sit in Meta or the inner header) and written when it ends,
/// changed if it is the one edited; a new entry goes at the end of the root group's entries (before
/// its first subgroup). KDBX 3.1's Meta/HeaderHash gets the new header's hash (added when missing).
///
/// Where an element is says what it is, as in ``KDBXDocument``; a protected value holding elements
/// (no KeePass writes one) ends in an error, so nothing is written.
final class KDBXRewriter: XMLEventHandler {
    private let reading: InnerStream
    private let output: XMLOutput
    private let binaryTimes: Bool
    private let edit: KDBXEdit
    /// KDBX 3.1: the new header's SHA-256, for Meta/HeaderHash; nil for KDBX 4.
    private let headerHash: [UInt8]?
    private lazy var parser = XMLEventParser(handler: self, what: "the database's XML")

    private enum Role: Equatable { case document, meta, root, group, headerHash, historyMaxItems, other }
    private var roles: [Role] = []
    /// Open groups (the root group is the first).
    private var groupDepth = 0
    private var rootGroupSeen = false
    /// The base64 text of the open protected element (streamed part).
    private var protectedText: [UInt8]?
    private var historyText: [UInt8] = []
    /// Meta's HistoryMaxItems (KeePassXC's default until read).
    private var historyMaxItems = 10
    private var wroteHeaderHash = false
    /// The entry being read: its elements, outermost first.
    private var held: [XMLNode] = []
    /// Whether the edit was made.
    private(set) var applied = false
    private lazy var now: String = Self.timeText(Date(), binary: binaryTimes)

    init(reading: InnerStream, output: XMLOutput, binaryTimes: Bool, edit: KDBXEdit, headerHash: [UInt8]?) {
        self.reading = reading
        self.output = output
        self.binaryTimes = binaryTimes
        self.edit = edit
        self.headerHash = headerHash
    }

    /// Rewrites the whole document `xml`, then ends the output.
    func rewrite(_ xml: [UInt8]) throws(KDBXError) {
        try parser.parse(xml)
        guard applied else {
            switch edit {
            case .add: throw KDBXError(.corrupt, "the database has no root group to add the entry to: the file is damaged")
            case .setPassword: throw KDBXError(.corrupt, "the entry to change is no longer in the database")
            }
        }
        try output.finish()
    }

    func startElement(_ name: String, attributes: [String: String]) throws(KDBXError) {
        let ordered = attributes.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        if let parent = held.last {
            guard parent.secret == nil else { throw Self.nested }
            let node = XMLNode(name, attributes: ordered)
            if node.isProtected { node.secret = [] }
            parent.append(node)
            held.append(node)
            return
        }
        guard protectedText == nil else { throw Self.nested }
        let parent = roles.last
        let role: Role
        switch (parent, name) {
        case (nil, _): role = .document
        case (.document, "Meta") where roles.count == 1: role = .meta
        case (.document, "Root") where roles.count == 1: role = .root
        case (.meta, "HeaderHash") where headerHash != nil: role = .headerHash
        case (.meta, "HistoryMaxItems"): role = .historyMaxItems
        case (.root, "Group") where !rootGroupSeen, (.group, "Group"):
            if parent == .group, groupDepth == 1 { try addEntryIfAsked() }
            rootGroupSeen = true
            groupDepth += 1
            role = .group
        case (.group, "Entry"):
            let node = XMLNode(name, attributes: ordered)
            held = [node]
            return
        default: role = .other
        }
        roles.append(role)
        try output.start(name, ordered)
        if attributes["Protected"]?.lowercased() == "true" { protectedText = [] }
        if role == .historyMaxItems { historyText = [] }
    }

    func characters(_ run: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        if let node = held.last {
            if node.secret != nil {
                node.secret! += run
            } else if case .text = node.children.last, case .text(var text) = node.children.removeLast() {
                text += run  // moved out of the array first, so appending does not copy it
                node.children.append(.text(text))
            } else {
                node.children.append(.text(Array(run)))
            }
            return
        }
        if protectedText != nil { protectedText! += run; return }
        switch roles.last {
        case .headerHash: return  // replaced at its end
        case .historyMaxItems: historyText += run
        default: break
        }
        try output.text(run)
    }

    func endElement(_ name: String) throws(KDBXError) {
        if let node = held.popLast() {
            if var base64 = node.secret {
                node.secret = try reveal(base64)
                for index in base64.indices { base64[index] = 0 }
            }
            if held.isEmpty { try endEntry(node) }
            return
        }
        guard let role = roles.popLast() else { return }
        if var base64 = protectedText {
            protectedText = nil
            var plain = try reveal(base64)
            for index in base64.indices { base64[index] = 0 }
            try output.protected(plain)
            for index in plain.indices { plain[index] = 0 }
        }
        switch role {
        case .headerHash:
            try output.text(Array(Data(headerHash ?? []).base64EncodedString().utf8))
            wroteHeaderHash = true
        case .meta where headerHash != nil && !wroteHeaderHash:
            try output.write(XMLNode("HeaderHash", text: Data(headerHash ?? []).base64EncodedString()))
        case .historyMaxItems:
            historyMaxItems = Int(String(decoding: historyText, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? historyMaxItems
        case .group:
            if groupDepth == 1 { try addEntryIfAsked() }
            groupDepth -= 1
        default: break
        }
        try output.end(name)
    }

    /// An entry of a group has ended: changed if it is the one edited, then written.
    private func endEntry(_ entry: XMLNode) throws(KDBXError) {
        if case .setPassword(let uuid, let password) = edit, !applied,
           entry.child("UUID")?.text.trimmingCharacters(in: .whitespacesAndNewlines) == uuid {
            KDBXEdit.setPassword(of: entry, to: password, historyMaxItems: historyMaxItems, times: now)
            applied = true
        }
        try output.write(entry)
    }

    /// Writes the new entry into the root group, once, when the edit adds one.
    private func addEntryIfAsked() throws(KDBXError) {
        guard case .add(let title, let userName, let password, let url) = edit, !applied else { return }
        try output.write(KDBXEdit.newEntry(title: title, userName: userName, password: password, url: url, times: now))
        applied = true
    }

    /// A protected value's base64 text revealed with the old inner stream.
    private func reveal(_ base64: [UInt8]) throws(KDBXError) -> [UInt8] {
        let text = String(decoding: base64, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let data = Data(base64Encoded: text) else { throw KDBXError(.corrupt, "a protected value is not base64: the file is damaged") }
        return try reading.reveal([UInt8](data))
    }

    private static let nested = KDBXError(.corrupt, "a protected value holds XML elements (no KeePass writes that): the file is damaged, and is not written")

    /// A time as the format writes it: base64 of little-endian seconds since 0001-01-01 (KDBX 4), or
    /// ISO 8601 in UTC (KDBX 3.1).
    static func timeText(_ date: Date, binary: Bool) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        if binary {
            return Data([UInt8](littleEndian: UInt64(bitPattern: seconds + 62_135_596_800), size: 8)).base64EncodedString()
        }
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
