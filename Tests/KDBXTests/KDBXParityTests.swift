import AutofillCore
import AutofillTestSupport
import Foundation
import KDBX
import Testing

/// Files KeePassXC and pykeepass write that the reader once refused or crashed on: Twofish, KDBX 3.1
/// without HeaderHash, large attachments; and a compression bomb, which ends in the reader's cap.
@Suite(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
struct KDBXParityTests {
    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder("kdbx-parity") }

    func python(_ script: String, _ arguments: [String], input: String = "") throws -> ChildProcess.Result {
        try ChildProcess.run("/usr/bin/env", ["python3", "-c", script] + arguments, input: input)
    }

    @Test(arguments: ["argon2d", "argon2id"])
    func aTwofishDatabaseOpens(variant: String) throws {
        let path = "\(folder.path)/twofish-\(variant).kdbx"
        try KeePassXC.createArgon2(path, password: "pw", variant: variant, cipher: "twofish", title: "Fish", user: "nemo",
                                   url: "https://fish.example", entryPassword: "tw0fish-✓")
        let database = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw"), keyFile: nil))
        #expect(database.entries.first { $0.title == "Fish" }?.password.revealed == "tw0fish-✓")
        #expect(try KeePassXC.password(path, key: KeePassXC.Key(password: "pw"), title: "Fish") == "tw0fish-✓")
    }

    /// pykeepass saves a KDBX 3.1 file with new seeds but the HeaderHash it read (stale), or none when the
    /// XML has none. KeePassXC opens the second and refuses the first ("Header doesn't match hash"); so does the reader.
    @Test(arguments: [true, false])
    func aKDBX31DatabaseSavedByPykeepassOpensWithoutHeaderHashAndIsRefusedWithAStaleOneAsInKeePassXC(dropHeaderHash: Bool) throws {
        let path = "\(folder.path)/pykeepass31-\(dropHeaderHash).kdbx"
        let key = KeePassXC.Key(password: "pw")
        try KeePassXC.create(path, key: key)
        try KeePassXC.add(path, key: key, title: "Py", user: "guido", url: "https://py.example", password: "before")
        let script = """
            import sys
            from pykeepass import PyKeePass
            db = PyKeePass(sys.argv[1], password=sys.stdin.readline().rstrip("\\n"))
            db.find_entries(title="Py", first=True).password = "saved-by-pykeepass"
            if sys.argv[2] == "drop":
                meta = db.tree.find("Meta")
                meta.remove(meta.find("HeaderHash"))
            db.save()
            print(db.version)
            """
        let saved = try python(script, [path, dropHeaderHash ? "drop" : "keep"], input: "pw\n")
        try #require(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.contains("(3, 1)"), "\(saved.stdout)")
        let keepassxc = try ChildProcess.run(KeePassXC.cli, ["show", "-s", "-a", "Password", path, "Py"], input: "pw\n")
        do {
            let database = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw"), keyFile: nil))
            #expect(dropHeaderHash, "a stale HeaderHash opened")
            #expect(database.formatVersion == "3.1")
            #expect(database.entries.first { $0.title == "Py" }?.password.revealed == "saved-by-pykeepass")
            #expect(keepassxc.status == 0 && keepassxc.stdout.hasSuffix("saved-by-pykeepass\n"), "\(keepassxc.stderr)")
        } catch {
            #expect(!dropHeaderHash, "\(error)")
            #expect(error.code == .tampered)
            #expect(keepassxc.status != 0 && keepassxc.stderr.contains("Header doesn't match hash"), "\(keepassxc.stderr)")
        }
    }

    @Test(arguments: [false, true])
    func aFiftyMegabyteAttachmentIsStreamedPast(kdbx4: Bool) throws {
        let path = "\(folder.path)/attachment-\(kdbx4).kdbx"
        let key = KeePassXC.Key(password: "pw")
        let xml = KeePassXML(entries: [.init(title: "Files", user: "u", password: "with-attachment", url: "https://files.example"),
                                       .init(title: "After", user: "v", password: "after-attachment", url: "https://after.example")], kdbx4: kdbx4)
        try KeePassXC.importXML(try folder.file("a.xml", xml.text), to: path, key: key)
        let attachment = "\(folder.path)/big.bin"
        _ = FileManager.default.createFile(atPath: attachment, contents: Data((0..<(50 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }))
        try KeePassXC.importAttachment(path, key: key, title: "Files", name: "big.bin", file: attachment)
        let database = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw"), keyFile: nil))
        #expect(database.formatVersion.hasPrefix(kdbx4 ? "4." : "3."))
        #expect(database.entries.first { $0.title == "Files" }?.password.revealed == "with-attachment")
        #expect(database.entries.first { $0.title == "After" }?.password.revealed == "after-attachment")
    }

    @Test func aGzipBombEndsAtTheReadersCapWithAClearError() throws {
        let path = "\(folder.path)/bomb.kdbx"
        let made = try ChildProcess.run("/usr/bin/env", ["python3", "\(Repository.root)/Tests/KDBXTests/Support/make_gzip_bomb.py", path, "\(2 << 30)"], input: "pw\n")
        try #require(made.status == 0, "\(made.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size < 16 << 20)
        #expect {
            _ = try KDBXReader.open(at: path, key: CompositeKey(password: Secret("pw"), keyFile: nil))
        } throws: { error in
            (error as? KDBXError)?.code == .unsupported && "\(error)".contains("inflate to more than 1024 MiB")
        }
    }
}
