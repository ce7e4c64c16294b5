import AutofillCore
import AutofillTestSupport
import Foundation
import KDBX
import Testing

/// Databases made by the real keepassxc-cli, opened by the reader: every format, KDF and cipher.
@Suite(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
struct KDBXReaderTests {
    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder("kdbx") }

    @Test func readsAnAESKDFDatabaseThatDbCreateMadeAsKDBX31() throws {
        let path = "\(folder.path)/created.kdbx"
        let key = KeePassXC.Key(password: "correct horse")
        try KeePassXC.create(path, key: key)
        try KeePassXC.add(path, key: key, title: "Example", user: "alice", url: "https://example.com/login", password: "pa55-ä-✓")
        let database = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("correct horse"), keyFile: nil))
        #expect(database.formatVersion == "3.1")
        let entry = try #require(database.entries.first { $0.title == "Example" })
        #expect(entry.userName == "alice")
        #expect(entry.url == "https://example.com/login")
        #expect(entry.password.revealed == "pa55-ä-✓")
        #expect(entry.password.revealed == (try KeePassXC.password(path, key: key, title: "Example")))
    }

    @Test(arguments: [("argon2d", "aes256"), ("argon2id", "chacha20"), ("argon2id", "aes256"), ("argon2d", "chacha20")])
    func readsAKDBX4DatabaseWithArgon2(variant: String, cipher: String) throws {
        let path = "\(folder.path)/\(variant)-\(cipher).kdbx"
        try KeePassXC.createArgon2(path, password: "pw-\(variant)", variant: variant, cipher: cipher,
                                   title: "Mail", user: "bob", url: "https://mail.example.org", entryPassword: "m41l-\(cipher)")
        let database = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw-\(variant)"), keyFile: nil))
        #expect(database.formatVersion.hasPrefix("4."))
        let entry = try #require(database.entries.first { $0.title == "Mail" })
        #expect(entry.userName == "bob")
        #expect(entry.url == "https://mail.example.org")
        #expect(entry.password.revealed == "m41l-\(cipher)")
    }

    @Test(arguments: [true, false])
    func readsImportedAttributesRecycleBinAndExpiry(kdbx4: Bool) throws {
        let xml = KeePassXML(entries: [
            .init(title: "Bank", user: "carol", password: "b4nk", url: "https://bank.example",
                  fields: ["KP2A_URL": "https://m.bank.example", "KP2A_URL_1": "https://bank.example.net", "otp": "otpauth://totp/Bank?secret=JBSWY3DPEHPK3PXP",
                           "TOTP Seed": "GEZDGNBVGY3TQOJQ", "Notes2": "<&> secret note"]),
            .init(title: "Old", user: "dave", password: "0ld", url: "https://old.example", expiry: Date(timeIntervalSince1970: 1_577_836_800)),
        ], recycled: [.init(title: "Gone", user: "eve", password: "g0ne", url: "https://gone.example")], kdbx4: kdbx4)
        let path = "\(folder.path)/imported.kdbx"
        try KeePassXC.importXML(try folder.file("import.xml", xml.text), to: path, key: KeePassXC.Key(password: "pw"))
        let database = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw"), keyFile: nil))
        #expect(database.formatVersion.hasPrefix(kdbx4 ? "4." : "3."))
        #expect(database.name == "Tests")
        let bank = try #require(database.entries.first { $0.title == "Bank" })
        #expect(bank.urls == ["https://bank.example", "https://m.bank.example", "https://bank.example.net"])
        #expect(bank.fields["otp"]?.revealed == "otpauth://totp/Bank?secret=JBSWY3DPEHPK3PXP")
        #expect(bank.fields["TOTP Seed"]?.revealed == "GEZDGNBVGY3TQOJQ")
        #expect(bank.fields["Notes2"]?.revealed == "<&> secret note")
        #expect(bank.password.revealed == "b4nk")
        #expect(!bank.isInRecycleBin && !bank.isExpired())
        let old = try #require(database.entries.first { $0.title == "Old" })
        #expect(old.isExpired())
        #expect(old.expiryTime == Date(timeIntervalSince1970: 1_577_836_800))
        let gone = try #require(database.entries.first { $0.title == "Gone" })
        #expect(gone.isInRecycleBin)
        #expect(gone.password.revealed == "g0ne")
    }

    @Test func historyEntriesAreNotOfferedButTheirProtectedValuesKeepTheStreamInStep() throws {
        let path = "\(folder.path)/history.kdbx"
        let key = KeePassXC.Key(password: "pw")
        try KeePassXC.create(path, key: key)
        try KeePassXC.add(path, key: key, title: "A", user: "a", url: "https://a.example", password: "first")
        try KeePassXC.changePassword(path, key: key, title: "A", to: "second")
        try KeePassXC.add(path, key: key, title: "B", user: "b", url: "https://b.example", password: "third")
        let database = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw"), keyFile: nil))
        #expect(database.entries.map(\.title).sorted() == ["A", "B"])
        #expect(database.entries.first { $0.title == "A" }?.password.revealed == "second")
        #expect(database.entries.first { $0.title == "B" }?.password.revealed == "third")
    }

    @Test func aDatabaseOfTenThousandEntriesWithMoreThanTenMegabytesOfXMLOpens() throws {
        let entries = (0..<10_000).map { index in
            KeePassXML.Entry(title: "Site \(index)", user: "user\(index)", password: "pw-\(index)-0123456789", url: "https://site\(index).example.com/login",
                             fields: index % 10 == 3 ? ["otp": "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP"] : [:])
        }
        let path = "\(folder.path)/large.kdbx"
        try KeePassXC.importXML(try folder.file("large.xml", KeePassXML(entries: entries, kdbx4: false).text), to: path, key: KeePassXC.Key(password: "pw"))
        let database = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw"), keyFile: nil))
        #expect(database.entries.count == 10_000)
        #expect(database.entries.first { $0.title == "Site 9999" }?.password.revealed == "pw-9999-0123456789")
    }

    @Test func anEntryPrintsWithoutItsSecrets() throws {
        let entry = KDBXEntry(uuid: "u", title: "T", userName: "U", password: Secret("hunter2"), url: "https://x.example", additionalURLs: [],
                              fields: ["otp": Secret("otpauth://totp/x?secret=ABC")], expiryTime: nil, isInRecycleBin: false, groupPath: [])
        #expect(!"\(entry)".contains("hunter2"))
        #expect(!"\(entry)".contains("ABC"))
        #expect(!String(reflecting: entry).contains("hunter2"))
    }
}
