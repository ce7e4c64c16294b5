import AutofillCore
import AutofillHost
import AutofillMatching
import AutofillStore
import Testing

/// A search by name across providers' real SQLite stores (`SuggestionEngine.suggestions(named:)`).
struct NameSearchTests {
    let folder: TemporaryFolder
    let engine: SuggestionEngine

    static func password(_ site: String, _ user: String, record: String? = nil, rank: Int = 0) -> CredentialIdentity {
        .password(.init(serviceIdentifier: .init(identifier: site, type: .domain), user: user, recordIdentifier: record, rank: rank))
    }

    /// pass-like entries in one store (paths as record identifiers, one without any site), UUIDs in
    /// another (KeePassXC-like), in the user's order pass, keepass.
    init() throws {
        folder = try TemporaryFolder()
        let directory = IdentityStoreDirectory(path: folder.path)
        let pass = try SQLiteIdentityStore.open(providerID: "pass", in: directory)
        try pass.setEnabled(true)
        try pass.save([
            Self.password("imap.example.net", "", record: "Email/fastmail"),  // found by its name only
            Self.password("github.com", "octocat", record: "github.com/octocat"),
            Self.password("example.com", "me@fastmail.com", record: "example.com/me"),
        ])
        let keepass = try SQLiteIdentityStore.open(providerID: "keepass", in: directory)
        try keepass.setEnabled(true)
        try keepass.save([
            Self.password("www.fastmail.com", "alice", record: "6f1c0a4e-8d4b-4d5e-9a1b-0c2d3e4f5a6b"),
            Self.password("fastmailer.example", "bob", record: "0a1b2c3d-8d4b-4d5e-9a1b-0c2d3e4f5a6b"),
            Self.password("bank.example", "carol", record: "1a1b2c3d-8d4b-4d5e-9a1b-0c2d3e4f5a6b"),
        ])
        engine = SuggestionEngine(sources: [
            .init(providerID: "pass", providerName: "pass", position: 0, capabilities: Capabilities([Capability.providesPasswords]), store: pass),
            .init(providerID: "keepass", providerName: "KeePassXC", position: 1, capabilities: Capabilities([Capability.providesPasswords]), store: keepass),
        ])
    }

    func found(_ term: String) throws -> [String] {
        try engine.suggestions(named: try #require(NameQuery(term)), kinds: [.password])
            .map { "\($0.match.description): \($0.providerID) \($0.identity.displayUser)" }
    }

    @Test func aNameFindsAcrossProvidersExactThenPrefixThenSubstring() throws {
        #expect(try found("fastmail") == [
            "exact name: pass ",  // Email/fastmail
            "exact name: keepass alice",  // www.fastmail.com
            "name prefix: keepass bob",  // fastmailer.example
            "name contains: pass me@fastmail.com",
        ])
        #expect(try found("GITHUB") == ["exact name: pass octocat"])
        #expect(try found("nothing-like-it").isEmpty)
    }

    @Test func aSiteTermStillSearchesBySiteAndAnEmptyResultGivesTheNameHint() throws {
        let site = try SearchTerm("fastmail.com")
        guard case .site = site else { Issue.record("fastmail.com is a site"); return }
        #expect(try engine.suggestions(for: site, kinds: [.password]).map(\.identity.displayUser) == ["alice"])
        let missing = try SearchTerm("https://www.nowhere.example/login")
        #expect(try engine.suggestions(for: missing, kinds: [.password]).isEmpty)
        #expect(missing.nameSearchLabel == "nowhere")  // the CLI's hint: `autofill suggest nowhere`
        #expect(try SearchTerm("fastmail").nameSearchLabel == nil)
        guard case .name = try SearchTerm("fastmail.com", byName: true) else { Issue.record("--name makes any term a name"); return }
        // A URL with a password before its host, searched as a name: the password is not part of the term.
        let typed = try SearchTerm("https://alice:hunter2@mail.fastmail.com/login", byName: true)
        #expect(!typed.description.contains("hunter2") && typed.description.contains("mail.fastmail.com"), "\(typed)")
    }
}
