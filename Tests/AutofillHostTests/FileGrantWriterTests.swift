@testable import AutofillHost
import AutofillTestSupport
import Foundation
import Testing

/// ``FileGrantWriter`` on its own: which names it takes, and that it writes beneath the grant it was
/// given whatever folder spelling the provider uses (the CLI's FileGrantTests run it through the agent).
struct FileGrantWriterTests {
    @Test(arguments: [
        ("example.com/alice.gpg", nil),
        ("a.gpg", nil),
        ("deep/er/still/x.gpg", nil),
        ("", "is empty"),
        (".gpg-id", "hidden component"),
        (".extensions/evil.gpg", "hidden component"),
        (".git/commondir.gpg", "hidden component"),
        ("a/../b.gpg", "has a .. component"),
        ("a/./b.gpg", "has a . component"),
        ("a//b.gpg", "empty component"),
        ("a.gpg/", "empty component"),
        ("a\u{0}b.gpg", "control character"),
        ("a\nb.gpg", "control character"),
        ("a.gpg.txt", "does not end with .gpg"),
        ("a.GPG", "does not end with .gpg"),
        (String(repeating: "a", count: 252) + ".gpg", "longer than 255 bytes"),
        (Array(repeating: "a", count: 33).joined(separator: "/") + ".gpg", "more than 32 components"),
    ] as [(String, String?)])
    func aNameIsTakenOnlyWhenPlainVisibleAndWithTheSuffix(name: String, problem: String?) {
        let found = FileGrantWriter.nameProblem(name, suffix: ".gpg")
        if let problem {
            #expect(found?.contains(problem) == true, "\(found ?? "nil")")
        } else {
            #expect(found == nil, "\(found ?? "")")
        }
    }

    @Test func theFileGoesBeneathTheResolvedGrantWithNoTemporaryFileLeft() throws {
        let folder = try TemporaryFolder("grant")
        let store = "\(folder.path)/store"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let writer = FileGrantWriter(folders: [.init(written: "\(folder.path)/link", path: store, suffix: ".gpg", gitCommit: false)],
                                     environment: [:])
        // Named as the setting wrote it (a link), the file lands in the resolved folder.
        let done = try writer.add(folder: "\(folder.path)/link/", name: "site/u.gpg", contents: Array("ciphertext".utf8), provider: "P")
        #expect(done == "added site/u.gpg in \(store)")
        #expect(FileManager.default.contents(atPath: "\(store)/site/u.gpg") == Data("ciphertext".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(store)/site") == ["u.gpg"])
        // Too big, or empty: refused before anything is opened.
        #expect(throws: FileGrantWriter.Failure.self) {
            try writer.add(folder: store, name: "big.gpg", contents: Array(repeating: 0, count: 1_048_577), provider: "P")
        }
        #expect(throws: FileGrantWriter.Failure.self) { try writer.add(folder: store, name: "empty.gpg", contents: [], provider: "P") }
        #expect(!FileManager.default.fileExists(atPath: "\(store)/big.gpg"))
    }
}
