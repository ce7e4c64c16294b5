import AutofillHost
import Foundation
import Glibc
import Testing

/// Bundles other users could change are refused, naming the path and the fix.
struct PluginPermissionsTests {
    let folder: TemporaryFolder
    let bundle: String

    init() throws {
        folder = try TemporaryFolder()
        bundle = try TestPlugins.fixture(in: "\(folder.path)/plugins", name: "Safe", plist: TestPlugins.plist(id: "org.t.safe"))
    }

    var library: String { "\(bundle)/libFixture.so" }

    @Test func aBundleOnlyYouCanWriteHasNoProblems() {
        #expect(PluginPermissions.problems(bundle: bundle).isEmpty)
        #expect(PluginPermissions.refusedValidation(bundle: bundle) == nil)
    }

    @Test func aWorldWritableLibraryIsRefusedWithTheChmodThatFixesIt() throws {
        chmod(library, 0o757)
        let problems = PluginPermissions.problems(bundle: bundle)
        #expect(problems.count == 1)
        #expect(problems.first?.code == .unsafePermissions)
        #expect(problems.first?.file == library)
        #expect(problems.first?.message == "this file of the plugin is writable by every user (mode 0757): users other than you could change the plugin")
        #expect(problems.first?.fix == "`chmod go-w \(library)`")
    }

    @Test(.enabled(if: getuid() == 0, "changing a file's group to one you are not in needs root"))
    func aFileWritableByASharedGroupIsRefused() throws {
        let plist = "\(bundle)/Info.plist"
        chmod(plist, 0o664)
        #expect(chown(plist, 0, 100) == 0)
        let problems = PluginPermissions.problems(bundle: bundle)
        #expect(problems.map(\.file) == [plist])
        #expect(problems.first?.message.contains("is writable by the group users (gid 100) (mode 0664)") == true)
    }

    /// Debian's user private groups (umask 002): the owner's primary group, named after the owner,
    /// with no other members. Root's group `root` is one on this kind of system.
    static var userHasPrivateGroup: Bool {
        guard let user = getpwuid(getuid()), let group = getgrgid(user.pointee.pw_gid) else { return false }
        return String(cString: group.pointee.gr_name) == String(cString: user.pointee.pw_name) && group.pointee.gr_mem.pointee == nil
    }

    @Test(.enabled(if: userHasPrivateGroup, "needs a user private group (named after the user, no other members)"))
    func aFileWritableByYourOwnPrivateGroupIsAllowed() throws {
        let user = try #require(getpwuid(getuid()))
        chmod(library, 0o775)
        #expect(chown(library, getuid(), user.pointee.pw_gid) == 0)
        #expect(PluginPermissions.problems(bundle: bundle).isEmpty)
    }

    @Test func aSearchFolderOthersCanWriteIsRefusedEvenWhenSticky() throws {
        chmod("\(folder.path)/plugins", 0o1777)
        let problems = PluginPermissions.problems(bundle: bundle)
        #expect(problems.map(\.file) == ["\(folder.path)/plugins"])
        #expect(problems.first?.message.contains("the folder holding the plugin bundle is writable by every user (mode 01777)") == true)
        #expect(problems.first?.fix.contains("a folder only you can write") == true)
        chmod("\(folder.path)/plugins", 0o777)
        #expect(PluginPermissions.problems(bundle: bundle).first?.fix == "`chmod go-w \(folder.path)/plugins`")
    }

    @Test func aStickyRootOwnedFolderAboveIsFineButAWritableOneIsNot() throws {
        // The temporary folder lives in /tmp (1777, root): others cannot rename our folder inside it.
        #expect(PluginPermissions.problems(bundle: bundle).isEmpty)
        chmod(folder.path, 0o777)
        defer { chmod(folder.path, 0o755) }
        let problems = PluginPermissions.problems(bundle: bundle)
        #expect(problems.map(\.file) == [folder.path])
        #expect(problems.first?.message.contains("a folder above the plugin bundle is writable by every user") == true)
    }

    @Test func aSymbolicLinkIsJudgedByItsTarget() throws {
        let outside = try TemporaryFolder()
        chmod(outside.path, 0o777)
        try FileManager.default.moveItem(atPath: library, toPath: "\(outside.path)/libFixture.so")
        try FileManager.default.createSymbolicLink(atPath: library, withDestinationPath: "\(outside.path)/libFixture.so")
        let problems = PluginPermissions.problems(bundle: bundle)
        #expect(problems.map(\.file) == [outside.path])
    }

    @Test(.enabled(if: getuid() == 0, "giving a file to another user needs root"))
    func aBundleOwnedByAnotherUserIsRefused() throws {
        #expect(chown(bundle, 54321, 54321) == 0)
        let problems = PluginPermissions.problems(bundle: bundle)
        #expect(problems.map(\.file) == [bundle])
        #expect(problems.first?.message == "the plugin bundle belongs to uid 54321, not to you or root: that user could change the plugin")
        #expect(problems.first?.fix.contains("`chown root \(bundle)` as root") == true)
    }

    @Test func validateReportsOnlyThePermissionsOfAnUnsafeBundle() throws {
        chmod(bundle, 0o777)
        let validation = try #require(PluginPermissions.refusedValidation(bundle: bundle))
        #expect(!validation.isValid)
        #expect(validation.manifest == nil, "nothing else of an unsafe bundle is read")
        #expect(validation.problems.map(\.code) == [.unsafePermissions])
    }
}
