import AutofillCore
import AutofillTestSupport
import Foundation
@testable import KDBX
import Testing

/// Saving into documents no KeePass writes: the reader's fuzz cases rewritten and read back the same
/// (or refused, never written wrong), and a pykeepass database with odd nesting and a huge value
/// saved and read back by pykeepass.
struct KDBXWriterHostileTests {
    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder("kdbx-writer-hostile") }

    static let open = "<KeePassFile><Meta><HistoryMaxItems>2</HistoryMaxItems></Meta><Root><Group><UUID>cm9vdHJvb3Ryb290cm9vdA==</UUID><Name>Root</Name>"
    static let close = "</Group></Root></KeePassFile>"
    static func entry(_ title: String, _ inner: String = "") -> String {
        "<Entry><UUID>\(Data(title.utf8).base64EncodedString())</UUID><String><Key>Title</Key><Value>\(title)</Value></String><String><Key>Password</Key><Value>pw-\(title)</Value></String>\(inner)</Entry>"
    }

    static let documents: [String: String] = [
        "a group nested in an entry": open + entry("outer", "<Group><Entry><String><Key>Title</Key><Value>inner</Value></String></Entry><UUID>x</UUID></Group>") + entry("after") + close,
        "a history outside any entry": open + entry("first", "<Group><Entry></Entry></Group><History></History>") + entry("second") + "<History></History>" + entry("third") + close,
        "200 levels of nesting": open + entry("deep", String(repeating: "<X>", count: 200) + "bottom" + String(repeating: "</X>", count: 200)) + close,
        "markup, carriage returns, CDATA, comments and a processing instruction":
            open + entry("a &amp; b &lt;c&gt; &#13;\r\n", "<!-- note --><?keep me?><String><Key>Notes</Key><Value><![CDATA[<b>&</b>]]> \"q\" 'a'</Value></String>") + close,
        "attributes with quotes and line feeds": open + entry("attributes", "<Custom a=\"&quot;x&#10;y&#9;z&amp;\" b='&lt;'/>") + close,
        "no entries": open + close,
        "a second root group": open + entry("one") + "</Group><Group><UUID>c2Vjb25kc2Vjb25kc2Vjbw==</UUID>" + entry("two") + close,
        "a huge value": open + entry("huge", "<String><Key>Notes</Key><Value>\(String(repeating: "0123456789", count: 1_000_000))</Value></String>") + close,
    ]

    @Test(arguments: documents.keys.sorted())
    func aHostileDocumentIsRewrittenAndReadsBackTheSame(name: String) throws {
        for version4 in [true, false] {
            let xml = Array(try #require(Self.documents[name]).utf8)
            #expect(KDBXFuzzing.document(xml, version4: version4) == nil)
            let failure = KDBXFuzzing.rewrite(xml, version4: version4)
            #expect(failure == nil, "\(failure?.message ?? "")")
        }
    }

    @Test func aProtectedValueHoldingElementsIsRefusedNotWritten() throws {
        let stream = try InnerStream(try .init(id: 3, key: KDBXFuzzing.innerStreamKey))
        let secret = Data(try stream.reveal(Array("secret".utf8))).base64EncodedString()
        let xml = Self.open + Self.entry("odd", "<String><Key>Other</Key><Value Protected=\"True\">\(secret)<X/></Value></String>") + Self.close
        let failure = KDBXFuzzing.rewrite(Array(xml.utf8), version4: true)
        #expect(failure?.code == .corrupt)
        #expect(failure?.message.contains("protected value holds XML elements") == true, "\(failure?.message ?? "")")
    }

    @Test(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
    func aPykeepassDatabaseWithOddNestingAndAHugeValueIsSavedAndReadsBackInPykeepass() throws {
        let path = "\(folder.path)/hostile.kdbx"
        func python(_ script: String, _ arguments: [String]) throws -> ChildProcess.Result {
            try ChildProcess.run("/usr/bin/env", ["python3", "\(Repository.root)/Tests/KDBXTests/Support/\(script)"] + arguments, input: "pw\n")
        }
        let made = try python("make_database.py", [path, "create4"])
        try #require(made.status == 0, "\(made.stderr)")
        let mangled = try python("mangle_database.py", [path])
        try #require(mangled.status == 0, "\(mangled.stderr)")
        func dump(_ name: String) throws -> String {
            let dumped = try python("pykeepass_dump.py", [path])
            try #require(dumped.status == 0, "\(dumped.stderr)")
            let file = "\(folder.path)/\(name).xml"
            try dumped.stdout.write(toFile: file, atomically: false, encoding: .utf8)
            return file
        }
        let before = try dump("before")
        let key = CompositeKey(password: Secret("pw"), keyFile: nil)
        let bank = try #require(try KDBXReader.open(at: path, key: key).entries.first { $0.title == "Bank" })
        _ = try KDBXWriter.save(at: path, key: key) { _ in .setPassword(uuid: bank.uuid, password: Secret("bank-3")) }
        let after = try dump("after")
        let compared = try python("compare_exports.py", [before, after, "Bank"])
        #expect(compared.status == 0, "\(compared.stdout)\(compared.stderr)")
        // HistoryMaxItems is 1: bank-1 was dropped, bank-2 kept.
        #expect(try python("history_passwords.py", [after, "Bank"]).stdout == "bank-2\n")
        #expect(try KDBXReader.open(at: path, key: key).entries.first { $0.title == "Bank" }?.password.revealed == "bank-3")
    }
}
