internal import Foundation

/// Writes XML text to a sink: start and end tags (a start tag left open until its content or end,
/// so an empty element is written `<X/>`), escaped text, and held ``XMLNode``s, protected values
/// XORed with the new inner stream in document order.
final class XMLOutput {
    private let sink: any PayloadSink
    private let stream: InnerStream
    private var buffer: [UInt8] = []
    private var startOpen = false

    init(sink: any PayloadSink, stream: InnerStream) {
        self.sink = sink
        self.stream = stream
    }

    /// The XML declaration KeePass writes first.
    func declaration() {
        buffer += Array("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n".utf8)
    }

    func start(_ name: String, _ attributes: [(name: String, value: String)]) throws(KDBXError) {
        try closeStart()
        buffer += Array("<\(name)".utf8)
        for attribute in attributes {
            buffer += Array(" \(attribute.name)=\"".utf8)
            Self.escape(Array(attribute.value.utf8), into: &buffer, attribute: true)
            buffer.append(UInt8(ascii: "\""))
        }
        startOpen = true
    }

    func text(_ bytes: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
        guard !bytes.isEmpty else { return }
        try closeStart()
        Self.escape(bytes, into: &buffer, attribute: false)
        try flushIfFull()
    }

    func text(_ bytes: [UInt8]) throws(KDBXError) {
        var failure: KDBXError?
        bytes.withUnsafeBufferPointer { buffer in
            do throws(KDBXError) { try text(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// A protected value's plain bytes, XORed with the next bytes of the new stream, in base64.
    func protected(_ plain: [UInt8]) throws(KDBXError) {
        var bytes = plain
        defer { for index in bytes.indices { bytes[index] = 0 } }
        bytes = try stream.reveal(bytes)
        try text(Array(Data(bytes).base64EncodedString().utf8))
    }

    func end(_ name: String) throws(KDBXError) {
        if startOpen {
            buffer += Array("/>".utf8)
            startOpen = false
        } else {
            buffer += Array("</\(name)>".utf8)
        }
        try flushIfFull()
    }

    /// Writes a held element and everything in it.
    func write(_ node: XMLNode) throws(KDBXError) {
        try start(node.name, node.attributes)
        if let secret = node.secret {
            try protected(secret)
        } else {
            for child in node.children {
                switch child {
                case .text(let bytes): try text(bytes)
                case .element(let inner): try write(inner)
                }
            }
        }
        try end(node.name)
    }

    func finish() throws(KDBXError) {
        try closeStart()
        try sink.write(buffer)
        buffer = []
        try sink.finish()
    }

    private func closeStart() throws(KDBXError) {
        guard startOpen else { return }
        buffer.append(UInt8(ascii: ">"))
        startOpen = false
    }

    private func flushIfFull() throws(KDBXError) {
        guard buffer.count >= 1 << 16 else { return }
        try sink.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// `bytes` (UTF-8 text as the parser reported it) escaped: `&`, `<`, `>`, carriage returns (which
    /// a parser would otherwise turn into line feeds), and in attributes quotes, tabs and line feeds.
    static func escape(_ bytes: some Collection<UInt8>, into output: inout [UInt8], attribute: Bool) {
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "&"): output += Array("&amp;".utf8)
            case UInt8(ascii: "<"): output += Array("&lt;".utf8)
            case UInt8(ascii: ">"): output += Array("&gt;".utf8)
            case 13: output += Array("&#13;".utf8)
            case UInt8(ascii: "\"") where attribute: output += Array("&quot;".utf8)
            case 9 where attribute: output += Array("&#9;".utf8)
            case 10 where attribute: output += Array("&#10;".utf8)
            default: output.append(byte)
            }
        }
    }

    /// `text` without the characters XML 1.0 cannot hold (control characters other than tab, line feed
    /// and carriage return), as KeePassXC strips them: for values a user or site supplied.
    static func xmlSafe(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
            default: false
            }
        }))
    }
}
