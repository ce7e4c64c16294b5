import AutofillCore
import Foundation
import KDBX

/// KeePassXC's placeholders in an entry's title, user name, password and URL, resolved as KeePassXC
/// resolves them when it fills: `{TITLE}`, `{USERNAME}`, `{PASSWORD}`, `{URL}`, `{NOTES}`, `{S:Name}`
/// (a custom field), and field references `{REF:<wanted>@<search in>:<text>}` (wanted and search in
/// each T, U, P, A (URL), N (notes) or I (UUID, 32 hexadecimal digits); the first entry of the
/// database whose field equals the text, recycle bin included). Case does not matter; a placeholder
/// that names nothing stays as written; recursion stops 10 levels deep (KeePassXC's limit), so a
/// reference cycle ends instead of looping.
final class KeePassPlaceholders {
    static let maximumDepth = 10

    private let entries: [KDBXEntry]
    /// Entry positions by UUID as 32 uppercase hexadecimal digits, made at the first `{REF:…@I:…}`.
    private lazy var byUUID: [String: Int] = {
        var byUUID: [String: Int] = [:]
        for (position, entry) in entries.enumerated() {
            guard let hex = Self.hexUUID(entry.uuid), byUUID[hex] == nil else { continue }
            byUUID[hex] = position
        }
        return byUUID
    }()

    init(_ entries: [KDBXEntry]) {
        self.entries = entries
    }

    /// `entry` with placeholders in its title, user name, password and URL resolved; the entry itself
    /// when it has none (the common case costs a scan for "{").
    func resolved(_ entry: KDBXEntry) -> KDBXEntry {
        let values = [entry.title, entry.userName, entry.password.revealed, entry.url]
        guard values.contains(where: { $0.contains("{") }) else { return entry }
        let title = resolve(entry.title, of: entry, depth: Self.maximumDepth)
        let userName = resolve(entry.userName, of: entry, depth: Self.maximumDepth)
        let password = resolve(entry.password.revealed, of: entry, depth: Self.maximumDepth)
        let url = resolve(entry.url, of: entry, depth: Self.maximumDepth)
        return KDBXEntry(uuid: entry.uuid, title: title, userName: userName, password: Secret(password), url: url, additionalURLs: entry.additionalURLs,
                         fields: entry.fields, expiryTime: entry.expiryTime, isInRecycleBin: entry.isInRecycleBin, groupPath: entry.groupPath)
    }

    /// `text` with every `{…}` resolved in the context of `entry`, `depth` levels left.
    func resolve(_ text: String, of entry: KDBXEntry, depth: Int) -> String {
        guard depth > 0, text.contains("{") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            result += rest[..<open]
            let placeholder = rest[rest.index(after: open)..<close]
            result += value(of: placeholder, in: entry, depth: depth) ?? String(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// What a placeholder (without its braces) stands for; nil when it names nothing.
    private func value(of placeholder: Substring, in entry: KDBXEntry, depth: Int) -> String? {
        let upper = placeholder.uppercased()
        let raw: String?
        var context = entry
        switch upper {
        case "TITLE": raw = entry.title
        case "USERNAME": raw = entry.userName
        case "PASSWORD": raw = entry.password.revealed
        case "URL": raw = entry.url
        case "NOTES": raw = entry.fields["Notes"]?.revealed ?? ""
        case _ where upper.hasPrefix("S:"): raw = entry.fields[String(placeholder.dropFirst(2))]?.revealed
        case _ where upper.hasPrefix("REF:"):
            // REF:<wanted>@<search in>:<text>
            let body = Array(placeholder.dropFirst(4))
            guard body.count >= 4, body[1] == "@", body[3] == ":",
                  let found = find(String(body[4...]), in: Character(body[2].uppercased())) else { return nil }
            context = found
            raw = field(Character(body[0].uppercased()), of: found)
        default: raw = nil
        }
        return raw.map { resolve($0, of: context, depth: depth - 1) }
    }

    /// The first entry whose field `code` equals `text` (UUIDs: as hexadecimal, in any case).
    private func find(_ text: String, in code: Character) -> KDBXEntry? {
        if code == "I" { return byUUID[text.uppercased()].map { entries[$0] } }
        return entries.first { field(code, of: $0) == text }
    }

    private func field(_ code: Character, of entry: KDBXEntry) -> String? {
        switch code {
        case "T": entry.title
        case "U": entry.userName
        case "P": entry.password.revealed
        case "A": entry.url
        case "N": entry.fields["Notes"]?.revealed ?? ""
        case "I": Self.hexUUID(entry.uuid)
        default: nil
        }
    }

    /// A UUID as the XML has it (base64 of 16 bytes) in 32 uppercase hexadecimal digits.
    static func hexUUID(_ base64: String) -> String? {
        guard let bytes = Data(base64Encoded: base64), bytes.count == 16 else { return nil }
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
