import AutofillSystem
import Testing

struct LexicalPathTests {
    @Test(arguments: [
        ("/a/b/c", "/a/b/c"), ("/a//b/", "/a/b"), ("/a/./b/.", "/a/b"), ("/a/b/../c", "/a/c"),
        ("/../..", "/"), ("/", "/"), ("", "/"), ("a/b", "/a/b"), ("/a/b/../../../c", "/c"),
        // What the one-pass check takes as standardized already, and what it must not.
        ("/a/.b/c.", "/a/.b/c."), ("/a/.../b", "/a/.../b"), ("/..a/b..", "/..a/b.."), ("/a/.", "/a"), ("/a/..", "/"),
        ("//a", "/a"), ("/a/", "/a"), ("/.", "/"), ("/..", "/"), ("/é/ü", "/é/ü"),
    ])
    func standardizingRemovesDotsAndDoubledSlashesWithoutTheFileSystem(path: String, expected: String) {
        #expect(LexicalPath.standardized(path) == expected)
    }

    @Test func aLinkIsNotFollowed() {
        // /proc/self is a link; lexically, /proc/self/.. is /proc whatever it points to.
        #expect(LexicalPath.standardized("/proc/self/..") == "/proc")
    }

    @Test(arguments: [("/a/b", "/a", "b"), ("/b", "/", "b"), ("b", ".", "b"), ("/a/b/", "/a/b", "")])
    func folderAndNameSplitAtTheLastSlash(path: String, folder: String, name: String) {
        #expect(LexicalPath.folder(of: path) == folder)
        #expect(LexicalPath.name(of: path) == name)
    }
}
