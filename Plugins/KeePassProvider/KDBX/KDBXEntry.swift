public import AutofillCore
public import Foundation

/// One entry of a KeePass database, as the provider uses it. Every string field other than the
/// title, user name and URLs is kept as a ``Secret`` (`<REDACTED>` when printed).
public struct KDBXEntry: Sendable, CustomStringConvertible {
    /// The entry's UUID, base64 as in the XML: stable across saves.
    public let uuid: String
    public let title: String
    public let userName: String
    public let password: Secret
    /// The URL field.
    public let url: String
    /// KeePassXC's additional URLs: the `KP2A_URL`, `KP2A_URL_1`, … attributes, in key order.
    public let additionalURLs: [String]
    /// Every other string field (`otp`, `TOTP Seed`, `KPEX_PASSKEY_*`, notes, …), by key.
    public let fields: [String: Secret]
    /// When the entry expires, if it does.
    public let expiryTime: Date?
    /// Whether the entry is in the recycle bin (or a group under it).
    public let isInRecycleBin: Bool
    /// The names of its groups, from the root's child down.
    public let groupPath: [String]

    public init(uuid: String, title: String, userName: String, password: Secret, url: String, additionalURLs: [String],
                fields: [String: Secret], expiryTime: Date?, isInRecycleBin: Bool, groupPath: [String]) {
        self.uuid = uuid
        self.title = title
        self.userName = userName
        self.password = password
        self.url = url
        self.additionalURLs = additionalURLs
        self.fields = fields
        self.expiryTime = expiryTime
        self.isInRecycleBin = isInRecycleBin
        self.groupPath = groupPath
    }

    /// Whether the entry had expired at `now`.
    public func isExpired(at now: Date = Date()) -> Bool {
        expiryTime.map { $0 <= now } ?? false
    }

    /// Every URL of the entry: the URL field, then the additional ones; empty ones left out.
    public var urls: [String] {
        ([url] + additionalURLs).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    public var description: String {
        "KDBXEntry(\(title), user: \(userName), url: \(url), password: <REDACTED>, fields: \(fields.keys.sorted()))"
    }

    /// Builds an entry from its XML string fields.
    init(uuid: String, strings: [String: Secret], expiryTime: Date?, isInRecycleBin: Bool, groupPath: [String]) {
        var fields = strings
        let title = fields.removeValue(forKey: "Title")?.revealed ?? ""
        let userName = fields.removeValue(forKey: "UserName")?.revealed ?? ""
        let password = fields.removeValue(forKey: "Password") ?? Secret("")
        let url = fields.removeValue(forKey: "URL")?.revealed ?? ""
        let urlKeys = fields.keys.filter { $0 == "KP2A_URL" || $0.hasPrefix("KP2A_URL_") }
            .sorted { ($0 == "KP2A_URL" ? 0 : Int($0.dropFirst(9)) ?? Int.max) < ($1 == "KP2A_URL" ? 0 : Int($1.dropFirst(9)) ?? Int.max) }
        let additional = urlKeys.compactMap { fields.removeValue(forKey: $0)?.revealed }
        self.init(uuid: uuid, title: title, userName: userName, password: password, url: url, additionalURLs: additional,
                  fields: fields, expiryTime: expiryTime, isInRecycleBin: isInRecycleBin, groupPath: groupPath)
    }
}
