import AutofillTestSupport
import Foundation
import Testing

/// add-files grants (docs/SANDBOX.md): a provider reads its store and hands the host each file to write
/// (`add_file`); the host writes only plain, non-hidden `*Suffix` names beneath the grant, never through a
/// link, and commits them when the store is a git repository. Through the real `autofill save` and a
/// provider that asks for what it is told (Fixtures/file_grant_provider.c); each refusal has its control.
struct FileGrantTests {
    let home: TemporaryHome
    let store: String

    static let id = "org.t.writer"

    init() throws {
        home = try TemporaryHome()
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        store = "\(home.path)/store"
        try FileManager.default.createDirectory(atPath: "\(store)/sub", withIntermediateDirectories: true)
        try Data("KEYID\n".utf8).write(to: URL(fileURLWithPath: "\(store)/.gpg-id"))
        try Self.git(["init", "-q", store])
        try Self.git(["-C", store, "config", "user.name", "Test"])
        try Self.git(["-C", store, "config", "user.email", "test@example.invalid"])
        try Self.git(["-C", store, "add", ".gpg-id"])
        try Self.git(["-C", store, "commit", "-q", "-m", "Initial"])
    }

    @discardableResult
    static func git(_ arguments: [String]) throws -> String {
        let result = try ChildProcess.run("/usr/bin/git", arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"])
        try #require(result.status == 0, "git \(arguments): \(result.stderr)")
        return result.stdout
    }

    /// The declaration: the setting StoreDir as an add-files folder of `.gpg` files, committed.
    static var addFiles: [String: Any] {
        ["Files": [["Setting": "StoreDir", "Access": "add-files", "Suffix": ".gpg", "GitCommit": true]]]
    }

    /// Builds and approves the writer with `sandbox`, then saves `password` with it: the provider asks
    /// the host for `name` in `folder` (default: the store), or acts as `mode` says.
    func save(name: String, folder: String? = nil, mode: String = "add", sandbox: [String: Any] = Self.addFiles,
              password: String = "s3cret-Pw") throws -> CLI.Result {
        let bundle = "\(home.path)/plugins/Writer.afprovider"
        if !FileManager.default.fileExists(atPath: "\(bundle)/libWriter.so") {
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            let compiled = try ChildProcess.run("/usr/bin/cc", [
                "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden", "-I", FixturePlugin.abiInclude,
                "\(CLI.root)/Tests/AutofillHostTests/Fixtures/file_grant_provider.c", "-o", "\(bundle)/libWriter.so",
            ])
            try #require(compiled.status == 0, "cc: \(compiled.stderr)")
        }
        var plist = FixturePlugin.plist(id: Self.id, name: "Writer", executable: "libWriter.so", entry: "file_grant_provider_entry",
                                        capabilities: ["ProvidesPasswords": true, "SupportsSavePasswordCredentials": true])
        plist["AFProviderSandbox"] = sandbox
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: "\(bundle)/Info.plist"))
        let configuration: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": [Self.id],
            "ProviderSettings": [Self.id: ["StoreDir": store, "Folder": folder ?? store, "Name": "name:" + name, "Mode": mode]],
            "UserAuthentication": ["Policy": "none"],
        ]
        let config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: configuration, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust([Self.id], config: config)
        return try CLI.run(["save", "example.com", "--user", "alice", "--provider", Self.id, "--config", config, "-v"],
                           home: home.path, input: password + "\n")
    }

    /// Every file beneath the store but git's own, relative to it.
    func storeFiles() -> [String] {
        let walker = FileManager.default.enumerator(atPath: store)
        var files: [String] = []
        while let path = walker?.nextObject() as? String {
            if path == ".git" { walker?.skipDescendants(); continue }
            files.append(path)
        }
        return files.sorted()
    }

    var commits: [String] { ((try? Self.git(["-C", store, "log", "--format=%s"])) ?? "").split(separator: "\n").map(String.init) }

    @Test func theHostAddsAndReplacesAFileAndCommitsItAsPassInsertDoes() throws {
        var result = try save(name: "example.com/alice.gpg")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: "\(store)/example.com/alice.gpg") == Data("s3cret-Pw".utf8))
        #expect(commits.first == "Add given password for example.com/alice to store.")
        var info = stat()
        #expect(stat("\(store)/example.com", &info) == 0 && info.st_mode & 0o777 == 0o700, "a new folder is 0700")
        #expect(stat("\(store)/example.com/alice.gpg", &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(!result.stderr.contains("s3cret-Pw"))
        result = try save(name: "example.com/alice.gpg", password: "n3w-Pw")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: "\(store)/example.com/alice.gpg") == Data("n3w-Pw".utf8))
        #expect(commits.first == "Edit password for example.com/alice using autofill.")
        #expect(try Self.git(["-C", store, "status", "--porcelain"]).isEmpty, "the store is clean: no temporary file is left")
    }

    @Test(arguments: [
        (".git/hooks/post-commit", "hidden component (.git)"),
        (".git/config.gpg", "hidden component (.git)"),
        ("../x.gpg", "has a .. component"),
        ("sub/.gpg-id", "hidden component (.gpg-id)"),
        ("sub/.x.gpg", "hidden component (.x.gpg)"),
        ("./a.gpg", "has a . component"),
        ("a//b.gpg", "empty component"),
        ("/abs.gpg", "empty component"),
        ("notes.txt", "does not end with .gpg"),
        (".gpg", "hidden component"),
        ("sub/x.gpg/", "empty component"),
    ])
    func aNameThatIsHiddenEscapesOrLacksTheSuffixIsRefusedAndNothingIsWritten(name: String, why: String) throws {
        let before = storeFiles()
        let result = try save(name: name)
        #expect(result.status != 0)
        #expect(result.stderr.contains("denied -8") && result.stderr.contains(why), "\(result.stderr)")
        #expect(storeFiles() == before)
        #expect(!FileManager.default.fileExists(atPath: "\(home.path)/x.gpg"))
        #expect(commits == ["Initial"])
    }

    @Test func aLinkOnTheWayIsNeverFollowed() throws {
        let outside = "\(home.path)/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(store)/link", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: "\(store)/sub/entry.gpg", withDestinationPath: "\(outside)/target.gpg")
        var result = try save(name: "link/x.gpg")
        #expect(result.status != 0)
        #expect(result.stderr.contains("denied -8") && result.stderr.contains("is a symbolic link"), "\(result.stderr)")
        result = try save(name: "sub/entry.gpg")
        #expect(result.stderr.contains("denied -8") && result.stderr.contains("symbolic link"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        #expect(commits == ["Initial"])
        // Control: a plain folder beside them takes the file.
        result = try save(name: "sub/ok.gpg")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(store)/sub/ok.gpg"))
    }

    @Test func aFolderNotDeclaredAsAddFilesIsRefused() throws {
        let other = "\(home.path)/readable"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        // Declared, but read only.
        let readOnly: [String: Any] = ["Files": [["Setting": "StoreDir", "Access": "read"]]]
        var result = try save(name: "a.gpg", sandbox: readOnly)
        #expect(result.stderr.contains("denied -8") && result.stderr.contains("is not a folder Writer (org.t.writer) declared with add-files"),
                "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(store)/a.gpg"))
        // Not declared at all.
        result = try save(name: "a.gpg", folder: other)
        #expect(result.stderr.contains("denied -8") && result.stderr.contains("declared with add-files"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: other).isEmpty)
        // A path that names the grant through "..": compared as the grant, or refused; never elsewhere.
        result = try save(name: "a.gpg", folder: "\(store)/sub/..")
        #expect(result.status == 0, "the same folder, spelled otherwise: \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(store)/a.gpg"))
    }

    @Test func theProviderCannotWriteTheStoreItselfNorAddFilesOutsideASave() throws {
        var result = try save(name: "evil.gpg", mode: "direct")
        #expect(result.status != 0)
        #expect(result.stderr.contains("denied open"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(store)/evil.gpg"))
        result = try save(name: ".git/hooks/post-commit", mode: "direct")
        #expect(!FileManager.default.fileExists(atPath: "\(store)/.git/hooks/post-commit"))
    }

    /// A request no longer pending gets nothing written. Through the agent only: in a process of its
    /// own the helper ends with the command, before it could try.
    @Test(.enabled(if: CLI.agentSetting == "on"))
    func aFileHandedOverAfterTheSaveCompletedIsRefused() throws {
        let result = try save(name: "late.gpg", mode: "late")
        #expect(result.status == 0, "\(result.stderr)")
        // The provider writes it after it completed the save: wait for it.
        let status = "\(home.path)/.local/share/autofill/providers/\(Self.id)/late-status"
        #expect(try CLI.waitForFile(status, containing: "\n") == "status -1\n")
        #expect(!FileManager.default.fileExists(atPath: "\(store)/late.gpg"))
    }

    @Test func oneSaveAddsOneFile() throws {
        let result = try save(name: "a.gpg", mode: "twice")
        #expect(result.stderr.contains("denied -8") && result.stderr.contains("autofill adds one file per save or report"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(store)/a.gpg"), "the first file is written (control)")
        #expect(!FileManager.default.fileExists(atPath: "\(store)/second-a.gpg"))
    }

    @Test func theApprovalSaysWhatAddFilesAllows() throws {
        _ = try save(name: "a.gpg")
        let listed = try CLI.run(["providers", "list", "--config", "\(home.path)/config.plist", "-v"], home: home.path)
        #expect(listed.stdout.contains("add and replace files named *.gpg in it, committing each to git when the folder is a git repository, never its hidden files or folders"),
                "\(listed.stdout)")
    }
}
