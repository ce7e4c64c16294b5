import AutofillCore
import Testing
@testable import VaultCore

/// Entries named as people name them: by site and user, by id, by part of a name; never by a secret.
struct EntryQueryTests {
    static let github = ServiceIdentifier(identifier: "https://github.com/login", type: .url)
    static let alice = PasswordEntry(id: "id-alice", service: github, user: "alice", password: Secret("gh-alice-pw"), notes: Secret("note-words"))
    static let bob = PasswordEntry(id: "id-bob", service: ServiceIdentifier(identifier: "github.com", type: .domain), user: "bob", password: Secret("gh-bob-pw"))
    static let code = OneTimeCodeEntry(id: "id-code", service: ServiceIdentifier(identifier: "github.com", type: .domain), label: "alice",
                                       uri: Secret("otpauth://totp/x?secret=JBSWY3DPEHPK3PXP"))
    static let text = TextEntry(id: "id-text", title: "Postal address", text: Secret("1 Main Street"))
    static let contents = VaultContents(entries: [.password(alice), .password(bob), .oneTimeCode(code), .text(text)])

    @Test func aSiteNamesItsOneEntryAndAURLsHostNamesIt() {
        #expect(EntryQuery("GitHub.com", user: "bob").resolve(in: Self.contents) == .found(.password(Self.bob)))
        #expect(EntryQuery("github.com", user: "alice", kinds: [.password]).resolve(in: Self.contents) == .found(.password(Self.alice)))
        #expect(EntryQuery("https://github.com/login").resolve(in: Self.contents) == .found(.password(Self.alice)))
        #expect(EntryQuery("Postal address").resolve(in: Self.contents) == .found(.text(Self.text)))
    }

    @Test func anIdStillNamesItsEntry() {
        #expect(EntryQuery("id-code").resolve(in: Self.contents) == .found(.oneTimeCode(Self.code)))
        #expect(EntryQuery("id-code", kinds: [.password]).resolve(in: Self.contents) == .none)
    }

    @Test func aSiteWithSeveralEntriesIsAmbiguousUntilUserOrKindSayWhich() {
        #expect(EntryQuery("github.com").resolve(in: Self.contents) == .ambiguous([.password(Self.alice), .password(Self.bob), .oneTimeCode(Self.code)]))
        #expect(EntryQuery("github.com", user: "alice").resolve(in: Self.contents) == .ambiguous([.password(Self.alice), .oneTimeCode(Self.code)]))
        #expect(EntryQuery("github.com", user: "alice", kinds: [.otp]).resolve(in: Self.contents) == .found(.oneTimeCode(Self.code)))
        #expect(EntryQuery("github.com", user: "carol").resolve(in: Self.contents) == .none)
    }

    @Test func searchLooksAtNamesNeverAtSecrets() {
        #expect(EntryQuery.search("HUB", in: Self.contents).map(\.id) == ["id-alice", "id-bob", "id-code"])
        #expect(EntryQuery.search("alice", in: Self.contents).map(\.id) == ["id-alice", "id-code"])
        #expect(EntryQuery.search("postal", in: Self.contents).map(\.id) == ["id-text"])
        for secret in ["gh-alice-pw", "note-words", "JBSWY3DP", "Main Street"] {
            #expect(EntryQuery.search(secret, in: Self.contents).isEmpty, "\(secret)")
        }
    }
}
