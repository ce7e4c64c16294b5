import AutofillMatching
import Foundation
import Testing

/// The public suffix list says what is registrable, from libpsl.
struct PublicSuffixListTests {
    let list = PublicSuffixList.shared

    @Test(arguments: [
        ("example.co.uk", "example.co.uk"), ("a.b.example.co.uk", "example.co.uk"), ("www.example.com", "example.com"),
        ("alice.github.io", "alice.github.io"), ("x.alice.github.io", "alice.github.io"),
        ("mybucket.s3.amazonaws.com", "mybucket.s3.amazonaws.com"), ("console.amazonaws.com", "amazonaws.com"),
        ("a.xn--p1ai", "a.xn--p1ai"), ("WWW.Example.COM", "example.com"), ("www.ck", "www.ck"),
    ])
    func theRegistrableDomainIsOneLabelBelowThePublicSuffix(_ host: String, _ registrable: String) {
        #expect(list.registrableDomain(host) == registrable)
    }

    @Test(arguments: ["co.uk", "com", "github.io", "s3.amazonaws.com", "intranet", "xn--p1ai", "foo.ck", ""])
    func aPublicSuffixHasNoRegistrableDomain(_ host: String) {
        #expect(list.registrableDomain(host) == nil)
    }

    @Test(arguments: [("github.io", true), ("co.uk", true), ("com", true), ("intranet", true), ("example.com", false),
                      ("alice.github.io", false), ("amazonaws.com", false), ("www.ck", false), ("", false)])
    func publicSuffixesIncludeThePrivateSectionAndUnlistedTopLevelLabels(_ host: String, _ isSuffix: Bool) {
        #expect(list.isPublicSuffix(host) == isSuffix)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/publicsuffix/public_suffix_list.dat")))
    func aListCanBeLoadedFromAFile() throws {
        let loaded = try #require(PublicSuffixList(contentsOfFile: "/usr/share/publicsuffix/public_suffix_list.dat"))
        #expect(loaded.registrableDomain("a.b.example.co.uk") == "example.co.uk")
        #expect(loaded.isPublicSuffix("github.io"))
    }

    @Test func aMissingFileLoadsNoList() {
        #expect(PublicSuffixList(contentsOfFile: "/nonexistent/public_suffix_list.dat") == nil)
    }

    @Test func theSharedListAnswersConcurrentReaders() async {
        let answers = await withTaskGroup(of: String?.self) { group in
            for index in 0..<64 {
                group.addTask { PublicSuffixList.shared.registrableDomain("host\(index).a.b.example.co.uk") }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers == Array(repeating: "example.co.uk", count: 64))
    }
}
