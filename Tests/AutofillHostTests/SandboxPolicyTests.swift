@testable import AutofillHost
@testable import AutofillProviderRuntime
import AutofillStore
import AutofillTestSupport
import Foundation
import Logging
import Testing

/// The host's decision (docs/SANDBOX.md): the declaration read from a plist, the permissions in plain
/// words, and the policy built from it, the settings and the user's folders — refusals included.
struct SandboxPolicyTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    func declaration(_ value: Any) -> (SandboxDeclaration, [String]) {
        var problems: [String] = []
        let data = try! PropertyListSerialization.data(fromPropertyList: ["X": value], format: .xml, options: 0)
        guard case .dictionary(let top) = try! PlistValue.read(contentsOf: data) else { return (SandboxDeclaration(), ["not a dict"]) }
        let read = SandboxDeclaration.read(top["X"]) { keyPath, message, _ in problems.append("\(keyPath): \(message)") }
        return (read, problems)
    }

    // MARK: The declaration

    @Test func aFullDeclarationReadsAndGivesStablePermissionKeys() {
        let (declaration, problems) = declaration([
            "Files": [["Setting": "VaultFile", "Access": "read-write"], ["Path": "~/.password-store", "Access": "read"],
                      ["Setting": "StateFile", "Default": "${OTPAuthFile}.state.json", "Access": "read-write"]],
            "OutboundTCPPorts": [443, 443, 8443], "SessionBus": true, "SessionBusNames": ["org.freedesktop.secrets", "org.example.Notes"],
            "SessionBusVisibleNames": ["org.gnome.keyring"],
            "Executables": ["gpg"], "Environment": ["PASSWORD_STORE_DIR"],
        ])
        #expect(problems.isEmpty, "\(problems)")
        #expect(declaration.permissionKeys == [
            "file:setting:VaultFile:read-write", "file:path:~/.password-store:read", "file:setting:StateFile:read-write",
            "net:tcp:443", "net:tcp:8443", "bus:name:org.freedesktop.secrets", "bus:name:org.example.Notes", "bus:see:org.gnome.keyring", "exec:gpg",
            "env:PASSWORD_STORE_DIR",
        ])
        // What the session bus grants, in plain words: the Secret Service's consequence, a generic one for other names.
        #expect(SandboxDeclaration.describe(permissionKey: "bus:name:org.freedesktop.secrets")
            .hasPrefix("read and change the items of your unlocked keyrings, including other applications' passwords"))
        #expect(SandboxDeclaration.describe(permissionKey: "bus:name:org.example.Notes")
            == "talk to org.example.Notes on your session bus, and do whatever that service lets any program of yours do")
        #expect(SandboxDeclaration.describe(permissionKey: "bus:see:org.gnome.keyring") == "see whether org.gnome.keyring is on your session bus (not call it)")
        #expect(SandboxDeclaration.describe(permissionKey: "exec:gpg") == "run the program gpg inside its sandbox")
        #expect(declaration.asksMore(than: ["net:tcp:443", "exec:gpg"]).contains("net:tcp:8443"))
        #expect(SandboxDeclaration.describe(permissionKey: "net:tcp:443") == "connect to the internet on TCP port 443")
        #expect(SandboxDeclaration.describe(permissionKey: "file:setting:VaultFile:read-write")
            == "read and change files in the folder of the file named by its VaultFile setting")
    }

    @Test func anAddFilesFolderIsApprovedWithItsSuffixAndCommitInPlainWords() throws {
        let plist = """
            <?xml version="1.0"?><plist version="1.0"><dict><key>X</key><dict><key>Files</key><array><dict>
            <key>Setting</key><string>PasswordStoreDir</string><key>Access</key><string>add-files</string>
            <key>Suffix</key><string>.gpg</string><key>GitCommit</key><true/></dict></array></dict></dict></plist>
            """
        guard case .dictionary(let top) = try PlistValue.read(contentsOf: Data(plist.utf8)) else { Issue.record("no dict"); return }
        var problems: [String] = []
        let declaration = SandboxDeclaration.read(top["X"]) { keyPath, message, _ in problems.append("\(keyPath): \(message)") }
        #expect(problems.isEmpty, "\(problems)")
        #expect(declaration.permissionKeys == ["file:setting:PasswordStoreDir:add-files:.gpg:git"])
        #expect(SandboxDeclaration.describe(permissionKey: "file:setting:PasswordStoreDir:add-files:.gpg:git")
            == "read the folder named by its PasswordStoreDir setting, and have autofill add and replace files named *.gpg in it, committing each to git when the folder is a git repository, never its hidden files or folders")
        #expect(SandboxDeclaration.describe(permissionKey: "file:path:/srv/x:add-files:.txt:no-git")
            == "read /srv/x, and have autofill add and replace files named *.txt in it, never its hidden files or folders")
    }

    @Test func aReplaceFileIsApprovedInPlainWordsAndTakesNoSuffix() throws {
        func read(_ extra: String) throws -> (SandboxDeclaration, [String]) {
            let plist = """
                <?xml version="1.0"?><plist version="1.0"><dict><key>X</key><dict><key>Files</key><array><dict>
                <key>Setting</key><string>WritableDatabaseFile</string><key>Access</key><string>replace-file</string>\(extra)</dict></array></dict></dict></plist>
                """
            guard case .dictionary(let top) = try PlistValue.read(contentsOf: Data(plist.utf8)) else { throw CancellationError() }
            var problems: [String] = []
            let declaration = SandboxDeclaration.read(top["X"]) { keyPath, message, _ in problems.append("\(keyPath): \(message)") }
            return (declaration, problems)
        }
        let (declaration, problems) = try read("")
        #expect(problems.isEmpty, "\(problems)")
        #expect(declaration.permissionKeys == ["file:setting:WritableDatabaseFile:replace-file"])
        #expect(SandboxDeclaration.describe(permissionKey: "file:setting:WritableDatabaseFile:replace-file")
            == "read the file named by its WritableDatabaseFile setting, and have autofill replace that one file with what it hands over, only while the file is still the version it read")
        #expect(try read("<key>Suffix</key><string>.kdbx</string>").1 == ["AFProviderSandbox.Files[0].Suffix: goes with add-files Access only"])
    }

    @Test(arguments: [
        ("<key>Files</key><string>x</string>", "Files: expected an Array"),
        ("<key>Files</key><array><dict><key>Access</key><string>read</string></dict></array>", "names neither a Setting nor a Path"),
        ("<key>Files</key><array><dict><key>Setting</key><string>A</string><key>Path</key><string>/x</string><key>Access</key><string>read</string></dict></array>", "names both"),
        ("<key>Files</key><array><dict><key>Path</key><string>relative/x</string><key>Access</key><string>read</string></dict></array>", "is not an absolute path"),
        ("<key>Files</key><array><dict><key>Path</key><string>/a/../etc</string><key>Access</key><string>read</string></dict></array>", "contains .."),
        ("<key>Files</key><array><dict><key>Path</key><string>/x</string><key>Access</key><string>write</string></dict></array>", "Access: is missing or not read, read-write, read-write-folder, add-files or replace-file"),
        // add-files needs a plain suffix; Suffix and GitCommit go with it alone.
        ("<key>Files</key><array><dict><key>Path</key><string>/x</string><key>Access</key><string>add-files</string></dict></array>", "Suffix: is missing"),
        ("<key>Files</key><array><dict><key>Path</key><string>/x</string><key>Access</key><string>add-files</string><key>Suffix</key><string>gpg</string></dict></array>", "Suffix: is missing or not a dot"),
        ("<key>Files</key><array><dict><key>Path</key><string>/x</string><key>Access</key><string>add-files</string><key>Suffix</key><string>./x</string></dict></array>", "Suffix: is missing or not a dot"),
        ("<key>Files</key><array><dict><key>Path</key><string>/x</string><key>Access</key><string>read</string><key>Suffix</key><string>.gpg</string></dict></array>", "Suffix: goes with add-files Access only"),
        ("<key>Files</key><array><dict><key>Path</key><string>/x</string><key>Access</key><string>add-files</string><key>Suffix</key><string>.gpg</string><key>GitCommit</key><string>yes</string></dict></array>", "GitCommit: expected a Boolean"),
        ("<key>OutboundTCPPorts</key><array><integer>0</integer></array>", "is not a TCP port"),
        ("<key>OutboundTCPPorts</key><array><integer>70000</integer></array>", "is not a TCP port"),
        ("<key>SessionBus</key><string>yes</string>", "expected a Boolean"),
        ("<key>SessionBus</key><true/>", "SessionBus: names no bus name to talk to"),
        ("<key>SessionBus</key><true/><key>SessionBusNames</key><array/>", "SessionBus: names no bus name to talk to"),
        ("<key>SessionBusNames</key><array><string>org.freedesktop.secrets</string></array>", "names bus names without SessionBus"),
        ("<key>SessionBus</key><true/><key>SessionBusNames</key><array><string>org.freedesktop.DBus</string></array>", "is the bus itself"),
        ("<key>SessionBus</key><true/><key>SessionBusNames</key><array><string>secrets</string></array>", "is not a well-known D-Bus name"),
        ("<key>SessionBus</key><true/><key>SessionBusNames</key><array><string>org.*</string></array>", "is not a well-known D-Bus name"),
        ("<key>Executables</key><array><string>bin/gpg</string></array>", "is neither a program name nor an absolute path"),
        ("<key>Environment</key><array><string>LD_PRELOAD</string></array>", "is not a variable a provider may see"),
        ("<key>Environment</key><array><string>SSH_AUTH_SOCK</string></array>", "is not a variable a provider may see"),
        ("<key>Environment</key><array><string>A B</string></array>", "is not an environment variable name"),
        // GPGAgent names the GnuPG home among the declared read settings, nothing else: never one the provider could change.
        ("<key>GPGAgent</key><string>Nope</string>", "GPGAgent: does not name a declared read Setting"),
        ("<key>Files</key><array><dict><key>Setting</key><string>Home</string><key>Access</key><string>read-write-folder</string></dict></array><key>GPGAgent</key><string>Home</string>",
         "GPGAgent: names a GnuPG home the provider could change"),
        ("<key>Files</key><array><dict><key>Setting</key><string>Home</string><key>Access</key><string>read-write</string></dict></array><key>GPGAgent</key><string>Home</string>",
         "GPGAgent: names a GnuPG home the provider could change"),
        ("<key>Network</key><true/>", "Network: is not a sandbox key"),
        ("<key>Files</key><array><dict><key>Setting</key><string>A</string><key>Default</key><string>$FOO/x</string><key>Access</key><string>read</string></dict></array>", "names $FOO, which its Environment does not declare"),
        ("<key>Files</key><array><dict><key>Setting</key><string>A</string><key>Default</key><array><integer>1</integer></array><key>Access</key><string>read</string></dict></array>", "Default: is not a non-empty String or an Array of them"),
    ])
    func aMalformedDeclarationIsAProblemNamingTheKey(xml: String, expected: String) throws {
        let plist = "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>X</key><dict>\(xml)</dict></dict></plist>"
        guard case .dictionary(let top) = try PlistValue.read(contentsOf: Data(plist.utf8)) else { Issue.record("no dict"); return }
        var problems: [String] = []
        _ = SandboxDeclaration.read(top["X"]) { keyPath, message, _ in problems.append("\(keyPath): \(message)") }
        #expect(problems.contains { $0.contains(expected) }, "\(problems)")
    }

    // MARK: The policy

    /// A setup with a configuration in `folder`, the given providers' bundles (copies of the samples)
    /// enabled with `settings`.
    func setup(settings: [String: [String: String]], enabled: [String] = ["org.autofill.vault"]) throws -> ProviderSetup {
        let home = "\(folder.path)/home"
        try FileManager.default.createDirectory(atPath: "\(home)/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let config = "\(folder.path)/conf/config.plist"
        try FileManager.default.createDirectory(atPath: "\(folder.path)/conf", withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: [
            "PluginSearchPaths": ["\(Repository.root)/.build/plugins"], "EnabledProviders": enabled, "ProviderSettings": settings,
            "IdentityStoreDirectory": "\(folder.path)/stores",
        ] as [String: Any], format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        let file = try ConfigurationFile.read(path: config, source: .option, writePath: config, home: home)
        return ProviderSetup(catalog: ProviderCatalog(file: file), stores: IdentityStoreDirectory(path: "\(folder.path)/stores"),
                             records: HostRecords(path: "\(home)/.local/state/autofill"), logger: Logger(label: "test"))
    }

    func context(_ setup: ProviderSetup, _ extra: [String: String] = [:]) -> SandboxContext {
        let home = "\(folder.path)/home"
        return SandboxContext(setup: setup, environment: ["HOME": home, "XDG_RUNTIME_DIR": "\(home)/run", "PATH": "/usr/bin",
                                                          "SECRET_TOKEN": "decoy", "LANG": "C.UTF-8"].merging(extra) { $1 })
    }

    @Test func aFolderAndDefaultsFromDeclaredVariablesReadAsPermissionsOfTheirOwn() {
        let (declaration, problems) = declaration([
            "Files": [["Setting": "GnuPGHome", "Default": ["$GNUPGHOME", "~/.gnupg"], "Access": "read-write-folder"]],
            "Environment": ["GNUPGHOME"],
        ])
        #expect(problems.isEmpty, "\(problems)")
        #expect(declaration.files.first?.defaults == ["$GNUPGHOME", "~/.gnupg"])
        #expect(declaration.permissionKeys == ["file:setting:GnuPGHome:read-write-folder", "env:GNUPGHOME"])
        #expect(SandboxDeclaration.describe(permissionKey: "file:setting:GnuPGHome:read-write-folder")
            == "read and change the folder named by its GnuPGHome setting")
    }

    /// The pass provider's declaration: each folder is its setting, else its environment variable when
    /// set and absolute, else the usual folder; GnuPG's home is granted itself, read only, never its parent.
    @Test func passGetsTheFoldersItsVariablesNameAndAMissingGnuPGHomeGrantsNothing() throws {
        let setup = try setup(settings: [:], enabled: ["org.autofill.pass"])
        let manifest = try setup.catalog.manifest(for: "org.autofill.pass")
        let home = "\(folder.path)/home"
        for path in ["\(folder.path)/gh", "\(folder.path)/ps", "\(home)/.password-store"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let named = try context(setup, ["GNUPGHOME": "\(folder.path)/gh", "PASSWORD_STORE_DIR": "\(folder.path)/ps"]).policy(for: manifest)
        #expect(named.rules.contains { $0.path == "\(folder.path)/gh" && $0.access == .read })
        #expect(!named.rules.contains { $0.path.hasPrefix("\(folder.path)/gh") && $0.access.contains(.write) })
        #expect(named.rules.contains { $0.path == "\(folder.path)/ps" && $0.access == .read })
        #expect(named.environment["GNUPGHOME"] == "\(folder.path)/gh" && named.runsPrograms && named.unixSockets)

        // No variables (or a relative one): the usual folders; ~/.gnupg read, itself (never the home folder).
        let usual = try context(setup, ["GNUPGHOME": "relative"]).policy(for: manifest)
        #expect(usual.rules.contains { $0.path == "\(home)/.password-store" && $0.access == .read })
        #expect(!usual.rules.contains { $0.path == home || $0.path.hasSuffix("relative") })
        try FileManager.default.createDirectory(atPath: "\(home)/.gnupg", withIntermediateDirectories: true)
        #expect(try context(setup).policy(for: manifest).rules.contains { $0.path == "\(home)/.gnupg" && $0.access == .read })
    }

    @Test func theVaultGetsItsFolderItsOwnFoldersTheSystemReadOnlyAndAnEnvironmentOfNothingElse() throws {
        try FileManager.default.createDirectory(atPath: "\(folder.path)/vault", withIntermediateDirectories: true)
        let setup = try setup(settings: ["org.autofill.vault": ["VaultFile": "\(folder.path)/vault/v.afvault"]])
        let manifest = try setup.catalog.manifest(for: "org.autofill.vault")
        let policy = try context(setup).policy(for: manifest)
        let home = "\(folder.path)/home"
        let data = "\(home)/.local/share/autofill/providers/org.autofill.vault"
        #expect(policy.rules.contains { $0.path == "\(folder.path)/vault" && $0.access == [.read, .write] })
        #expect(policy.rules.contains { $0.path == data && $0.access == [.read, .write] })
        #expect(policy.rules.contains { $0.path == "/usr" && $0.access == .read }, "the system is read-only: no programs")
        #expect(!policy.rules.contains { $0.access.contains(.execute) })
        #expect(!policy.rules.contains { ["/proc", "/tmp", "/dev/tty", home].contains($0.path) })
        #expect(!policy.network && !policy.runsPrograms && !policy.unixSockets && !policy.sessionBus)
        #expect(policy.environment["SECRET_TOKEN"] == nil)
        #expect(Set(policy.environment.keys) == [
            "HOME", "PATH", "SWIFT_BACKTRACE", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
            "TMPDIR", "AUTOFILL_PROVIDER_DATA_DIR", "AUTOFILL_PROVIDER_RUNTIME_DIR", "LANG",
        ])
        var info = stat()
        #expect(stat(data, &info) == 0 && info.st_mode & 0o777 == 0o700, "its data folder is made private")
    }

    @Test(arguments: [
        ("home", "is your home folder"),
        ("records", "which autofill keeps for itself"),
        ("stores", "which autofill keeps for itself"),
        ("config", "which autofill keeps for itself"),
        ("root", "is the whole file system"),
    ])
    func aVaultFileWhoseFolderReachesTooMuchIsRefused(place: String, expected: String) throws {
        let home = "\(folder.path)/home"
        let vault =
            switch place {
            case "home": "\(home)/v.afvault"
            case "records": "\(home)/.local/state/autofill/v.afvault"
            case "stores": "\(folder.path)/stores/v.afvault"
            case "config": "\(folder.path)/conf/v.afvault"
            default: "/v.afvault"
            }
        let setup = try setup(settings: ["org.autofill.vault": ["VaultFile": vault]])
        let manifest = try setup.catalog.manifest(for: "org.autofill.vault")
        let error = try #require(throws: AutofillError.self) { try context(setup).policy(for: manifest) }
        #expect(error.message.contains(expected), "\(error.message)")
        #expect(error.message.contains("Vault (org.autofill.vault)") && error.message.contains("VaultFile"))
    }

    /// No grant that changes files may be, hold or lie in a GnuPG folder (gpg-agent runs what its configuration
    /// names, outside any sandbox): the user's ~/.gnupg and $GNUPGHOME, gpg-agent's runtime folder and the home a
    /// provider's GPGAgent names; read, each is granted (the control).
    @Test(arguments: ["~/.gnupg", "$GNUPGHOME", "$GNUPGHOME/gpg-agent.conf", "$XDG_RUNTIME_DIR/gnupg", "~/.gnupg/private-keys-v1.d", "gnupgparent"])
    func aGrantThatWouldChangeAGnuPGFolderIsRefusedAndReadingItIsNot(place: String) throws {
        let home = "\(folder.path)/home"
        let gnupgHome = "\(folder.path)/gparent/gh"
        for path in ["\(home)/.gnupg/private-keys-v1.d", gnupgHome, "\(home)/run/gnupg"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let target =
            switch place {
            case "gnupgparent": "\(folder.path)/gparent"
            default:
                place.replacingOccurrences(of: "~", with: home).replacingOccurrences(of: "$GNUPGHOME", with: gnupgHome)
                    .replacingOccurrences(of: "$XDG_RUNTIME_DIR", with: "\(home)/run")
            }
        let setup = try setup(settings: [:])
        var manifest = try setup.catalog.manifest(for: "org.autofill.vault")
        for access in [SandboxDeclaration.Access.readWriteFolder, .readWrite, .read] {
            manifest.sandbox = SandboxDeclaration(files: [.init(path: target, access: access)])
            let context = context(setup, ["GNUPGHOME": gnupgHome])
            if access == .read {
                #expect(try context.policy(for: manifest).rules.contains { $0.path == target && $0.access == .read })
                continue
            }
            if access == .readWriteFolder && target.hasSuffix(".conf") { continue }  // a file is no folder: it grants nothing
            let error = try #require(throws: AutofillError.self, "\(place) \(access)") { try context.policy(for: manifest) }
            #expect(error.message.contains("the GnuPG folder") && error.message.contains("no provider may change it"), "\(error.message)")
        }
    }

    /// The home GPGAgent names is a GnuPG folder even where neither GNUPGHOME nor ~/.gnupg names it.
    @Test func theGnuPGHomeAProviderNamesCannotBeChangedThroughAnotherOfItsGrants() throws {
        let gnupgHome = "\(folder.path)/elsewhere/gh"
        try FileManager.default.createDirectory(atPath: gnupgHome, withIntermediateDirectories: true)
        let setup = try setup(settings: [:])
        var manifest = try setup.catalog.manifest(for: "org.autofill.vault")
        var declaration = SandboxDeclaration(files: [.init(setting: "Home", defaults: [gnupgHome], access: .read),
                                                     .init(path: "\(folder.path)/elsewhere", access: .readWriteFolder)])
        declaration.gpgAgentHomeSetting = "Home"
        manifest.sandbox = declaration
        let error = try #require(throws: AutofillError.self) { try context(setup).policy(for: manifest) }
        #expect(error.message.contains("holds the GnuPG folder \(gnupgHome)"), "\(error.message)")
        declaration.files.removeLast()
        manifest.sandbox = declaration
        #expect(try context(setup).policy(for: manifest).rules.contains { $0.path == gnupgHome && $0.access == .read })
    }

    @Test func aFolderHoldingAnotherProvidersFileIsRefused() throws {
        try FileManager.default.createDirectory(atPath: "\(folder.path)/shared", withIntermediateDirectories: true)
        try Data("machine x login y password z\n".utf8).write(to: URL(fileURLWithPath: "\(folder.path)/shared/netrc"))
        let setup = try setup(settings: ["org.autofill.vault": ["VaultFile": "\(folder.path)/shared/v.afvault"],
                                         "org.autofill.netrc": ["NetrcFile": "\(folder.path)/shared/netrc"]],
                              enabled: ["org.autofill.vault", "org.autofill.netrc"])
        let error = try #require(throws: AutofillError.self) {
            try context(setup).policy(for: try setup.catalog.manifest(for: "org.autofill.vault"))
        }
        #expect(error.message.contains("a file or folder of the provider org.autofill.netrc"), "\(error.message)")
        // The reader is refused too: the Vault changes files in that folder.
        #expect(throws: AutofillError.self) { try context(setup).policy(for: try setup.catalog.manifest(for: "org.autofill.netrc")) }
    }

    @Test func aPrivateFolderThatIsALinkOrOpenToOthersIsRefused() throws {
        let setup = try setup(settings: [:])
        let manifest = try setup.catalog.manifest(for: "org.autofill.vault")
        let data = "\(folder.path)/home/.local/share/autofill/providers/org.autofill.vault"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        chmod(data, 0o755)
        var error = try #require(throws: AutofillError.self) { try context(setup).policy(for: manifest) }
        #expect(error.message.contains("is open to other users (mode 755); run chmod 700"), "\(error.message)")
        try FileManager.default.removeItem(atPath: data)
        try FileManager.default.createSymbolicLink(atPath: data, withDestinationPath: folder.path)
        error = try #require(throws: AutofillError.self) { try context(setup).policy(for: manifest) }
        #expect(error.message.contains("is a symbolic link"), "\(error.message)")
    }

    @Test func aDeclaredProgramIsGrantedWithTheLoaderAndAPortBringsNameResolution() throws {
        let setup = try setup(settings: [:])
        var manifest = try setup.catalog.manifest(for: "org.autofill.vault")
        manifest.sandbox = SandboxDeclaration(outboundTCPPorts: [443], sessionBus: true, sessionBusNames: ["org.freedesktop.secrets"],
                                              executables: ["true"], environment: ["SECRET_TOKEN"])
        let policy = try context(setup, ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/bus"]).policy(for: manifest)
        let program = try #require(SandboxContext.resolveProgram("true"))
        #expect(policy.rules.contains { $0.path == program && $0.access == [.read, .execute] })
        #expect(policy.rules.contains { $0.path.hasSuffix("ld-linux-x86-64.so.2") && $0.access.contains(.execute) })
        #expect(policy.rules.contains { $0.path == "/etc/resolv.conf" })
        #expect(policy.network && policy.tcpPorts == [443] && policy.runsPrograms && policy.unixSockets && policy.sessionBus)
        #expect(policy.environment["DBUS_SESSION_BUS_ADDRESS"] == "unix:path=/run/bus")
        #expect(policy.environment["SECRET_TOKEN"] == "decoy", "declared, so passed")
    }
}
