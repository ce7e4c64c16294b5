internal import Foundation
internal import Crypto

/// The XML key file formats (KeePass 2.x: version 1.0 base64, version 2.0 hex with a hash).
enum KeyFileXML {
    /// The key in `bytes` when they are an XML key file; nil when they are not one (malformed XML, or
    /// a KeyFile without <Key><Data>, included: KeePassXC then hashes the file like any other).
    static func key(in bytes: [UInt8], path: String) throws(KDBXError) -> [UInt8]? {
        let start = bytes.drop { $0 == 0xEF || $0 == 0xBB || $0 == 0xBF || $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard start.first == UInt8(ascii: "<") else { return nil }
        let reader = Reader()
        do {
            try XMLEventParser(handler: reader, what: "the key file").parse(bytes)
        } catch {
            return nil
        }
        // Not a key file, or one without <Key><Data>: hashed like any file, as KeePassXC does.
        guard reader.sawKeyFile, let data = reader.data else { return nil }
        if reader.version.hasPrefix("2.") {
            // KeePassXC removes every space and line break from the hex.
            guard let key = KeyFile.hex(Array(data.utf8).filter { !Self.isSpace($0) }), key.count == 32 else {
                throw KDBXError(.keyFile, "the key file \(path) (XML version 2.0) does not hold 32 hexadecimal bytes: it is damaged")
            }
            if let hash = reader.dataHash.flatMap({ KeyFile.hex(Array($0.utf8).filter { !Self.isSpace($0) }) }),
               Array(SHA256.hash(data: key).prefix(hash.count)) != hash {
                throw KDBXError(.keyFile, "the key file \(path) fails its own checksum (Hash attribute): it is damaged")
            }
            return key
        }
        guard let key = Data(base64Encoded: data.trimmingCharacters(in: .whitespacesAndNewlines)), key.count == 32 else {
            throw KDBXError(.keyFile, "the key file \(path) (XML version 1.0) does not hold a 32-byte base64 key: it is damaged")
        }
        return [UInt8](key)
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Collects `KeyFile/Meta/Version`, `KeyFile/Key/Data` and its `Hash`.
    private final class Reader: XMLEventHandler {
        var path: [String] = []
        var text: [UInt8] = []
        var version = ""
        var data: String?
        var dataHash: String?
        var sawKeyFile = false

        func startElement(_ name: String, attributes: [String: String]) throws(KDBXError) {
            path.append(name)
            text = []
            if path == ["KeyFile"] { sawKeyFile = true }
            if path == ["KeyFile", "Key", "Data"] { dataHash = attributes["Hash"] }
        }

        func characters(_ run: UnsafeBufferPointer<UInt8>) throws(KDBXError) {
            // A key file is small; a huge one is not a key file.
            guard text.count + run.count <= 1 << 20 else { throw KDBXError(.keyFile, "the key file's XML text is too large") }
            text += run
        }

        func endElement(_ name: String) throws(KDBXError) {
            switch path {
            case ["KeyFile", "Meta", "Version"]: version = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            case ["KeyFile", "Key", "Data"]: data = String(decoding: text, as: UTF8.self)
            default: break
            }
            path.removeLast()
            text = []
        }
    }
}
