import AutofillSystem
import AutofillTestSupport
import Foundation
import Glibc
import Testing

/// `RealPath.resolve` within a request's memo (each path from its resolved folder) gives what
/// `realpath(3)` gives, links anywhere along the path included; and the next request sees a change.
struct RealPathTests {
    let folder: TemporaryFolder
    let root: String

    /// a/ (folder), a/file, a/link-to-b -> ../b, b/ (folder), b/inner/, rel -> a, abs -> ROOT/b/inner,
    /// dangling -> nowhere, loop -> loop, a/file-link -> file.
    init() throws {
        folder = try TemporaryFolder("realpath")
        root = try #require(Self.realpath3(folder.path))
        let files = FileManager.default
        for folder in ["a", "b", "b/inner"] { try files.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true) }
        #expect(files.createFile(atPath: "\(root)/a/file", contents: Data("x".utf8)))
        for (link, target) in [("a/link-to-b", "../b"), ("rel", "a"), ("abs", "\(root)/b/inner"), ("dangling", "nowhere"), ("loop", "loop"), ("a/file-link", "file")] {
            try files.createSymbolicLink(atPath: "\(root)/\(link)", withDestinationPath: target)
        }
    }

    static func realpath3(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    @Test func withinARequestEveryPathResolvesAsRealpathDoes() throws {
        let paths = ["/", "/tmp", root, "\(root)/a", "\(root)/a/file", "\(root)/a/link-to-b", "\(root)/a/link-to-b/inner",
                     "\(root)/rel/file", "\(root)/rel/link-to-b/inner", "\(root)/abs", "\(root)/abs/..", "\(root)/dangling",
                     "\(root)/dangling/x", "\(root)/loop", "\(root)/loop/x", "\(root)/a/file/x", "\(root)/a/file-link",
                     "\(root)/missing", "\(root)/missing/x", "\(root)/a/", "\(root)//a", "\(root)/a/./file", "/proc/self", "/proc/self/exe"]
        RealPath.$memo.withValue(RealPath.Memo()) {
            for _ in 0..<2 {  // the second time from the memo
                for path in paths {
                    #expect(RealPath.resolve(path) == Self.realpath3(path), "\(path)")
                }
            }
        }
        for path in paths { #expect(RealPath.resolve(path) == Self.realpath3(path), "\(path) without a memo") }
    }

    @Test func aLinkPlantedBetweenTwoRequestsIsSeenByTheSecond() throws {
        let path = "\(root)/b/inner"
        let first = RealPath.$memo.withValue(RealPath.Memo()) { RealPath.resolve(path) }
        #expect(first == path)
        // b replaced by a link to a (by a rename, as an attacker would).
        #expect(rename("\(root)/b", "\(root)/b-old") == 0)
        #expect(symlink("\(root)/a", "\(root)/b") == 0)
        try FileManager.default.createDirectory(atPath: "\(root)/a/inner", withIntermediateDirectories: false)
        let second = RealPath.$memo.withValue(RealPath.Memo()) { RealPath.resolve(path) }
        #expect(second == "\(root)/a/inner")
    }

    @Test func aFoldersStatusIsKeptForOneRequestAndAFilesNever() throws {
        let sub = "\(root)/b", file = "\(root)/a/file"
        chmod(sub, 0o755)
        chmod(file, 0o644)
        RealPath.$memo.withValue(RealPath.Memo()) {
            #expect(RealPath.status(of: sub).map { $0.mode & 0o777 } == 0o755)
            #expect(RealPath.status(of: file).map { $0.mode & 0o777 } == 0o644)
            chmod(sub, 0o700)
            chmod(file, 0o600)
            #expect(RealPath.status(of: sub).map { $0.mode & 0o777 } == 0o755, "a folder's status is kept for the request")
            #expect(RealPath.status(of: file).map { $0.mode & 0o777 } == 0o600, "a file's status is never kept")
        }
        chmod(sub, 0o777)
        RealPath.$memo.withValue(RealPath.Memo()) {
            #expect(RealPath.status(of: sub).map { $0.mode & 0o777 } == 0o777, "the next request sees the change")
        }
        #expect(RealPath.status(of: "\(root)/missing") == nil)
    }
}
