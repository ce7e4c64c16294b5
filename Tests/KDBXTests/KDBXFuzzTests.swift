import AutofillCore
import AutofillTestSupport
import Foundation
@testable import KDBX
import Testing

/// The reader's fuzz target (Benchmarks/kdbx-fuzz) run as a child process, so a crash fails the test
/// instead of ending the run, on its built-in seeds and on files keepassxc-cli made; and each input
/// fuzzing found that crashed the provider, read now to an error or to its entries.
struct KDBXFuzzTests {
    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder("kdbx-fuzz") }

    /// A corpus of KeePassXC's own files: a KDBX 3.1 database (password "fuzz"), its XML export, key files.
    func corpus() throws -> String {
        let corpus = "\(folder.path)/corpus"
        try FileManager.default.createDirectory(atPath: corpus, withIntermediateDirectories: true)
        guard KeePassXC.isInstalled else { return corpus }
        let database = "\(corpus)/database-keepassxc.kdbx"
        let key = KeePassXC.Key(password: "fuzz")
        try KeePassXC.create(database, key: key)
        try KeePassXC.add(database, key: key, title: "A {USERNAME}", user: "alice", url: "intranet.example:8080", password: "first")
        try KeePassXC.changePassword(database, key: key, title: "A {USERNAME}", to: "second")
        try Data(try KeePassXC.exportXML(database, key: key).utf8).write(to: URL(fileURLWithPath: "\(corpus)/xml-keepassxc.xml"))
        try KeePassXC.create("\(corpus)/made-with-key.kdbx", key: KeePassXC.Key(password: nil, keyFile: "\(corpus)/key-keepassxc.keyx"))
        return corpus
    }

    @Test func twentyThousandMutatedDatabasesDocumentsPayloadsAndKeyFilesEndInAnErrorOrAreReadNeverInACrash() throws {
        let fuzz = "\(Repository.root)/.build/debug/kdbx-fuzz"
        try #require(FileManager.default.isExecutableFile(atPath: fuzz), "build kdbx-fuzz first (swift build)")
        let last = "\(folder.path)/last-input"
        let run = try ChildProcess.run(fuzz, ["--seed", "23", "--iterations", "20000", "--corpus", try corpus(), "--last", last])
        let input = (try? Data(contentsOf: URL(fileURLWithPath: last))).map { "\($0.count) bytes, base64 \($0.base64EncodedString().prefix(400))" } ?? "none"
        #expect(run.status == 0, "kdbx-fuzz ended with \(run.status) (a crash?); the last input: \(input)\n\(run.stderr)")
        #expect(run.stdout.contains("no crash"), "\(run.stdout)")
    }

    /// Reads `xml` as a decrypted document; its entries.
    func entries(_ xml: String) throws -> [KDBXEntry] {
        let document = KDBXDocument(stream: try InnerStream(try .init(id: 3, key: KDBXFuzzing.innerStreamKey)), binaryTimes: false)
        try document.write(Array(xml.utf8))
        try document.finish()
        return document.entries()
    }

    static let open = "<KeePassFile><Root><Group><UUID>cm9vdHJvb3Ryb290cm9vdA==</UUID><Name>Root</Name>"
    static let close = "</Group></Root></KeePassFile>"
    static func entry(_ title: String, _ inner: String = "") -> String {
        "<Entry><String><Key>Title</Key><Value>\(title)</Value></String><String><Key>Password</Key><Value>pw-\(title)</Value></String>\(inner)</Entry>"
    }

    @Test(arguments: ["UUID", "Name"])
    func aGroupNestedInAnEntryWhoseFieldClosesAfterTheInnerEntryIsNotAGroup(field: String) throws {
        // It indexed an empty array (SIGILL on `autofill unlock`).
        let inner = "<Group><Entry><String><Key>Title</Key><Value>inner</Value></String></Entry><\(field)>x</\(field)></Group>"
        let read = try entries(Self.open + Self.entry("outer", inner) + Self.entry("after") + Self.close)
        #expect(read.map(\.title) == ["outer", "after"])
        #expect(read.last?.password.revealed == "pw-after")
    }

    @Test func aHistoryOutsideTheEntryBeingReadDoesNotHideTheEntriesAfterIt() throws {
        // A history closing where none was counted as open took the depth below zero: every later entry was skipped.
        let hostile = Self.entry("first", "<Group><Entry></Entry></Group><History></History>")
        let read = try entries(Self.open + hostile + Self.entry("second") + "<History></History>" + Self.entry("third") + Self.close)
        #expect(read.map(\.title) == ["first", "second", "third"])
    }

    @Test func historyEntriesAreLeftOutAndTheirProtectedValuesKeepTheStreamInStep() throws {
        let stream = try InnerStream(try .init(id: 3, key: KDBXFuzzing.innerStreamKey))
        let old = Data(try stream.reveal(Array("old-password".utf8))).base64EncodedString()
        let attachment = Data(try stream.reveal([UInt8](repeating: 9, count: 5000))).base64EncodedString()
        let current = Data(try stream.reveal(Array("current".utf8))).base64EncodedString()
        let xml = Self.open + "<Entry><History><Entry><String><Key>Password</Key><Value Protected=\"True\">\(old)</Value></String></Entry></History></Entry>"
            + "<Entry><Binary><Key>a</Key><Value Protected=\"True\">\(attachment)</Value></Binary>"
            + "<String><Key>Password</Key><Value Protected=\"True\">\(current)</Value></String></Entry>" + Self.close
        let read = try entries(xml)
        #expect(read.count == 2)
        #expect(read.last?.password.revealed == "current")
    }

    @Test(arguments: [
        [0x3C, 0x61, 0xFF, 0xFE, 0x2F, 0x3E],  // <a\xFF\xFE/>: an element name that is not UTF-8 (6 bytes)
        Array("<?x?>".utf8), Array("<?x?><a/>".utf8), Array("<a><?x?></a>".utf8),
        Array("<!DOCTYPE a [<!ENTITY e \"&e;&e;\">]><a>&e;</a>".utf8),
    ] as [[UInt8]])
    func xmlThatTrappedFoundationsParserIsAnErrorInTheDatabaseAndHashedAsAKeyFile(bytes: [UInt8]) throws {
        let failure = KDBXFuzzing.document(bytes, version4: true)
        #expect(failure?.code == .corrupt || failure == nil, "\(String(describing: failure))")
        // As a key file: not a KeePass XML key file, so hashed like any file, as KeePassXC does.
        #expect(KDBXFuzzing.keyFile(bytes) == nil)
    }
}
