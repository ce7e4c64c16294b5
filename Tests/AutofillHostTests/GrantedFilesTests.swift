@testable import AutofillHost
import AutofillTestSupport
import Foundation
import Glibc
import Testing

/// ``GrantedFiles``: which declared single files a helper's sandbox holds by an inode that was replaced
/// since it started. A rename over the file is seen; a write in place (the same inode, which the sandbox
/// shows) is not; the host's own replace is adopted; a file the provider opens through the host
/// (`open_file`) is no longer watched.
struct GrantedFilesTests {
    let folder: TemporaryFolder
    let file: String

    init() throws {
        folder = try TemporaryFolder("granted")
        file = "\(folder.path)/Passwords.kdbx"
        try Data("one".utf8).write(to: URL(fileURLWithPath: file))
    }

    func renameOver(_ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: "\(folder.path)/new"))
        #expect(rename("\(folder.path)/new", file) == 0)
    }

    @Test func aFileRenamedOverIsReplacedAndAWriteInPlaceIsNot() throws {
        let files = GrantedFiles(taking: [file])
        #expect(files.replaced() == nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.write(contentsOf: Data("in place".utf8))
        try handle.close()
        #expect(files.replaced() == nil, "the same inode: the sandbox shows the change")
        try renameOver("two")
        #expect(files.replaced() == file)
    }

    @Test func theHostsOwnReplaceIsAdopted() throws {
        var files = GrantedFiles(taking: [file])
        try renameOver("two")
        files.adopt(file)
        #expect(files.replaced() == nil)
        files.adopt("\(folder.path)/other")
        #expect(!files.watches("\(folder.path)/other"), "a path that is not one of the files is ignored")
    }

    @Test func aFileOpenedThroughTheHostIsNoLongerWatched() throws {
        var files = GrantedFiles(taking: [file])
        files.follow(file)
        try renameOver("two")
        #expect(files.replaced() == nil && !files.watches(file))
    }

    @Test func aFileMissingAtTheStartThatAppearsIsReplaced() throws {
        let missing = "\(folder.path)/later.kdbx"
        let files = GrantedFiles(taking: [missing])
        #expect(files.replaced() == nil)
        try Data("new".utf8).write(to: URL(fileURLWithPath: missing))
        #expect(files.replaced() == missing)
    }
}
