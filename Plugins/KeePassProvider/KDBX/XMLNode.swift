/// One element of an entry held while it is rewritten: its attributes, its text and child elements
/// in order, and, for a protected value, the revealed bytes (re-encrypted when written).
final class XMLNode {
    enum Child {
        case element(XMLNode)
        case text([UInt8])
    }

    let name: String
    var attributes: [(name: String, value: String)]
    var children: [Child] = []
    /// A protected value's plain bytes (its base64 text while it is read).
    var secret: [UInt8]?

    init(_ name: String, attributes: [(name: String, value: String)] = [], text: String? = nil) {
        self.name = name
        self.attributes = attributes
        if let text, !text.isEmpty { children = [.text(Array(text.utf8))] }
    }

    deinit {
        if var secret { for index in secret.indices { secret[index] = 0 } }
    }

    var isProtected: Bool { attributes.contains { $0.name == "Protected" && $0.value.lowercased() == "true" } }

    var elements: [XMLNode] {
        var nodes: [XMLNode] = []
        for case .element(let node) in children { nodes.append(node) }
        return nodes
    }

    /// The first child element named `name`.
    func child(_ name: String) -> XMLNode? { elements.first { $0.name == name } }

    /// The element's text (its text children joined).
    var text: String {
        var bytes: [UInt8] = []
        for case .text(let run) in children { bytes += run }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Sets the text, dropping child elements.
    func setText(_ text: String) {
        children = text.isEmpty ? [] : [.text(Array(text.utf8))]
    }

    func append(_ node: XMLNode) { children.append(.element(node)) }

    /// A deep copy, without the children named `leaving`.
    func copy(leaving: String? = nil) -> XMLNode {
        let made = XMLNode(name, attributes: attributes)
        made.secret = secret
        made.children = children.compactMap { child in
            switch child {
            case .text: child
            case .element(let node): node.name == leaving ? nil : .element(node.copy())
            }
        }
        return made
    }
}
