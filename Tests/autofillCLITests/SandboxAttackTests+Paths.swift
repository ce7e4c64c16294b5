import AutofillTestSupport
import Foundation
import Testing

/// Declared paths are resolved before they are checked (issue M): a declaration or setting that leads,
/// through links, to /proc, to autofill's own files, or into the provider's own folder is refused, and
/// a link to a folder of the user's is granted at the folder it leads to.
extension SandboxAttackTests {
    var netrcSecret: String { "netrc-secret-pw" }

    func expectRefused(_ result: CLI.Result, naming text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status != 0, "refused", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(!result.stdout.contains(netrcSecret) && !result.stderr.contains(netrcSecret), sourceLocation: sourceLocation)
    }

    @Test func procSelfRootIsRefusedAndAFolderOfTheUsersIsGranted() throws {
        let netrc = "\(home.path)/netrc/netrc"
        for path in ["/proc/self/root", "/proc/self/root\(home.path)", "/proc/self/cwd", "/sys/kernel"] {
            let (_, result) = try attack("read-file", target: netrc, sandbox: Self.files([("Path", path, "read")]))
            expectRefused(result, naming: "would be given \(path)")
        }
        // Control: the same declaration of an ordinary folder reads it.
        try FileManager.default.createDirectory(atPath: "\(home.path)/mine", withIntermediateDirectories: true)
        try Data("its own file\n".utf8).write(to: URL(fileURLWithPath: "\(home.path)/mine/notes.txt"))
        let (outcome, result) = try attack("read-file", target: "\(home.path)/mine/notes.txt",
                                           sandbox: Self.files([("Path", "\(home.path)/mine", "read")]))
        #expect(outcome == "ok read 13 bytes", "\(result.stderr)")
    }

    @Test func aDeclaredLinkToAutofillsFolderIsRefusedAndALinkToTheUsersFolderIsFollowedOnce() throws {
        let files = FileManager.default
        let autofillFolder = "\(home.path)/.config/autofill"
        try files.createDirectory(atPath: autofillFolder, withIntermediateDirectories: true)
        try files.createSymbolicLink(atPath: "\(home.path)/notes", withDestinationPath: autofillFolder)
        let sandbox = Self.files([("Path", "~/notes", "read-write-folder")])
        var (_, result) = try attack("write-file", target: "\(home.path)/notes/evil", sandbox: sandbox)
        expectRefused(result, naming: "\(home.path)/notes, which is \(autofillFolder)")
        #expect(result.stderr.contains("which autofill keeps for itself"))
        #expect(!files.fileExists(atPath: "\(autofillFolder)/evil"))
        // Control: the same link to a folder of the user's grants that folder, through the link.
        try files.removeItem(atPath: "\(home.path)/notes")
        try files.createDirectory(atPath: "\(home.path)/mine", withIntermediateDirectories: true)
        try files.createSymbolicLink(atPath: "\(home.path)/notes", withDestinationPath: "\(home.path)/mine")
        var outcome: String
        (outcome, result) = try attack("write-file", target: "\(home.path)/notes/fine", sandbox: sandbox)
        #expect(outcome == "ok wrote", "\(result.stderr)")
        #expect(files.fileExists(atPath: "\(home.path)/mine/fine"))
    }

    @Test func pathsInItsOwnFolderAreRefusedEvenAfterItMadeThemLinks() throws {
        let data = "\(home.path)/.local/share/autofill/providers/\(Self.id)"
        let sandbox = Self.files([("Path", "$XDG_DATA_HOME/autofill/providers/\(Self.id)/root", "read"),
                                  ("Path", "$XDG_DATA_HOME/autofill/providers/\(Self.id)/config", "read-write-folder")])
        var (_, result) = try attack("read-file", target: "\(home.path)/netrc/netrc", sandbox: sandbox)
        expectRefused(result, naming: "is in its own folder \(data)")
        // What its first run would have left there: links to / and to autofill's configuration.
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(data)/root", withDestinationPath: "/")
        try FileManager.default.createSymbolicLink(atPath: "\(data)/config", withDestinationPath: "\(home.path)/.config/autofill")
        (_, result) = try attack("read-file", target: "\(home.path)/netrc/netrc", sandbox: sandbox)
        expectRefused(result, naming: "\(data)/root, which is /")
        // Control: its own folder needs no declaration, and is its own to use.
        var outcome: String
        (outcome, result) = try attack("write-file", target: "\(data)/notes")
        #expect(outcome == "ok wrote", "\(result.stderr)")
    }
}
