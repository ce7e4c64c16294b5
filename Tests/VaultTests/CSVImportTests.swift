import AutofillCore
import Testing
@testable import VaultCore

/// Importing password managers' CSV exports.
struct CSVImportTests {
    static let bitwardenHeader = "folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp"

    @Test(arguments: [
        ("a,b,c\n", [["a", "b", "c"]]),
        ("a,b\r\nc,d\r\n", [["a", "b"], ["c", "d"]]),
        ("\"a,b\",c\n", [["a,b", "c"]]),
        ("\"say \"\"hi\"\"\",x\n", [["say \"hi\"", "x"]]),
        ("\"two\nlines\",x\nnext,y", [["two\nlines", "x"], ["next", "y"]]),
        ("a,,\n", [["a", "", ""]]),
        ("\u{FEFF}a,b\n\n\nc,d\n", [["a", "b"], ["c", "d"]]),
        ("\"\",x\n", [["", "x"]]),
    ])
    func theParserReadsRFC4180(_ text: String, _ expected: [[String]]) {
        let (records, problems) = CSVParser.parse(text)
        #expect(problems.isEmpty)
        #expect(records.map(\.fields) == expected)
    }

    @Test func aRecordSpanningLinesKeepsLaterRowNumbersRight() {
        let (records, _) = CSVParser.parse("h1,h2\n\"multi\nline\",x\nlast,y\n")
        #expect(records.map(\.row) == [1, 2, 3])
    }

    @Test func malformedQuotingIsAProblemForItsRowOnly() {
        let (records, problems) = CSVParser.parse("h1,h2\n\"bad\"x,y\ngood,z\n")
        #expect(records.map(\.fields) == [["h1", "h2"], ["good", "z"]])
        #expect(problems.map(\.row) == [2])
        let (_, unclosed) = CSVParser.parse("h1,h2\n\"never closed,secret-pw\n")
        #expect(unclosed.map(\.row) == [2])
        #expect(!unclosed[0].message.contains("secret-pw"))
    }

    @Test func aBitwardenExportBecomesLoginsCodesAndNotes() throws {
        let csv = """
            \(Self.bitwardenHeader)
            Work,1,login,Example,"my notes, with comma",,0,https://example.com/login,alice,"pa""ss,word",JBSWY3DPEHPK3PXP
            ,,login,Org,,,0,"https://accounts.example.org/login,https://example.org",alice@example.org,tr0ub4dor&3,otpauth://totp/Org:alice%40example.org?secret=JBSWY3DPEHPK3PXP&issuer=Org
            ,,note,Address,"1 Main Street
            Springfield",,0,,,,
            ,,card,Visa,,,0,,,,

            """
        let result = try CSVImport(text: csv, name: "bw.csv", existing: VaultContents())
        #expect(result.format == .bitwarden)
        let logins = result.entries.compactMap { if case .password(let e) = $0 { e } else { nil } }
        #expect(logins.map(\.user) == ["alice", "alice@example.org"])
        #expect(logins[0].service == ServiceIdentifier(identifier: "https://example.com/login", type: .url))
        #expect(logins[0].password == Secret("pa\"ss,word"))
        #expect(logins[0].rank == 1)
        #expect(logins[0].notes == Secret("my notes, with comma"))
        #expect(logins[1].service.identifier == "https://accounts.example.org/login")
        let codes = result.entries.compactMap { if case .oneTimeCode(let e) = $0 { e } else { nil } }
        #expect(codes.map(\.label) == ["alice", "Org:alice@example.org"])
        #expect(codes[0].uri.revealed.hasPrefix("otpauth://totp/"))
        #expect(try codes[0].code(atUnixTime: 59) == Secret(try codes[1].code(atUnixTime: 59).revealed))
        let texts = result.entries.compactMap { if case .text(let e) = $0 { e } else { nil } }
        #expect(texts.map(\.title) == ["Address"])
        #expect(texts[0].text == Secret("1 Main Street\nSpringfield"))
        #expect(result.problems == [CSVImport.Problem(row: 5, message: "type card is not imported (only login and note); skipped")])
    }

    @Test func aBrowserExportBecomesLogins() throws {
        let chrome = "name,url,username,password,note\nExample,https://example.com/,bob,hunter2,\"a note\"\n"
        let result = try CSVImport(text: chrome, name: "chrome.csv", existing: VaultContents())
        #expect(result.format == .browser)
        guard case .password(let login) = result.entries.first else { Issue.record("no login"); return }
        #expect(login.user == "bob" && login.password == Secret("hunter2") && login.notes == Secret("a note"))

        let firefox = "\"url\",\"username\",\"password\",\"httpRealm\",\"formActionOrigin\",\"guid\",\"timeCreated\",\"timeLastUsed\",\"timePasswordChanged\"\n\"https://example.org\",\"carol\",\"s3cret\",,\"https://example.org\",\"{x}\",\"1\",\"2\",\"3\"\n"
        let fromFirefox = try CSVImport(text: firefox, name: "ff.csv", existing: VaultContents())
        #expect(fromFirefox.format == .browser)
        #expect(fromFirefox.entries.count == 1 && fromFirefox.problems.isEmpty)
    }

    @Test func badRowsAreReportedByNumberAndNeverWithTheirPassword() throws {
        let csv = """
            name,url,username,password
            Empty URL,,dave,pw-dave-1
            Bad URL,ftp://files.example.com,erin,pw-erin-2
            No password,https://example.net,frank,
            Short,https://example.net,gina
            Dup,example.com,alice,pw-alice-3
            Good,https://good.example,hank,pw-hank-4
            """
        let existing = VaultContents(entries: [.password(Fixture.alice)])
        let result = try CSVImport(text: csv, name: "x.csv", existing: existing)
        #expect(result.entries.count == 1)
        #expect(result.problems.map(\.row) == [2, 3, 4, 5, 6])
        #expect(result.problems.map(\.description) == [
            "row 2: url is empty: a login needs the site it is for; skipped",
            "row 3: url is not a web address (ftp://, not http:// or https://): give a domain like example.com or a URL like https://example.com/login; skipped",
            "row 4: the password is empty; skipped",
            "row 5: has 3 fields, the header 4; skipped",
            "row 6: alice at example.com is in the vault already; skipped",
        ])
        for problem in result.problems { #expect(!problem.message.contains("pw-")) }
    }

    @Test func anUnusableTOTPKeepsTheLoginAndSaysWhy() throws {
        let csv = "\(Self.bitwardenHeader)\n,,login,Ex,,,0,example.com,ivan,pw-ivan,NOT!BASE32\n"
        let result = try CSVImport(text: csv, name: "bw.csv", existing: VaultContents())
        #expect(result.entries.count == 1)
        #expect(result.problems.count == 1)
        #expect(result.problems[0].row == 2)
        #expect(result.problems[0].message.hasPrefix("login_totp is not usable ("))
        #expect(!result.problems[0].message.contains("NOT!BASE32"))
    }

    @Test func aRecordKnowsTheLineItStartsOn() {
        let (records, _) = CSVParser.parse("\n\r\nh1,h2\r\n\"multi\nline\",x\n\nlast,y\rend,z\n")
        #expect(records.map(\.row) == [1, 2, 3, 4])
        #expect(records.map(\.line) == [3, 4, 7, 8])
    }

    @Test func aFileWithoutAHeaderRowIsRefusedWithoutQuotingItsFirstRow() throws {
        let csv = "\n\nExample,https://example.com,alice,hunter2\nOther,https://example.org,bob,url\n"
        #expect(throws: VaultError.self) { try CSVImport(text: csv, name: "x.csv", existing: VaultContents()) }
        do {
            _ = try CSVImport(text: csv, name: "x.csv", existing: VaultContents())
        } catch {
            #expect(error.message.hasPrefix("x.csv line 3: the first row is not a header of an export this reads"), "\(error.message)")
            #expect(error.message.contains("expected a Bitwarden export (header \(Self.bitwardenHeader))"))
            for text in ["hunter2", "alice", "example.com,", "Example"] { #expect(!error.message.contains(text), "\(error.message)") }
        }
    }

    @Test(arguments: [
        // A row with one known name (a password that happens to be "password") is still not a header.
        ("title,secret,hunter2\n", "the first row is not a header of an export this reads", ["title", "secret", "hunter2"]),
        ("Example,https://example.com,alice,password\n", "the first row is not a header of an export this reads", ["alice", "Example"]),
        ("name,url,user,password,hunter2col\n", "the header has name, url, password but not username, which a browser export needs; 2 other columns are not recognised (not shown)",
         ["hunter2col", "user,"]),
        ("folder,type,name,login_uri,login_password,Login_Username_x\n",
         "the header has folder, type, name, login_uri, login_password but not login_username, which a Bitwarden export needs; 1 other column is not recognised",
         ["login_username_x", "Login_Username_x"]),
    ])
    func aHeaderWithoutTheNeededColumnsNamesOnlyKnownColumns(_ csv: String, _ expected: String, _ unsaid: [String]) {
        do {
            _ = try CSVImport(text: csv, name: "odd.csv", existing: VaultContents())
            Issue.record("accepted")
        } catch {
            #expect(error.message.hasPrefix("odd.csv line 1: \(expected)"), "\(error.message)")
            for text in unsaid { #expect(!error.message.contains(text), "\(error.message)") }
        }
    }

    @Test func anUnknownTypeIsNamedOnlyWhenItIsABitwardenType() throws {
        let csv = "\(Self.bitwardenHeader)\n,,card,Visa,,,0,,,,\n,,hunter2,X,,,0,https://example.com,alice,pw,\n"
        let result = try CSVImport(text: csv, name: "bw.csv", existing: VaultContents())
        #expect(result.problems.map(\.description) == [
            "row 2: type card is not imported (only login and note); skipped",
            "row 3: this type (not shown) is not imported (only login and note); skipped",
        ])
    }

    @Test func aLoginWhoseURLHoldsAPasswordIsImportedWithoutIt() throws {
        let csv = """
            \(Self.bitwardenHeader)
            ,,login,Router,,,0,https://admin:hunter2@192.168.1.1/setup,admin,hunter2,JBSWY3DPEHPK3PXP
            ,,login,Bad,,,0,ftp://carol:hunter3@files.example.com,carol,pw-carol,

            """
        let result = try CSVImport(text: csv, name: "bw.csv", existing: VaultContents())
        let logins = result.entries.compactMap { if case .password(let e) = $0 { e } else { nil } }
        let codes = result.entries.compactMap { if case .oneTimeCode(let e) = $0 { e } else { nil } }
        #expect(logins.map(\.service) == [ServiceIdentifier(identifier: "https://192.168.1.1/setup", type: .url)])
        #expect(codes.map(\.service) == logins.map(\.service))
        #expect(result.problems.map(\.description) == [
            "row 2: login_uri held a user name and password before the host (user:password@); they were left out of the site address, which is stored unencrypted; the login was imported for https://192.168.1.1/setup",
            "row 3: login_uri is not a web address (ftp://, not http:// or https://): give a domain like example.com or a URL like https://example.com/login; skipped",
        ])
    }

    /// A Bitwarden export of 10,000 login rows (rows 2–10,001) with distinct sites and users, every
    /// tenth with a TOTP secret, and three rows that are not imported: row 4,323 has no password,
    /// row 7,002 repeats row 12's login, and row 10,001 is alice at example.com (as in ``Fixture``).
    static let largeExport: String = {
        var lines = [bitwardenHeader]
        for index in 0..<10_000 {
            let site = index == 7_000 ? 10 : index
            var (uri, user, password) = ("https://login.site\(site).example.com/signin", "user\(site)@mail.example", "pw-\(index)")
            if index == 4_321 { password = "" }
            if index == 9_999 { (uri, user) = ("example.com", "alice") }
            let totp = index.isMultiple(of: 10) ? "JBSWY3DPEHPK3PXP" : ""
            lines.append(",\(index.isMultiple(of: 7) ? "1" : ""),login,Site \(site),,,0,\(uri),\(user),\(password),\(totp)")
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    @Test func aLargeExportIsImportedOnceAndItsLoginsSkippedTheSecondTime() throws {
        var contents = Fixture.contents
        let first = try contents.importCSV(Self.largeExport, name: "large.csv")
        let logins = first.entries.compactMap { if case .password(let e) = $0 { e } else { nil } }
        let codes = first.entries.compactMap { if case .oneTimeCode(let e) = $0 { e } else { nil } }
        #expect(logins.count == 9_997)
        #expect(codes.count == 999)  // every tenth row, less row 7,002's
        #expect(first.entries.count == logins.count + codes.count)
        #expect(logins.first?.user == "user0@mail.example" && logins.last?.user == "user9998@mail.example")
        #expect(logins.map(\.user) == (0..<9_999).filter { $0 != 4_321 && $0 != 7_000 }.map { "user\($0)@mail.example" })
        #expect(first.problems.map(\.description) == [
            "row 4323: the password is empty; skipped",
            "row 7002: user10@mail.example at https://login.site10.example.com/signin is in the vault already; skipped",
            "row 10001: alice at example.com is in the vault already; skipped",
        ])
        #expect(contents.entries == Fixture.contents.entries + first.entries)
        #expect(Set(contents.entries.map(\.id)).count == contents.entries.count)

        // Again: every login is in the vault now, and each row says so under its own number.
        let before = contents
        let second = try contents.importCSV(Self.largeExport, name: "large.csv")
        #expect(second.entries.isEmpty)
        #expect(contents == before)
        #expect(second.problems.map(\.row) == Array(2...10_001))
        #expect(second.problems.filter { $0.message.hasSuffix(" is in the vault already; skipped") }.count == 9_999)
        #expect(second.problems[4_321].description == "row 4323: the password is empty; skipped")
        for problem in first.problems + second.problems { #expect(!problem.message.contains("pw-")) }
    }

    @Test func aCodeForAnAccountThatHasOneIsLeftOutWhenTheLoginIsNew() throws {
        let csv = """
            \(Self.bitwardenHeader)
            ,,login,A,,,0,https://a.example,alice,pw-1,otpauth://totp/Shared:same?secret=JBSWY3DPEHPK3PXP&issuer=Shared
            ,,login,B,,,0,https://a.example,bob,pw-2,otpauth://totp/Shared:same?secret=JBSWY3DPEHPK3PXP&issuer=Shared

            """
        var contents = VaultContents()
        let result = try contents.importCSV(csv, name: "bw.csv")
        #expect(result.entries.map(\.kind) == ["password", "oneTimeCode", "password"])
        #expect(result.problems.map(\.description) == [
            "row 3: the one-time code for Shared:same at https://a.example is in the vault already; login imported without it"
        ])
        #expect(contents.entries == result.entries)
    }
}
