import AutofillCore
import AutofillTestSupport
import Foundation
import KDBX
import Testing

/// Key files of every kind KeePassXC accepts, on databases keepassxc-cli protected with them.
@Suite(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
struct KeyFileTests {
    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder("kdbx-keyfile") }

    /// The kinds of key file, by how each is made.
    enum Kind: String, CaseIterable {
        case generatedXML2, xml1, raw32, hex64, otherFileHashed
        /// 64 characters, hex digits and spaces: not hex, so hashed (KeePass and KeePassXC).
        case hex64WithSpaces
        /// Files keepassxc-cli accepts (hashed) that trapped Foundation's XML parser and killed the helper:
        /// a processing instruction without data, an element name that is not UTF-8.
        case processingInstruction, nonUTF8ElementName
        /// A KeyFile document without <Key><Data>: keepassxc-cli hashes it.
        case keyFileWithoutData
    }

    /// Writes a key file of `kind` (none for generatedXML2: keepassxc-cli makes it); its path.
    func keyFile(_ kind: Kind) throws -> String {
        let path = "\(folder.path)/\(kind.rawValue).key"
        let random = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let bytes: [UInt8]
        switch kind {
        case .generatedXML2: return path
        case .xml1:
            bytes = Array("""
                <?xml version="1.0" encoding="utf-8"?>
                <KeyFile><Meta><Version>1.00</Version></Meta><Key><Data>\(Data(random).base64EncodedString())</Data></Key></KeyFile>
                """.utf8)
        case .raw32: bytes = random
        case .hex64: bytes = Array(random.map { String(format: "%02x", $0) }.joined().utf8)
        case .otherFileHashed: bytes = Array("any file at all: a photo, a song\n".utf8) + random
        case .hex64WithSpaces: bytes = Array((random.prefix(21).map { String(format: "%02x", $0) }.joined(separator: " ") + " a").utf8)
        case .processingInstruction: bytes = Array("<?x?>".utf8) + random
        case .nonUTF8ElementName: bytes = [0x3C, 0x61, 0xFF, 0xFE, 0x2F, 0x3E] + random
        case .keyFileWithoutData:
            let note = random.map { String(format: "%02x", $0) }.joined()
            bytes = Array("<?xml version=\"1.0\"?><KeyFile><Meta><Version>2.0</Version><Note>\(note)</Note></Meta></KeyFile>".utf8)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: Kind.allCases)
    func opensADatabaseProtectedByAPasswordAndAKeyFile(kind: Kind) throws {
        let keyPath = try keyFile(kind)
        let path = "\(folder.path)/\(kind.rawValue).kdbx"
        let key = KeePassXC.Key(password: "pw", keyFile: keyPath)
        try KeePassXC.create(path, key: key)
        try KeePassXC.add(path, key: key, title: "E", user: "u", url: "https://e.example", password: "with-\(kind.rawValue)")
        let database = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw"), keyFile: try KeyFile(contentsOf: keyPath)))
        #expect(database.entries.first?.password.revealed == "with-\(kind.rawValue)")
    }

    @Test func opensADatabaseProtectedByAKeyFileAlone() throws {
        let keyPath = try keyFile(.generatedXML2)
        let path = "\(folder.path)/keyonly.kdbx"
        let key = KeePassXC.Key(password: nil, keyFile: keyPath)
        try KeePassXC.create(path, key: key)
        try KeePassXC.add(path, key: key, title: "E", user: "u", url: "https://e.example", password: "key-only")
        let database = try KDBXReader.open(at: path, key: CompositeKey(password: nil, keyFile: try KeyFile(contentsOf: keyPath)))
        #expect(database.entries.first?.password.revealed == "key-only")
    }

    @Test func aWrongKeyFileIsAWrongKey() throws {
        let path = "\(folder.path)/keyed.kdbx"
        try KeePassXC.create(path, key: KeePassXC.Key(password: "pw", keyFile: try keyFile(.generatedXML2)))
        let other = try keyFile(.raw32)
        #expect(throws: KDBXError.self) {
            try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw"), keyFile: try KeyFile(contentsOf: other)))
        }
        do {
            _ = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw"), keyFile: try KeyFile(contentsOf: other)))
        } catch {
            #expect(error.code == .wrongKey)
            #expect(error.message.contains("key file"))
        }
    }

    @Test func anXMLKeyFileFailingItsOwnHashIsRefusedNamingTheFile() throws {
        let path = try folder.file("broken.keyx", """
            <?xml version="1.0" encoding="UTF-8"?>
            <KeyFile><Meta><Version>2.0</Version></Meta><Key><Data Hash="00000000">
            F6F8C226 EF9C7047 5249796A E878906A BE8DF3B0 87CEF460 8AB0206F 20FB9411</Data></Key></KeyFile>
            """)
        #expect {
            _ = try KeyFile(contentsOf: path)
        } throws: { error in
            (error as? KDBXError)?.code == .keyFile && "\(error)".contains(path) && !"\(error)".contains("F6F8C226")
        }
    }

    @Test func aMissingKeyFileSaysWhichSettingToCheck() {
        #expect {
            _ = try KeyFile(contentsOf: "\(folder.path)/absent.keyx")
        } throws: { error in
            "\(error)".contains("KeyFile setting")
        }
    }

    @Test func aKeyFilePrintsRedacted() throws {
        let key = try KeyFile(contentsOf: try keyFile(.raw32))
        #expect("\(key)" == "KeyFile(<REDACTED>)")
    }
}
