internal import Foundation
internal import Crypto

/// A KeePass key file's 32-byte key, read the way KeePass and KeePassXC read one:
///
/// * XML, version 1.0 (`<Key><Data>` base64) or 2.0 (`<Data Hash="…">` hex, whose SHA-256 must start
///   with the 4-byte hash);
/// * exactly 32 bytes: the key itself;
/// * exactly 64 hexadecimal characters: the key, hex-encoded (a space or line break among them makes
///   it "anything else", as in KeePass and KeePassXC);
/// * anything else: the SHA-256 of the whole file.
public struct KeyFile: Sendable, CustomStringConvertible {
    /// The key (32 bytes).
    let key: [UInt8]

    public var description: String { "KeyFile(<REDACTED>)" }

    /// Reads the key file at `path`.
    public init(contentsOf path: String) throws(KDBXError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KDBXError(.keyFile, "the key file \(path) cannot be read: check the KeyFile setting and the file's permissions")
        }
        try self.init(bytes: [UInt8](data), path: path)
    }

    /// The key of a key file holding `bytes`; `path` is for messages only.
    init(bytes: [UInt8], path: String) throws(KDBXError) {
        if let xml = try KeyFileXML.key(in: bytes, path: path) {
            key = xml
        } else if bytes.count == 32 {
            key = bytes
        } else if bytes.count == 64, let decoded = Self.hex(bytes) {
            key = decoded
        } else {
            key = Array(SHA256.hash(data: bytes))
        }
    }

    /// `digits` (hexadecimal) as bytes, or nil if they hold anything else.
    static func hex(_ digits: [UInt8]) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
