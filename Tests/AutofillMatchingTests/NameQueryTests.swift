import AutofillCore
import AutofillMatching
import Testing

/// Searching by name (docs/MATCHING.md, "Found by name"): which terms are names, which fields
/// match, and how well.
struct NameQueryTests {
    static func password(_ site: String, user: String, record: String? = nil) -> CredentialIdentity {
        .password(.init(serviceIdentifier: .init(identifier: site, type: .domain), user: user, recordIdentifier: record))
    }

    @Test(arguments: ["fastmail", "github", "Email/fastmail", "  bank ", "Finance/bank/old", "Éclair"])
    func aTermWithoutSchemeDotOrPortBeforeItsFirstSlashIsAName(term: String) {
        #expect(NameQuery.isName(term))
    }

    @Test(arguments: ["fastmail.com", "https://nas", "nas:5000", "localhost", "LOCALHOST/admin", "[::1]", "10.0.0.1",
                      "example.com/login", "", "   "])
    func aTermThatNamesASiteIsNotAName(term: String) {
        #expect(!NameQuery.isName(term))
    }

    @Test func exactThenPrefixThenSubstringOnNameUserAndSiteCaseInsensitively() throws {
        let query = try #require(NameQuery("FastMail"))
        #expect(query.match(Self.password("", user: "", record: "Email/fastmail")) == .exactName, "a name's last component")
        #expect(query.match(Self.password("www.fastmail.com", user: "me")) == .exactName, "the site without its public suffix")
        #expect(query.match(Self.password("example.com", user: "fastmail")) == .exactName)
        #expect(query.match(Self.password("example.com", user: "fastmail-admin")) == .namePrefix)
        #expect(query.match(Self.password("fastmailer.example", user: "me")) == .namePrefix, "a site that starts with it")
        #expect(query.match(Self.password("mail.fastmail.example", user: "me")) == .exactName, "its registrable domain's label")
        #expect(query.match(Self.password("example.com", user: "me", record: "Mail/fastmail-old")) == .namePrefix)
        #expect(query.match(Self.password("example.com", user: "me@fastmail.com")) == .nameSubstring)
        #expect(query.match(Self.password("example.com", user: "me", record: "Old/myfastmail")) == .nameSubstring)
        #expect(query.match(Self.password("example.com", user: "alice", record: "Email/gmail")) == nil)
        #expect(MatchQuality.exactName < .namePrefix && MatchQuality.namePrefix < .nameSubstring)
    }

    @Test func passkeysMatchOnTheRelyingPartyAndCodesOnTheirLabel() throws {
        let query = try #require(NameQuery("github"))
        #expect(query.match(.passkey(.init(relyingPartyIdentifier: "github.com", userName: "octo", credentialID: [1], userHandle: [2]))) == .exactName)
        #expect(query.match(.oneTimeCode(.init(serviceIdentifier: .init(identifier: "example.com", type: .domain), label: "GitHub backup"))) == .namePrefix)
    }

    /// The attacker's case is noise, not secrets: opaque ids must not make every entry match a short hex term.
    @Test(arguments: ["6f1c0a4e-8d4b-4d5e-9a1b-0c2d3e4f5a6b", "6F1C0A4E8D4B4D5E9A1B0C2D3E4F5A6B#otp", "otp-cbf29ce484222325",
                      "otp-cbf29ce484222325-2", "/org/freedesktop/secrets/collection/login/42"])
    func opaqueRecordIdentifiersAreNotNamesAndNeverMatch(record: String) throws {
        let identity = Self.password("example.com", user: "alice", record: record)
        #expect(NameQuery.name(of: identity) == nil)
        for term in ["6f1c", "cbf29", "otp", "login", "freedesktop", "a6b"] {
            #expect(try #require(NameQuery(term)).match(identity) == nil, "\(term) in \(record)")
        }
        // The control: a readable record identifier is the name.
        #expect(NameQuery.name(of: Self.password("example.com", user: "alice", record: "Work/login")) == "Work/login")
    }

    @Test func anEmptyTermIsNoQuery() {
        #expect(NameQuery("") == nil)
        #expect(NameQuery(" \t") == nil)
        #expect(NameQuery(" bank ")?.term == "bank")
    }
}
