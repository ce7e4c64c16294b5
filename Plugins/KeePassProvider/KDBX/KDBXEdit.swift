public import AutofillCore
internal import Foundation

/// A change ``KDBXWriter`` makes to a database, as KeePassXC makes it.
public enum KDBXEdit: Sendable, CustomStringConvertible {
    /// A new entry in the root group, with these fields (Notes empty), its times now.
    case add(title: String, userName: String, password: Secret, url: String)
    /// The entry with this UUID gets `password`; its former state goes to its history (trimmed to
    /// Meta's HistoryMaxItems, oldest first) and its modification and access times are now.
    case setPassword(uuid: String, password: Secret)

    public var description: String {
        switch self {
        case .add(let title, let userName, _, let url): "add(\(title), user: \(userName), url: \(url), password: <REDACTED>)"
        case .setPassword(let uuid, _): "setPassword(\(uuid), <REDACTED>)"
        }
    }

    /// The new entry's element, as KeePassXC writes a new entry (`times`: the text of now).
    static func newEntry(title: String, userName: String, password: Secret, url: String, times: String) -> XMLNode {
        var random = SystemRandomNumberGenerator()
        let uuid = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString()
        let entry = XMLNode("Entry")
        entry.append(XMLNode("UUID", text: uuid))
        entry.append(XMLNode("IconID", text: "0"))
        entry.append(XMLNode("ForegroundColor"))
        entry.append(XMLNode("BackgroundColor"))
        entry.append(XMLNode("OverrideURL"))
        entry.append(XMLNode("Tags"))
        let timesNode = XMLNode("Times")
        for name in ["CreationTime", "LastModificationTime", "LastAccessTime", "ExpiryTime"] { timesNode.append(XMLNode(name, text: times)) }
        timesNode.append(XMLNode("Expires", text: "False"))
        timesNode.append(XMLNode("UsageCount", text: "0"))
        timesNode.append(XMLNode("LocationChanged", text: times))
        entry.append(timesNode)
        for (key, value) in [("Notes", ""), ("Password", nil), ("Title", title), ("URL", url), ("UserName", userName)] {
            let string = XMLNode("String")
            string.append(XMLNode("Key", text: key))
            if let value {
                string.append(XMLNode("Value", text: XMLOutput.xmlSafe(value)))
            } else {
                let protected = XMLNode("Value", attributes: [("Protected", "True")])
                protected.secret = Array(password.revealed.utf8)
                string.append(protected)
            }
            entry.append(string)
        }
        let autoType = XMLNode("AutoType")
        autoType.append(XMLNode("Enabled", text: "True"))
        autoType.append(XMLNode("DataTransferObfuscation", text: "0"))
        entry.append(autoType)
        entry.append(XMLNode("History"))
        return entry
    }

    /// Sets `entry`'s password to `password`, its former state appended to its history (at most
    /// `historyMaxItems` kept, oldest dropped first; negative: no limit), its times now.
    static func setPassword(of entry: XMLNode, to password: Secret, historyMaxItems: Int, times: String) {
        let former = entry.copy(leaving: "History")
        let strings = entry.elements.filter { $0.name == "String" }
        let existing = strings.first { $0.child("Key")?.text == "Password" }
        let string = existing ?? XMLNode("String")
        if existing == nil {
            string.append(XMLNode("Key", text: "Password"))
            entry.children.insert(.element(string), at: insertionIndex(in: entry))
        }
        let value = string.child("Value") ?? {
            let made = XMLNode("Value")
            string.append(made)
            return made
        }()
        if !value.isProtected { value.attributes = value.attributes.filter { $0.name != "Protected" } + [("Protected", "True")] }
        value.children = []
        value.secret = Array(password.revealed.utf8)
        if let timesNode = entry.child("Times") {
            for name in ["LastModificationTime", "LastAccessTime"] {
                if let node = timesNode.child(name) { node.setText(times) } else { timesNode.append(XMLNode(name, text: times)) }
            }
        }
        let history = entry.child("History") ?? {
            let made = XMLNode("History")
            entry.append(made)
            return made
        }()
        history.append(former)
        if historyMaxItems >= 0 {
            var excess = history.elements.count - historyMaxItems
            history.children.removeAll { child in
                guard excess > 0, case .element = child else { return false }
                excess -= 1
                return true
            }
        }
    }

    /// Where a new String element goes: after the entry's last String (else before its History).
    private static func insertionIndex(in entry: XMLNode) -> Int {
        if let last = entry.children.lastIndex(where: { if case .element(let node) = $0 { node.name == "String" } else { false } }) {
            return last + 1
        }
        return entry.children.firstIndex { if case .element(let node) = $0 { node.name == "History" } else { false } } ?? entry.children.count
    }
}
