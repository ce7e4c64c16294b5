import AutofillTestSupport
import Foundation
import Testing

/// Files that crashed the KeePassXC provider's helper, through the real `autofill unlock` under the
/// default helper memory limit: each opens, or fails with its cause named, and the helper lives.
@Suite(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
struct KeePassRobustnessCLITests {
    let home: TemporaryHome
    static let password = "robust master"

    init() throws {
        home = try TemporaryHome()
        // The agent holds the user's policy; these requests ask for none, so the user's does too.
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("KeePassProvider", as: "org.autofill.keepassxc")
    }

    func configure(_ path: String, memoryLimitMB: Int? = nil) throws -> String {
        var plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.keepassxc"],
            "ProviderSettings": ["org.autofill.keepassxc": ["DatabaseFile": path]],
            "UserAuthentication": ["Policy": "pam", "PAMService": "autofill-permit", "PAMConfigurationDirectory": try home.pamFolder()],
        ]
        if let memoryLimitMB { plist["ProviderIsolation"] = ["MemoryLimitMB": memoryLimitMB] }
        let config = "\(home.path)/config-\(UUID().uuidString).plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.autofill.keepassxc"], config: config)
        return config
    }

    func unlock(_ config: String) throws -> CLI.Result {
        try CLI.run(["unlock", "org.autofill.keepassxc", "--config", config, "--ui-script", try home.file("s-\(UUID().uuidString).ui", "secret \(Self.password)\n")],
                    home: home.path)
    }

    func fill(_ site: String, _ config: String) throws -> CLI.Result {
        var arguments = ["fill", site, "--config", config]
        if !CLI.usesAgent { arguments += ["--ui-script", try home.file("f-\(UUID().uuidString).ui", "secret \(Self.password)\n")] }
        return try CLI.run(arguments, home: home.path)
    }

    /// A KDBX 3.1 database keepassxc-cli made with entries "Before" and "After" (before.example, after.example).
    func database(_ name: String) throws -> String {
        let path = "\(home.path)/\(name).kdbx"
        let xml = KeePassXML(entries: [.init(title: "Before", user: "b", password: "before-pass", url: "https://before.example"),
                                       .init(title: "After", user: "a", password: "after-pass", url: "https://after.example")], kdbx4: false)
        try KeePassXC.importXML(try home.file("\(name).xml", xml.text), to: path, key: KeePassXC.Key(password: Self.password))
        return path
    }

    @Test(arguments: ["UUID", "Name"])
    func aGroupNestedInAnEntryNoLongerKillsTheHelper(field: String) throws {
        let path = try database("nested-\(field)")
        // pykeepass rewrites the file with a group inside the first entry, its field after the inner entry.
        let script = """
            import sys
            from lxml import etree
            from pykeepass import PyKeePass
            db = PyKeePass(sys.argv[1], password=sys.stdin.readline().rstrip("\\n"))
            entry = db.find_entries(title="Before", first=True)._element
            group = etree.SubElement(entry, "Group")
            etree.SubElement(group, "Entry")
            etree.SubElement(group, sys.argv[2]).text = "x"
            meta = db.tree.find("Meta")
            meta.remove(meta.find("HeaderHash"))  # pykeepass would keep the old one, which no longer matches
            db.save()
            """
        let rewritten = try ChildProcess.run("/usr/bin/env", ["python3", "-c", script, path, field], input: "\(Self.password)\n")
        try #require(rewritten.status == 0, "\(rewritten.stderr)")
        let config = try configure(path)
        let unlocked = try unlock(config)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        #expect(try fill("after.example", config).stdout == "after-pass\n")
    }

    @Test func aFiftyMegabyteAttachmentInKDBX31OpensUnderTheDefaultMemoryLimit() throws {
        let path = try database("attachment")
        let attachment = "\(home.path)/big.bin"
        _ = FileManager.default.createFile(atPath: attachment, contents: Data((0..<(50 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 11) }))
        try KeePassXC.importAttachment(path, key: KeePassXC.Key(password: Self.password), title: "Before", name: "big.bin", file: attachment)
        let config = try configure(path)
        let unlocked = try unlock(config)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let fill = try fill("before.example", config)
        #expect(fill.stdout == "before-pass\n", "\(fill.stderr)")
    }

    @Test func aGzipBombEndsWithTheCapNamedAndTheProviderStaysUsable() throws {
        let bomb = "\(home.path)/bomb.kdbx"
        let made = try ChildProcess.run("/usr/bin/env", ["python3", "\(CLI.root)/Tests/KDBXTests/Support/make_gzip_bomb.py", bomb, "\(2 << 30)"],
                                        input: "\(Self.password)\n")
        try #require(made.status == 0, "\(made.stderr)")
        let failed = try unlock(try configure(bomb))
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("inflate to more than 1024 MiB"), "\(failed.stderr)")
        #expect(!failed.stderr.contains("crash") && !failed.stderr.contains("quarantin"), "\(failed.stderr)")
        // Control: the same provider still opens a good database.
        let good = try unlock(try configure(try database("good")))
        #expect(good.status == 0, "\(good.stderr)")
    }

    /// 1 GiB is refused before any allocation; 448 MiB fits the ceiling alone but not with the helper's
    /// own address space, so libargon2's failed allocation is named the same way.
    @Test(arguments: [1024, 448])
    func argon2AskingMoreThanTheHelperMayUseNamesItsLimitAndOpensOnceItIsRaised(memoryMiB: Int) throws {
        let path = "\(home.path)/argon-\(memoryMiB).kdbx"
        try KeePassXC.createArgon2(path, password: Self.password, variant: "argon2id", cipher: "aes256", title: "Heavy", user: "h",
                                   url: "https://heavy.example", entryPassword: "heavy-pass", memoryMiB: memoryMiB)
        let refused = try unlock(try configure(path))
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("asks for \(memoryMiB) MiB") && refused.stderr.contains("MemoryLimitMB in autofill's configuration to at least"),
                "\(refused.stderr)")
        #expect(!refused.stderr.contains("this machine allows"), "\(refused.stderr)")
        let raised = try configure(path, memoryLimitMB: 2048)
        let unlocked = try unlock(raised)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        #expect(try fill("heavy.example", raised).stdout == "heavy-pass\n")
    }
}
