internal import Foundation
#if canImport(FoundationXML)
internal import FoundationXML
#endif
internal import Crypto

/// The XML key file formats (KeePass 2.x: version 1.0 base64, version 2.0 hex with a hash).
enum KeyFileXML {
    /// The key in `bytes` when they are an XML key file; nil when they are not XML at all.
    static func key(in bytes: [UInt8], path: String) throws(KDBXError) -> [UInt8]? {
        let start = bytes.drop { $0 == 0xEF || $0 == 0xBB || $0 == 0xBF || $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard start.first == UInt8(ascii: "<") else { return nil }
        let reader = Reader()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = reader
        guard parser.parse(), reader.sawKeyFile else { return nil }  // not a key file: hashed like any file
        guard let data = reader.data else {
            throw KDBXError(.keyFile, "the key file \(path) is KeePass XML without a <Key><Data> element: it is damaged")
        }
        if reader.version.hasPrefix("2.") {
            guard let key = KeyFile.hex(Array(data.utf8)), key.count == 32 else {
                throw KDBXError(.keyFile, "the key file \(path) (XML version 2.0) does not hold 32 hexadecimal bytes: it is damaged")
            }
            if let hash = reader.dataHash.flatMap({ KeyFile.hex(Array($0.utf8)) }), Array(SHA256.hash(data: key).prefix(hash.count)) != hash {
                throw KDBXError(.keyFile, "the key file \(path) fails its own checksum (Hash attribute): it is damaged")
            }
            return key
        }
        guard let key = Data(base64Encoded: data.trimmingCharacters(in: .whitespacesAndNewlines)), key.count == 32 else {
            throw KDBXError(.keyFile, "the key file \(path) (XML version 1.0) does not hold a 32-byte base64 key: it is damaged")
        }
        return [UInt8](key)
    }

    /// Collects `KeyFile/Meta/Version`, `KeyFile/Key/Data` and its `Hash`.
    private final class Reader: NSObject, XMLParserDelegate {
        var path: [String] = []
        var text = ""
        var version = ""
        var data: String?
        var dataHash: String?
        var sawKeyFile = false

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            path.append(name)
            text = ""
            if path == ["KeyFile"] { sawKeyFile = true }
            if path == ["KeyFile", "Key", "Data"] { dataHash = attributes["Hash"] }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch path {
            case ["KeyFile", "Meta", "Version"]: version = text.trimmingCharacters(in: .whitespacesAndNewlines)
            case ["KeyFile", "Key", "Data"]: data = text
            default: break
            }
            path.removeLast()
            text = ""
        }
    }
}
