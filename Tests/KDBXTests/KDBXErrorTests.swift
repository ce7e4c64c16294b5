import AutofillCore
import AutofillTestSupport
import Foundation
import KDBX
import Testing

/// Damaged and hostile files, wrong keys: each a clear error that names no byte of the contents.
@Suite(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
struct KDBXErrorTests {
    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder("kdbx-errors") }

    /// Secrets and names in the databases below, none of which an error may show.
    static let contents = ["Secret Title", "secret-user", "pa55word-xyz", "secret.example"]

    /// A KDBX 4 (AES-KDF, imported with CustomData) or 3.1 database holding ``contents``; its bytes.
    func database(kdbx4: Bool) throws -> [UInt8] {
        let xml = KeePassXML(entries: [.init(title: "Secret Title", user: "secret-user", password: "pa55word-xyz", url: "https://secret.example")], kdbx4: kdbx4)
        let path = "\(folder.path)/\(kdbx4 ? 4 : 3).kdbx"
        try KeePassXC.importXML(try folder.file("e.xml", xml.text), to: path, key: KeePassXC.Key(password: "pw"))
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The error opening `bytes` with `password`; fails the test if it opens.
    func failure(_ bytes: [UInt8], password: String = "pw") -> KDBXError? {
        do {
            _ = try KDBXReader.open(bytes, key: CompositeKey(password: Secret(password), keyFile: nil))
            Issue.record("the database opened")
            return nil
        } catch {
            for secret in Self.contents + [password] { #expect(!error.message.contains(secret)) }
            return error
        }
    }

    @Test(arguments: [true, false])
    func aWrongPasswordIsNamedAsSuch(kdbx4: Bool) throws {
        let error = failure(try database(kdbx4: kdbx4), password: "wrong guess")
        #expect(error?.code == .wrongKey)
        #expect(error?.message.contains("wrong master password or key file") == true)
    }

    @Test(arguments: [true, false])
    func aTruncatedFileIsDamagedNotAWrongPassword(kdbx4: Bool) throws {
        let bytes = try database(kdbx4: kdbx4)
        for length in [bytes.count - 1, bytes.count - 16, bytes.count / 2, 40, 4] {
            let error = failure(Array(bytes.prefix(length)))
            #expect(error?.code != .wrongKey, "cut at \(length)")
            #expect(error?.message.contains("truncated") == true || error?.code == .notKDBX, "cut at \(length): \(error?.message ?? "")")
        }
    }

    @Test func aFlippedByteInAnHMACBlockIsTampering() throws {
        var bytes = try database(kdbx4: true)
        bytes[bytes.count - 100] ^= 0x01  // inside the first (only) data block
        let error = failure(bytes)
        #expect(error?.code == .tampered)
        #expect(error?.message.contains("block 0 fails its HMAC") == true)
    }

    @Test func aFlippedByteInAKDBX31BlockIsTampering() throws {
        var bytes = try database(kdbx4: false)
        bytes[bytes.count - 40] ^= 0x01  // CBC: damages a ciphertext block, so the hashed block's data
        let error = failure(bytes)
        #expect(error?.code == .tampered || error?.code == .corrupt)
    }

    @Test func aChangedHeaderFailsItsChecksum() throws {
        var bytes = try database(kdbx4: true)
        let seed = try #require(offset(of: [0x04, 0x20, 0x00, 0x00, 0x00], in: bytes))  // the master seed field
        bytes[seed + 6] ^= 0x01
        #expect(failure(bytes)?.code == .tampered || failure(bytes)?.code == .wrongKey)
    }

    @Test func anUnsupportedKeyDerivationIsNamed() throws {
        var bytes = try database(kdbx4: true)
        let aesKDBX4: [UInt8] = [0x7C, 0x02, 0xBB, 0x82, 0x79, 0xA7, 0x4A, 0xC0]
        let aesKDBX3: [UInt8] = [0xC9, 0xD9, 0xF3, 0x9A, 0x62, 0x8A, 0x44, 0x60]
        let kdf = try #require(offset(of: aesKDBX4, in: bytes) ?? offset(of: aesKDBX3, in: bytes))
        bytes[kdf] ^= 0xFF
        let error = failure(bytes)
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("key derivation") == true)
    }

    @Test func notAKeePassFileIsNamed() throws {
        let error = failure(Array("Secret Title pa55word-xyz".utf8))
        #expect(error?.code == .notKDBX)
    }

    @Test func aHostileArgon2MemoryIsRefusedBeforeAnyAllocation() throws {
        let path = "\(folder.path)/argon.kdbx"
        try KeePassXC.createArgon2(path, password: "pw", variant: "argon2id", cipher: "aes256", title: "Secret Title", user: "secret-user",
                                   url: "https://secret.example", entryPassword: "pa55word-xyz")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let memory = try #require(offset(of: [0x05, 0x01, 0x00, 0x00, 0x00] + Array("M".utf8) + [0x08, 0x00, 0x00, 0x00], in: bytes))
        for index in 0..<8 { bytes[memory + 10 + index] = 0xFF }
        let error = failure(bytes)
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("out of range") == true)
    }

    @Test func aMissingDatabaseSaysWhichSettingToCheck() {
        #expect {
            _ = try KDBXReader.open(at: "\(folder.path)/absent.kdbx", key: CompositeKey(password: Secret("pw"), keyFile: nil))
        } throws: { error in
            (error as? KDBXError)?.code == .unreadable && "\(error)".contains("DatabaseFile")
        }
    }

    func offset(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}
