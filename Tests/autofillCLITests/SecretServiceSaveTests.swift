import AutofillTestSupport
import Foundation
import Testing

/// The Secret Service provider saving, generating and taking updates through the real `autofill`
/// (in its bubblewrap sandbox, through the agent as the suite runs), against a real GNOME Keyring,
/// with the other side read by the tools people use: `secret-tool` and git's own libsecret helper.
struct SecretServiceSaveTests {
    let home: TemporaryHome
    let keyring: PrivateKeyring
    static let id = "org.autofill.secretservice"

    init() throws {
        home = try TemporaryHome()
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        keyring = try PrivateKeyring()
    }

    /// A configuration with the Secret Service as the one provider, its files approved.
    func config() throws -> String {
        _ = try home.sample("SecretServiceProvider", as: Self.id)
        let path = "\(home.path)/config.plist"
        let plist: [String: Any] = ["PluginSearchPaths": ["plugins"], "EnabledProviders": [Self.id], "UserAuthentication": ["Policy": "none"]]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
        try home.trust([Self.id], config: path)
        return path
    }

    func autofill(_ arguments: [String], config: String, input: String = "", on keyring: PrivateKeyring? = nil) throws -> CLI.Result {
        try CLI.run(arguments + ["--config", config], home: home.path,
                    environment: ["DBUS_SESSION_BUS_ADDRESS": (keyring ?? self.keyring).address], input: input)
    }

    /// `git ARGUMENTS` with git's own libsecret helper as its only credential helper, on the keyring's bus.
    func gitWithLibsecret(_ arguments: [String], input: String, config: String) throws -> CLI.Result {
        try Git.run(arguments, home: home.path, config: config, helper: "libsecret",
                    environment: ["DBUS_SESSION_BUS_ADDRESS": keyring.address, "PATH": "\(LibsecretHelper.folder!):/usr/bin:/bin"],
                    input: input)
    }

    /// The items `secret-tool search --all` lists for these attributes, one block of text each
    /// (label, secret, schema; it writes their attributes on stderr).
    func items(_ attributes: [String]) throws -> [Substring] {
        try keyring.secretTool(["search", "--all"] + attributes).stdout.split(separator: "[/").filter { !$0.isEmpty }
    }

    @Test(.enabled(if: LibsecretHelper.folder != nil))
    func aSavedPasswordIsWhatSecretToolAndGitsOwnLibsecretHelperRead() throws {
        defer { keyring.stop() }
        let config = try config()
        // Its helper runs in bubblewrap's namespaces and reaches the bus through the filter (kept by the agent for the save).
        let synced = try autofill(["providers", "sync", Self.id, "-v"], config: config)
        #expect(!NamespaceSandboxTests.userNamespaces || synced.stderr.contains("sandboxed (bubblewrap + Landlock + seccomp)"), "\(synced.stderr)")
        let saved = try autofill(["save", "https://git.example.com/org/repo.git", "--user", "alice", "-v"], config: config, input: "s3cret-token\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stderr.contains("Saved alice's password for https://git.example.com/org/repo.git in Secret Service"), "\(saved.stderr)")
        #expect(!saved.stderr.contains("s3cret-token"))
        let lookup = try keyring.secretTool(["lookup", "protocol", "https", "server", "git.example.com", "user", "alice"])
        #expect(lookup.stdout == "s3cret-token", "\(lookup.stderr)")
        let item = try items(["server", "git.example.com"])
        #expect(item.count == 1)
        #expect(item.first?.contains("schema = org.gnome.keyring.NetworkPassword") == true, "\(item)")
        let attributes = try keyring.secretTool(["search", "--all", "server", "git.example.com"]).stderr
        #expect(attributes.contains("attribute.object = org/repo.git") && attributes.contains("attribute.protocol = https"), "\(attributes)")
        #expect(item.first?.contains("label = Git: https://git.example.com/org/repo.git") == true, "\(item)")
        let git = try gitWithLibsecret(["credential", "fill"], input: Git.description(["protocol": "https", "host": "git.example.com"]),
                                       config: config)
        #expect(git.status == 0 && git.stdout.contains("username=alice\npassword=s3cret-token\n"), "\(git.stdout) \(git.stderr)")
        // A domain: the network password secret-tool users write, and autofill's next fill.
        #expect(try autofill(["save", "nas.home.arpa", "--user", "admin"], config: config, input: "nas-pw\n").status == 0)
        #expect(try keyring.secretTool(["lookup", "server", "nas.home.arpa", "user", "admin"]).stdout == "nas-pw")
        #expect(try items(["server", "nas.home.arpa"]).first?.contains("schema = org.gnome.keyring.NetworkPassword") == true)
        #expect(try autofill(["fill", "nas.home.arpa"], config: config).stdout == "nas-pw\n")
    }

    @Test(.enabled(if: LibsecretHelper.folder != nil))
    func gitsStoreThroughAutofillIsFoundByGitsOwnLibsecretHelper() throws {
        defer { keyring.stop() }
        let config = try config()
        let approved = try Git.run(["credential", "approve"], home: home.path, config: config,
                                   environment: ["DBUS_SESSION_BUS_ADDRESS": keyring.address],
                                   input: Git.description(["protocol": "https", "host": "example.com", "username": "bob", "password": "ghp_new"]))
        #expect(approved.status == 0, "\(approved.stderr)")
        let git = try gitWithLibsecret(["credential", "fill"], input: Git.description(["protocol": "https", "host": "example.com"]), config: config)
        #expect(git.stdout.contains("username=bob\npassword=ghp_new\n"), "\(git.stdout) \(git.stderr)")
    }

    /// An update (a save for a login the keyring holds) replaces the secret of the item git's own
    /// helper wrote: one item, the new secret, its label and attributes unchanged.
    @Test(.enabled(if: LibsecretHelper.folder != nil))
    func anUpdateReplacesTheSecretOfTheItemThatHoldsTheLogin() throws {
        defer { keyring.stop() }
        let config = try config()
        let stored = try gitWithLibsecret(["credential", "approve"], input: Git.description([
            "protocol": "https", "host": "example.com", "username": "carol", "password": "old-pw",
        ]), config: config)
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(try autofill(["providers", "sync", Self.id], config: config).status == 0)
        for password in ["new-pw", "newer-pw"] {
            let saved = try autofill(["save", "https://example.com", "--user", "carol", "-v"], config: config, input: "\(password)\n")
            #expect(saved.status == 0, "\(saved.stderr)")
            #expect(saved.stderr.contains("saved the new password in the item"), "\(saved.stderr)")
        }
        let item = try items(["server", "example.com"])
        #expect(item.count == 1, "no second item: \(item)")
        #expect(item.first?.contains("secret = newer-pw") == true)
        #expect(item.first?.contains("label = Git: https://example.com/") == true)
        let git = try gitWithLibsecret(["credential", "fill"], input: Git.description(["protocol": "https", "host": "example.com"]), config: config)
        #expect(git.stdout.contains("password=newer-pw\n"), "\(git.stdout) \(git.stderr)")
        #expect(try autofill(["fill", "example.com"], config: config).stdout == "newer-pw\n")
    }

    /// The attacker's side: other applications' items for the same server and user, with attributes
    /// of their own (GVfs's domain, an application's tag). The Secret Service's own ReplaceExisting
    /// (what `secret-tool store` uses) overwrites an item that has *at least* the given attributes —
    /// the control shows it does here — so autofill matches exactly and leaves them alone.
    @Test func anUpdateNeverOverwritesAnotherApplicationsItem() throws {
        defer { keyring.stop() }
        let config = try config()
        try keyring.store(label: "GVfs", [("xdg:schema", "org.gnome.keyring.NetworkPassword"), ("protocol", "https"), ("server", "example.com"),
                                          ("user", "alice"), ("domain", "CORP")], secret: "gvfs-pw")
        try keyring.store(label: "other", [("server", "example.com"), ("user", "alice"), ("application", "other")], secret: "other-pw")
        #expect(try autofill(["providers", "sync", Self.id], config: config).status == 0)
        let saved = try autofill(["save", "https://example.com", "--user", "alice", "-v"], config: config, input: "autofill-pw\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stderr.contains("added the item"), "\(saved.stderr)")
        #expect(try keyring.secretTool(["lookup", "domain", "CORP"]).stdout == "gvfs-pw")
        #expect(try keyring.secretTool(["lookup", "application", "other"]).stdout == "other-pw")
        let ours = try items(["server", "example.com"]).filter { $0.contains("label = Git: https://example.com/") }
        #expect(ours.count == 1 && ours.first?.contains("secret = autofill-pw") == true, "\(ours)")
        #expect(try items(["server", "example.com"]).count == 3)
        // Control: the service's ReplaceExisting (secret-tool store) with those three attributes takes
        // an item like GVfs's, attributes and all.
        try keyring.store(label: "GVfs", [("xdg:schema", "org.gnome.keyring.NetworkPassword"), ("protocol", "https"), ("server", "control.example"),
                                          ("user", "alice"), ("domain", "CORP2")], secret: "gvfs-pw")
        let replaced = try keyring.secretTool(["store", "--label=x", "protocol", "https", "server", "control.example", "user", "alice"], input: "x")
        #expect(replaced.status == 0)
        #expect(try keyring.secretTool(["lookup", "domain", "CORP2"]).stdout.isEmpty, "ReplaceExisting took GVfs's item")
    }

    @Test func anItemWithOnlyServerAndUserIsOfferedAndASkippedItemSaysWhy() throws {
        defer { keyring.stop() }
        try keyring.store(label: "NAS", [("server", "nas.home.arpa"), ("user", "admin")], secret: "nas-pw")
        try keyring.store(label: "half", [("server", "half.example")], secret: "half-pw")
        let config = try config()
        let synced = try autofill(["providers", "sync", Self.id, "-v"], config: config)
        #expect(synced.stdout == "\(Self.id): 1 identity\n", "\(synced.stdout) \(synced.stderr)")
        #expect(synced.stderr.contains("not offered: 1 item (the first: /org/freedesktop/secrets/collection/login/"), "\(synced.stderr)")
        #expect(synced.stderr.contains("a server attribute without a user attribute"), "\(synced.stderr)")
        #expect(try autofill(["suggest", "nas.home.arpa"], config: config).stdout.contains("admin"))
        #expect(try autofill(["fill", "nas.home.arpa"], config: config).stdout == "nas-pw\n")
    }

    /// No desktop, but a bus that can start gcr's prompter (as a desktop's bus can): it cannot come up,
    /// and autofill says the keyring is locked and cannot be asked for here — not "cancelled".
    @Test func aLockedKeyringWhosePrompterCannotOpenIsToldAsSuchNotAsCancelled() throws {
        keyring.stop()
        let prompting = try PrivateKeyring(prompter: true)
        defer { prompting.stop() }
        try prompting.store(label: "git", [("xdg:schema", "org.git.Password"), ("protocol", "https"), ("server", "example.com"),
                                           ("user", "alice")], secret: "git-pw")
        let config = try config()
        #expect(try autofill(["providers", "sync", Self.id], config: config, on: prompting).status == 0)
        try prompting.lock()
        for arguments in [["fill", "example.com"], ["save", "example.com", "--user", "dave"]] {
            let result = try autofill(arguments, config: config, input: "dave-pw\n", on: prompting)
            // Not 20 (cancelled): 69 for the save (the provider failed); the fill's host says 21 (its
            // UI step found no terminal) after the provider's reason.
            #expect(result.status == (arguments[0] == "save" ? 69 : 21), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("the collection \"Login\" is locked, and GNOME Keyring cannot ask for its password here: its prompter (org.gnome.keyring.SystemPrompter) did not come up"),
                    "\(result.stderr)")
            #expect(!result.stderr.contains("cancelled"), "\(result.stderr)")
        }
        try prompting.startKeyring(unlocking: true)
        #expect(try prompting.secretTool(["search", "--all", "user", "dave"]).stdout.isEmpty, "nothing was saved while locked")
    }

    /// A desktop (an X server of the test's): gcr's prompter comes up with the keyring's dialog, which
    /// goes away unanswered (its program ends). That is the user's cancel: exit 20, nothing filled.
    @Test func aPromptThatCameUpAndWentAwayUnansweredIsACancel() throws {
        keyring.stop()
        let x = try PrivateXServer()
        defer { x.stop() }
        let desktop = try PrivateKeyring(prompter: true, display: x.display)
        defer { desktop.stop() }
        try desktop.store(label: "git", [("xdg:schema", "org.git.Password"), ("protocol", "https"), ("server", "example.com"),
                                         ("user", "alice")], secret: "git-pw")
        let config = try config()
        #expect(try autofill(["providers", "sync", Self.id], config: config, on: desktop).status == 0)
        try desktop.lock()
        let fill = try ChildProcess.start(CLI.binary, ["fill", "example.com", "--config", config],
                                          environment: CLI.environment(home: home.path).merging(["DBUS_SESSION_BUS_ADDRESS": desktop.address]) { $1 })
        let deadline = ContinuousClock.now + .seconds(60)
        while fill.isRunning, ContinuousClock.now < deadline, try desktop.owner(of: "org.gnome.keyring.SystemPrompter") == nil { usleep(50_000) }
        #expect(try desktop.endOwner(of: "org.gnome.keyring.SystemPrompter"), "the prompter came up")
        let result = fill.wait()
        #expect(result.status == 20, "\(result.stderr)")
        #expect(result.stderr.contains("cancelled in Secret Service"), "\(result.stderr)")
        #expect(result.stdout.isEmpty && !result.stderr.contains("cannot ask for its password"))
        #expect(try desktop.isLocked())
    }

    @Test func aGeneratedPasswordHonoursTheRulesAndSavesNothing() throws {
        defer { keyring.stop() }
        let config = try config()
        let rules = "minlength: 32; maxlength: 32; required: digit; required: [-_]; allowed: lower; max-consecutive: 1"
        let generated = try autofill(["generate", "--for", "example.com", "--rules", rules], config: config)
        #expect(generated.status == 0, "\(generated.stderr)")
        let password = generated.stdout.trimmingCharacters(in: .newlines)
        #expect(password.count == 32)
        #expect(password.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(password.contains { $0.isNumber } && password.contains { $0 == "-" || $0 == "_" })
        #expect(!zip(password, password.dropFirst()).contains { $0 == $1 })
        #expect(try items(["server", "example.com"]).isEmpty)
    }

    @Test func anUnusedPasswordReportKeepsTheItem() throws {
        defer { keyring.stop() }
        try keyring.store(label: "web", [("url", "https://example.com"), ("username", "erin")], secret: "erin-pw")
        let config = try config()
        #expect(try autofill(["providers", "sync", Self.id], config: config).status == 0)
        let reported = try autofill(["report", "unused-password", "example.com", "--user", "erin", "-v"], config: config)
        #expect(reported.status == 0, "\(reported.stderr)")
        #expect(reported.stderr.contains("1 login of erin at example.com marked unused"), "\(reported.stderr)")
        #expect(try keyring.secretTool(["lookup", "username", "erin"]).stdout == "erin-pw")
    }
}

/// git's libsecret credential helper, built from the source Debian ships with git
/// (/usr/share/doc/git/contrib/credential/libsecret) with this machine's compiler and libsecret-1-dev,
/// into .build: the folder holding `git-credential-libsecret`, or nil when it cannot be built.
enum LibsecretHelper {
    static let source = "/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c"

    static let folder: String? = {
        let folder = "\(CLI.root)/.build/git-credential-libsecret"
        let binary = "\(folder)/git-credential-libsecret"
        if FileManager.default.isExecutableFile(atPath: binary) { return folder }
        guard FileManager.default.fileExists(atPath: source),
            (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil
        else { return nil }
        // Built beside, then renamed: the suite's two passes may build it at once.
        let partial = "\(binary).\(getpid())"
        let built = try? ChildProcess.run("/bin/sh", ["-c", "cc -O2 $(pkg-config --cflags libsecret-1 glib-2.0) \"$1\" -o \"$2\" $(pkg-config --libs libsecret-1 glib-2.0)",
                                                      "sh", source, partial])
        guard built?.status == 0, rename(partial, binary) == 0 else { return nil }
        return folder
    }()
}
