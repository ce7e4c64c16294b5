import Crypto
import CZlib
import Foundation
import KDBX

/// One input of the corpus and what reads it.
struct Seed {
    enum Kind: String, CaseIterable { case xml, payload4, payload3, payload4gz, payload3gz, key, database }
    let kind: Kind
    let name: String
    let bytes: [UInt8]
}

/// The built-in seeds (a document of every structure the reader handles, its payload framings, key
/// files of each kind) and those of a corpus folder, named `<kind>-<anything>` (`database-*`
/// files open with the password "fuzz").
enum Seeds {
    static let document = """
        <?xml version="1.0" encoding="utf-8" standalone="yes"?>
        <KeePassFile><Meta><Generator>KeePassXC</Generator><HeaderHash>AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=</HeaderHash>
        <DatabaseName>Fuzz</DatabaseName><RecycleBinUUID>cmVjeWNsZWJpbnJlY3ljbA==</RecycleBinUUID>
        <Binaries><Binary ID="0" Compressed="False" Protected="True">QUJDREVGR0g=</Binary><Binary ID="1">SGVsbG8=</Binary></Binaries></Meta>
        <Root><Group><UUID>cm9vdHJvb3Ryb290cm9vdA==</UUID><Name>Root</Name>
        <Entry><UUID>ZW50cnllbnRyeWVudHJ5MQ==</UUID><Times><Expires>True</Expires><ExpiryTime>2020-01-01T00:00:00Z</ExpiryTime></Times>
        <String><Key>Title</Key><Value>Example {USERNAME}</Value></String><String><Key>UserName</Key><Value>alice</Value></String>
        <String><Key>Password</Key><Value Protected="True">c2VjcmV0</Value></String><String><Key>URL</Key><Value>https://example.com:8443/a</Value></String>
        <String><Key>otp</Key><Value Protected="True">b3RwYXV0aDovL3RvdHAveD9zZWNyZXQ9QUJD</Value></String>
        <Binary><Key>a.txt</Key><Value Ref="0"/></Binary>
        <History><Entry><UUID>ZW50cnllbnRyeWVudHJ5MQ==</UUID><String><Key>Password</Key><Value Protected="True">b2xk</Value></String></Entry></History></Entry>
        <Group><UUID>cmVjeWNsZWJpbnJlY3ljbA==</UUID><Name>Recycle Bin</Name>
        <Entry><UUID>ZW50cnllbnRyeWVudHJ5Mg==</UUID><String><Key>Password</Key><Value>{REF:P@I:656E747279656E747279656E74727931}</Value></String></Entry></Group>
        </Group><DeletedObjects/></Root></KeePassFile>
        """

    static let keyXML1 = "<?xml version=\"1.0\"?><KeyFile><Meta><Version>1.00</Version></Meta><Key><Data>AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=</Data></Key></KeyFile>"
    static let keyXML2 = """
        <?xml version="1.0" encoding="UTF-8"?>
        <KeyFile><Meta><Version>2.0</Version></Meta><Key><Data Hash="630DCD29">
        000102030405060708090A0B0C0D0E0F 101112131415161718191A1B1C1D1E1F
        </Data></Key></KeyFile>
        """

    static func builtIn() -> [Seed] {
        let xml = Array(document.utf8)
        let innerHeader: [UInt8] = [1, 4, 0, 0, 0, 3, 0, 0, 0, 2, 64, 0, 0, 0] + KDBXFuzzing.innerStreamKey
            + [3, 6, 0, 0, 0, 1, 65, 66, 67, 68, 69] + [0, 0, 0, 0, 0]
        let payload4 = innerHeader + xml
        let payload3 = hashedBlocks(xml)
        return [
            Seed(kind: .xml, name: "document", bytes: xml),
            Seed(kind: .payload4, name: "inner-header", bytes: payload4),
            Seed(kind: .payload3, name: "hashed-blocks", bytes: payload3),
            Seed(kind: .payload4gz, name: "inner-header-gzip", bytes: gzip(payload4)),
            Seed(kind: .payload3gz, name: "hashed-blocks-gzip", bytes: hashedBlocks(gzip(xml))),
            Seed(kind: .key, name: "xml-1.0", bytes: Array(keyXML1.utf8)),
            Seed(kind: .key, name: "xml-2.0", bytes: Array(keyXML2.utf8)),
            Seed(kind: .key, name: "hex-64", bytes: Array(String(repeating: "0123456789abcdef", count: 4).utf8)),
            Seed(kind: .key, name: "processing-instruction", bytes: Array("<?x?><KeyFile/>".utf8)),
        ]
    }

    /// The seeds in `folder`, by file name.
    static func load(_ folder: String) throws -> [Seed] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted().compactMap { name in
            guard let kind = Seed.Kind.allCases.first(where: { name.hasPrefix($0.rawValue + "-") }) else { return nil }
            return Seed(kind: kind, name: name, bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name)"))))
        }
    }

    /// KDBX 3.1's hashed blocks of `data` (blocks of at most 64 bytes, to have many).
    static func hashedBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index: UInt32 = 0
        var offset = 0
        while offset < data.count {
            let block = Array(data[offset..<min(offset + 64, data.count)])
            out += withUnsafeBytes(of: index.littleEndian, Array.init) + Array(SHA256.hash(data: block))
            out += withUnsafeBytes(of: UInt32(block.count).littleEndian, Array.init) + block
            offset += block.count
            index += 1
        }
        return out + withUnsafeBytes(of: index.littleEndian, Array.init) + [UInt8](repeating: 0, count: 36)
    }

    /// `data` gzip-compressed.
    static func gzip(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var input = data
        var output = [UInt8](repeating: 0, count: data.count + 1024)
        let size: Int = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                _ = deflate(&stream, Z_FINISH)
                return target.count - Int(stream.avail_out)
            }
        }
        return Array(output.prefix(size))
    }
}
