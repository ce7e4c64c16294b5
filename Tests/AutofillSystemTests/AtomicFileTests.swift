import AutofillSystem
import AutofillTestSupport
import Foundation
import Testing

struct AtomicFileTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder("atomic")
    }

    func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }
    }

    @Test func aWriteReplacesTheFileWithTheModeAndLeavesNoTemporaryFile() throws {
        let path = try folder.file("state.json", "old")
        let status = try AtomicFile.write(Array("new".utf8), to: path, mode: 0o640)
        #expect(contents(path) == Array("new".utf8))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o640)
        var info = stat()
        #expect(stat(path, &info) == 0 && status?.inode == UInt64(info.st_ino), "the status returned is the new file's")
        #expect(try leftovers().isEmpty)
    }

    @Test(arguments: [AtomicFile.FailurePoint.beforeRename, .crashBeforeRename])
    func aFailureBeforeTheRenameLeavesTheOldFile(_ failure: AtomicFile.FailurePoint) throws {
        let path = try folder.file("state.json", "old")
        #expect(throws: AtomicFile.Failure.self) { try AtomicFile.write(Array("new".utf8), to: path, failing: failure) }
        #expect(contents(path) == Array("old".utf8))
        // A crash leaves its temporary file (hidden, named after the file); a failure removes it.
        let left = try leftovers()
        #expect(left.count == (failure == .crashBeforeRename ? 1 : 0), "\(left)")
        #expect(left.allSatisfy { $0.hasPrefix(".state.json.") })
    }

    @Test func aLinkPlantedWhereTheTemporaryFileGoesIsNeverFollowed() throws {
        // The attacker's guess at the temporary name is useless: it is random and created exclusively.
        // Control: the same write succeeds beside a planted link, and the link's target is untouched.
        let target = try folder.file("elsewhere", "precious")
        let path = "\(folder.path)/state.json"
        try FileManager.default.createSymbolicLink(atPath: "\(folder.path)/.state.json.tmp", withDestinationPath: target)
        try AtomicFile.write(Array("new".utf8), to: path)
        #expect(contents(path) == Array("new".utf8))
        #expect(contents(target) == Array("precious".utf8))
    }

    @Test func aFolderThatCannotBeWrittenIsNamedInTheFailure() throws {
        let failure = try #require(throws: AtomicFile.Failure.self) {
            try AtomicFile.write(Array("x".utf8), to: "\(folder.path)/no-such-folder/state.json")
        }
        #expect(failure.description == "cannot open the folder \(folder.path)/no-such-folder: No such file or directory")
        #expect(failure.code == ENOENT)
    }
}
