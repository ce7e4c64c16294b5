import AutofillTestSupport
import Foundation
import Testing

/// replace-file grants (docs/SANDBOX.md): a provider reads one file and hands the host its whole new
/// contents (`replace_file`) with the SHA-256 of the version it read; the host replaces that file alone,
/// never through a link, only while it is still that version. Through the real `autofill save` and a
/// provider that asks for what it is told (Fixtures/replace_file_provider.c); each refusal has its
/// control, and nothing changes on disk when refused.
struct FileReplaceTests {
    let home: TemporaryHome
    /// The declared file, directly in the home folder (as `~/Passwords.kdbx` is).
    let file: String

    static let id = "org.t.replacer"
    static let old = "old-contents"

    init() throws {
        home = try TemporaryHome()
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        file = "\(home.path)/Passwords.kdbx"
        try Data(Self.old.utf8).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o640)
    }

    /// The declaration: the setting File as a replace-file file.
    static var replaceFile: [String: Any] { ["Files": [["Setting": "File", "Access": "replace-file"]]] }

    /// The SHA-256 of `text` in hex (sha256sum).
    static func sha256(_ text: String) throws -> String {
        let result = try ChildProcess.run("/usr/bin/sha256sum", [], environment: ["PATH": "/usr/bin:/bin"], input: text)
        return String(result.stdout.prefix(64))
    }

    var dataFolder: String { "\(home.path)/.local/share/autofill/providers/\(Self.id)" }

    /// Builds and approves the replacer with `sandbox` and `settings` (File is `file` unless given),
    /// then starts saving `password` with it: the provider hands the host `password` as the new contents.
    func startSave(_ settings: [String: String] = [:], sandbox: [String: Any] = Self.replaceFile,
                   password: String = "n3w-Contents") throws -> ChildProcess.Running {
        let bundle = "\(home.path)/plugins/Replacer.afprovider"
        if !FileManager.default.fileExists(atPath: "\(bundle)/libReplacer.so") {
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            let compiled = try ChildProcess.run("/usr/bin/cc", [
                "-std=c11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden", "-I", FixturePlugin.abiInclude,
                "\(CLI.root)/Tests/AutofillHostTests/Fixtures/replace_file_provider.c", "-o", "\(bundle)/libReplacer.so",
            ])
            try #require(compiled.status == 0, "cc: \(compiled.stderr)")
        }
        var plist = FixturePlugin.plist(id: Self.id, name: "Replacer", executable: "libReplacer.so", entry: "replace_file_provider_entry",
                                        capabilities: ["ProvidesPasswords": true, "SupportsSavePasswordCredentials": true])
        plist["AFProviderSandbox"] = sandbox
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: "\(bundle)/Info.plist"))
        let values = ["File": file, "Expected": try Self.sha256(Self.old)].merging(settings) { $1 }
        let configuration: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": [Self.id], "ProviderSettings": [Self.id: values],
            "UserAuthentication": ["Policy": "none"],
        ]
        let config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: configuration, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust([Self.id], config: config)
        let environment = CLI.environment(home: home.path).merging(["COLUMNS": "100"]) { $1 }
        return try ChildProcess.start(CLI.binary, ["save", "example.com", "--user", "alice", "--provider", Self.id, "--config", config, "-v"],
                                      environment: environment, input: password + "\n")
    }

    func save(_ settings: [String: String] = [:], sandbox: [String: Any] = Self.replaceFile, password: String = "n3w-Contents") throws -> CLI.Result {
        try startSave(settings, sandbox: sandbox, password: password).wait()
    }

    var contents: String? { (try? Data(contentsOf: URL(fileURLWithPath: file))).map { String(decoding: $0, as: UTF8.self) } }

    /// Files the host left beside the file (its temporary files are `.Passwords.kdbx.*.tmp`).
    var leftovers: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: home.path)) ?? []).filter { $0.hasPrefix(".Passwords.kdbx.") }
    }

    @Test func theHostReplacesTheDeclaredFileInTheHomeFolderWithWhatWasHandedOverKeepingItsMode() throws {
        let result = try save()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(contents == "n3w-Contents")
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o7777 == 0o640, "the file's mode is kept")
        #expect(leftovers.isEmpty)
        #expect(!result.stderr.contains("n3w-Contents"), "the contents never appear in output")
    }

    @Test func aStaleDigestIsRefusedAsChangedOnDiskAndNothingIsWritten() throws {
        let result = try save(["Expected": try Self.sha256("another version")])
        #expect(result.status != 0)
        #expect(result.stderr.contains("denied -10") && result.stderr.contains("the file changed on disk since it was read"), "\(result.stderr)")
        #expect(contents == Self.old)
        #expect(leftovers.isEmpty)
    }

    @Test func aFileNotDeclaredAsReplaceFileIsRefused() throws {
        let other = "\(home.path)/other.kdbx"
        try Data("other".utf8).write(to: URL(fileURLWithPath: other))
        var result = try save(["Target": other, "Expected": try Self.sha256("other")])
        #expect(result.stderr.contains("denied -8") && result.stderr.contains("is not a file Replacer (org.t.replacer) declared with replace-file"),
                "\(result.stderr)")
        #expect(try String(contentsOfFile: other, encoding: .utf8) == "other")
        // Declared, but read only.
        result = try save(sandbox: ["Files": [["Setting": "File", "Access": "read"]]])
        #expect(result.stderr.contains("denied -8") && result.stderr.contains("declared with replace-file"), "\(result.stderr)")
        #expect(contents == Self.old)
    }

    /// Waits (up to 120 s: a launch on a loaded machine) until the file at `path` exists.
    func waitForFile(_ path: String) throws {
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: path) {
            try #require(Date() < deadline, "\(path) did not appear")
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Waits until the provider, launched and inside its save, waits for "go"; runs `change`; lets it go.
    func saveChangingAfterLaunch(_ change: () throws -> Void) throws -> CLI.Result {
        let running = try startSave(["Mode": "wait"])
        try waitForFile("\(dataFolder)/waiting")
        try change()
        try Data().write(to: URL(fileURLWithPath: "\(dataFolder)/go"))
        return running.wait()
    }

    @Test func aLinkPlantedAtTheFileAfterLaunchIsNeverFollowed() throws {
        let outside = "\(home.path)/outside"
        try Data("outside".utf8).write(to: URL(fileURLWithPath: outside))
        let result = try saveChangingAfterLaunch {
            try FileManager.default.removeItem(atPath: file)
            try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: outside)
        }
        #expect(result.stderr.contains("denied -8") && result.stderr.contains("is now a symbolic link"), "\(result.stderr)")
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "outside")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file) == outside)
        #expect(leftovers.isEmpty)
    }

    @Test func aLinkPlantedAtAFolderAboveAfterLaunchIsNeverFollowed() throws {
        let folder = "\(home.path)/vault", moved = "\(home.path)/vault-moved"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let inside = "\(folder)/Passwords.kdbx"
        try FileManager.default.moveItem(atPath: file, toPath: inside)
        let running = try startSave(["Mode": "wait", "File": inside])
        try waitForFile("\(dataFolder)/waiting")
        try FileManager.default.moveItem(atPath: folder, toPath: moved)
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: moved)
        try Data().write(to: URL(fileURLWithPath: "\(dataFolder)/go"))
        let result = running.wait()
        #expect(result.stderr.contains("denied -8") && result.stderr.contains("now leads through a symbolic link"), "\(result.stderr)")
        #expect(try String(contentsOfFile: "\(moved)/Passwords.kdbx", encoding: .utf8) == Self.old)
        #expect(try FileManager.default.contentsOfDirectory(atPath: moved) == ["Passwords.kdbx"])
    }

    @Test func theControlWaitingTheSameWayReplacesTheFile() throws {
        let result = try saveChangingAfterLaunch {}
        #expect(result.status == 0, "\(result.stderr)")
        #expect(contents == "n3w-Contents")
    }

    @Test func contentsOverTheLimitAreRefused() throws {
        let result = try save(["Mode": "big"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("denied -2"), "\(result.stderr)")
        #expect(contents == Self.old)
        #expect(leftovers.isEmpty)
    }

    @Test func oneSaveReplacesOneFileOnce() throws {
        let result = try save(["Mode": "twice"])
        #expect(result.stderr.contains("denied -8") && result.stderr.contains("autofill replaces one file per save or report"), "\(result.stderr)")
        #expect(contents == "n3w-Contents", "the first replace is written (control), the second is not")
    }

    /// A request no longer pending gets nothing written. Through the agent only: in a process of its
    /// own the helper ends with the command, before it could try.
    @Test(.enabled(if: CLI.agentSetting == "on"))
    func aReplaceAfterTheSaveCompletedIsRefused() throws {
        let result = try save(["Mode": "late"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try CLI.waitForFile("\(dataFolder)/late-status", containing: "\n") == "status -1\n")
        #expect(contents == Self.old)
    }

    /// The folder of a replace-file file is not granted: the provider cannot create a file beside it.
    /// Control: declared read-write (the folder, read and change), the same provider can.
    @Test func theProviderCannotCreateAFileBesideTheFile() throws {
        let folder = "\(home.path)/vault"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let inside = "\(folder)/Passwords.kdbx"
        try FileManager.default.moveItem(atPath: file, toPath: inside)
        var result = try save(["Mode": "direct", "File": inside, "Beside": "\(folder)/evil.txt"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("denied open"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/evil.txt"))
        result = try save(["Mode": "direct", "File": inside, "Beside": "\(folder)/evil.txt"],
                          sandbox: ["Files": [["Setting": "File", "Access": "read-write"]]])
        #expect(result.status == 0, "the old read-write grant gave the folder: \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(folder)/evil.txt"))
    }

    @Test func theApprovalSaysWhatReplaceFileAllows() throws {
        _ = try save()
        let listed = try CLI.run(["providers", "list", "--config", "\(home.path)/config.plist", "-v"], home: home.path)
        #expect(listed.stdout.contains("have autofill replace that one file with what it hands over, only while the file is still the version it read"),
                "\(listed.stdout)")
    }
}
