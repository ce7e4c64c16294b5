import AutofillTestSupport
import Foundation
import Testing

/// `git-credential-autofill` as git runs it: `git credential fill|approve|reject` with it as the
/// credential helper, and the helper itself fed what a hostile repository's URL makes git write.
@Suite(.serialized)
struct GitCredentialTests {
    let home: TemporaryHome
    let config: String

    /// Netrc (alice at git.example.com; carol at example.com and dave at www.example.com, the same site;
    /// alice and bob at shared.example.org), "Repo" (a password saved
    /// for https://shared.example.org/team/app.git: deploy, app-token) and "Evil" (a provider whose
    /// credential for evil.example.net has a user name with a line break and a `host=` after it);
    /// the `pam` policy with a service that asks nothing.
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("NetrcProvider", as: "org.t.netrc")
        let netrc = try home.file("netrc", """
            machine git.example.com login alice password alice-git-pw
            machine shared.example.org login alice password alice-shared-pw
            machine shared.example.org login bob password bob-shared-pw
            machine example.com login carol password carol-site-pw
            machine www.example.com login dave password dave-www-pw

            """)
        for id in ["org.t.repo", "org.t.evil"] {
            try HostileProvider.bundle(in: "\(home.path)/plugins", bundleName: id, plist: HostileProvider.plist(id: id, name: id == "org.t.repo" ? "Repo" : "Evil"))
        }
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.t.netrc", "org.t.repo", "org.t.evil"],
            "ProviderSettings": [
                "org.t.netrc": ["NetrcFile": netrc],
                "org.t.repo": ["Service": "https://shared.example.org/team/app.git", "CompleteUser": "deploy", "CompletePassword": "app-token"],
                "org.t.evil": ["Service": "evil.example.net", "CompleteUser": "mallory\nhost=attacker.example", "CompletePassword": "evil-pw"],
            ],
            "UserAuthentication": try home.permitPolicy(),
        ]
        config = "\(home.path)/config.plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.t.netrc", "org.t.repo", "org.t.evil"], config: config)
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)
    }

    func git(_ arguments: [String], input: String, helper: String? = Git.helper) throws -> CLI.Result {
        try Git.run(arguments, home: home.path, config: config, helper: helper, input: input)
    }

    func helper(_ input: String, _ arguments: [String] = ["get"]) throws -> CLI.Result {
        try Git.runHelper(arguments, home: home.path, config: config, input: input)
    }

    @Test func gitCredentialFillGetsTheUserAndPasswordForAHost() throws {
        let result = try git(["credential", "fill"], input: Git.description(["protocol": "https", "host": "git.example.com"]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "protocol=https\nhost=git.example.com\nusername=alice\npassword=alice-git-pw\n")
        #expect(!result.stderr.contains("alice-git-pw"))
        let verbose = try helper(Git.description(["protocol": "https", "host": "git.example.com"]), ["--verbose", "--trace", "get"])
        #expect(verbose.stdout == "username=alice\npassword=alice-git-pw\n", "\(verbose.stderr)")
        #expect(verbose.stderr.contains("<REDACTED>") && !verbose.stderr.contains("alice-git-pw"), "\(verbose.stderr)")
    }

    @Test func theOneLoginForGitsHostIsGivenAheadOfTheSitesOtherHostsWithoutAList() throws {
        // git.example.com: alice (exact host), then carol (example.com) and dave (www.example.com) of
        // the same site. No terminal, and yet no list is needed: alice is the one for that host.
        let result = try helper(Git.description(["protocol": "https", "host": "git.example.com"]), ["--trace", "get"])
        #expect(result.stdout == "username=alice\npassword=alice-git-pw\n", "\(result.stderr)")
        // A host with no login of its own: the site's logins are a choice, and without a terminal nobody makes it.
        let other = try helper(Git.description(["protocol": "https", "host": "api.example.com"]), ["-v", "get"])
        #expect(other.stdout.isEmpty, "\(other.stderr)")
        #expect(other.stderr.contains("there is no terminal"), "\(other.stderr)")
    }

    @Test func theUserNameGitNamesChoosesTheCredential() throws {
        let result = try git(["credential", "fill"], input: Git.description(["protocol": "https", "host": "shared.example.org", "username": "bob"]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("username=bob\npassword=bob-shared-pw\n"))
    }

    @Test func withUseHttpPathThePasswordSavedForThatRepositoryIsGiven() throws {
        let input = Git.description(["protocol": "https", "host": "shared.example.org", "path": "team/app.git"])
        let result = try git(["-c", "credential.useHttpPath=true", "credential", "fill"], input: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("username=deploy\npassword=app-token\n"))
    }

    @Test func aChoiceWithoutATerminalLeavesGitToItsOwnPrompt() throws {
        // Without useHttpPath git drops the path: three suggestions for the host, and nobody to choose.
        let input = Git.description(["protocol": "https", "host": "shared.example.org", "path": "team/app.git"])
        let result = try git(["credential", "fill"], input: input)
        #expect(result.status == 128)
        #expect(result.stderr.contains("terminal prompts disabled"), "\(result.stderr)")
        #expect(!result.stderr.contains("autofill"), "quiet: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let direct = try helper(Git.description(["protocol": "https", "host": "shared.example.org"]))
        #expect(direct.status == 0 && direct.stdout.isEmpty && direct.stderr.isEmpty, "\(direct.stderr)")
    }

    @Test func inATerminalTheChoiceIsAskedThereAndOnlyTheAnswerReachesGit() throws {
        let input = try home.file("in.txt", Git.description(["protocol": "https", "host": "shared.example.org"]))
        let output = "\(home.path)/out.txt"
        let session = try TmuxSession(CLI.shellEnvironment(home: home.path, Git.variables(config: config))
            + " git -c credential.helper= -c credential.helper=\(Git.helper) credential fill < \(input) > \(output); echo EXIT=$? >> \(output)")
        let list = try session.waitFor("(q cancels):")
        #expect(list.contains("alice — password — Netrc (exact host: shared.example.org)"), "\(list)")
        let bob = try #require(list.split(separator: "\n").first { $0.contains("bob — password — Netrc (exact host: shared.example.org)") })
        try session.send(String(bob.drop { $0 == " " }.prefix { $0.isNumber }), "Enter")
        #expect(try CLI.waitForFile(output, containing: "EXIT=") == "protocol=https\nhost=shared.example.org\nusername=bob\npassword=bob-shared-pw\nEXIT=0\n")
        #expect(!(try session.screen()).contains("bob-shared-pw"), "the password goes to git, not the terminal")
    }

    @Test func verboseSaysWhyNothingWasGiven() throws {
        let result = try helper(Git.description(["protocol": "https", "host": "shared.example.org"]), ["-v", "get"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("autofill: git-credential: "), "\(result.stderr)")
        #expect(result.stderr.contains("there is no terminal"), "\(result.stderr)")
    }

    @Test func aUserNameWithALineBreakFromAProviderIsNeverGivenToGit() throws {
        let direct = try helper(Git.description(["protocol": "https", "host": "evil.example.net"]))
        #expect(direct.status == 0)
        #expect(direct.stdout.isEmpty, "nothing reaches git: \(direct.stdout)")
        #expect(direct.stderr.contains("Evil gave a password for"), "\(direct.stderr)")
        #expect(direct.stderr.contains("that git cannot be given"))
        #expect(!direct.stderr.contains("evil-pw"))
        let viaGit = try git(["credential", "fill"], input: Git.description(["protocol": "https", "host": "evil.example.net"]))
        #expect(viaGit.status == 128)
        #expect(!viaGit.stdout.contains("attacker") && !viaGit.stderr.contains("evil-pw"))
    }

    /// What a hostile repository URL (or a caller feeding the helper directly) can put on its stdin.
    static let hostileDescriptions: [HostileDescription] = [
        .init("ftp", "protocol=ftp\nhost=git.example.com\n\n"),
        .init("file", "protocol=file\nhost=\npath=/etc/passwd\n\n"),
        .init("ssh", "protocol=ssh\nhost=git.example.com\n\n"),
        .init("no host", "protocol=https\n\n"),
        .init("empty host", "protocol=https\nhost=\n\n"),
        .init("userinfo in the host", "protocol=https\nhost=alice@git.example.com\n\n"),
        .init("a path in the host", "protocol=https\nhost=git.example.com/evil\n\n"),
        .init("a query in the host", "protocol=https\nhost=git.example.com?x\n\n"),
        .init("a percent escape in the host", "protocol=https\nhost=git.example.com%2F\n\n"),
        .init("a space in the host", "protocol=https\nhost=git.example.com evil.example.net\n\n"),
        .init("a NUL", "protocol=https\nhost=git.example.com\u{0}\n\n"),
        .init("path traversal", "protocol=https\nhost=git.example.com\npath=a/../../b\n\n"),
        .init("a dot segment", "protocol=https\nhost=git.example.com\npath=./x\n\n"),
        .init("an escape sequence in the path", "protocol=https\nhost=git.example.com\npath=a\u{1b}[31m\n\n"),
        .init("a line without =", "protocol=https\nhost=git.example.com\nthis line has no equals sign\n\n"),
        .init("a line over 65,535 bytes", "protocol=https\nhost=git.example.com\nwwwauth[]=" + String(repeating: "x", count: 70_000) + "\n\n"),
        .init("over 1 MiB of short lines", "protocol=https\nhost=git.example.com\n" + String(repeating: "wwwauth[]=Basic\n", count: 70_000) + "\n"),
        .init("a backslash in url=", "url=https://git.example.com\\evil.example.net/\n\n"),
        .init("url= without a scheme", "url=no-scheme\n\n"),
    ]

    /// A description and a short name for the test's report.
    struct HostileDescription: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        init(_ name: String, _ text: String) {
            self.name = name
            self.text = text
        }
        var testDescription: String { name }
    }

    @Test(arguments: hostileDescriptions)
    func hostileOrForeignDescriptionsGetNothingQuietly(input: HostileDescription) throws {
        let result = try helper(input.text)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test func aCallerThatNeverEndsItsDescriptionIsLeftAfterTenSeconds() throws {
        // stdin stays open for 24 s without the blank line; the helper (in the agent or not) gives up
        // at 10 s, quietly, and says so with -v.
        let script = """
            start=$(date +%s)
            (printf 'protocol=https\\nhost=git.example.com\\n'; sleep 24) | {
              "$0" -v get > "$1" 2> "$2"; echo "status=$? seconds=$(( $(date +%s) - start ))" >> "$1"; }
            """
        let output = "\(home.path)/stuck-out.txt", errors = "\(home.path)/stuck-err.txt"
        let result = try ChildProcess.run("/bin/sh", ["-c", script, Git.helper, output, errors],
                                          environment: Git.environment(home: home.path, config: config))
        #expect(result.status == 0)
        let printed = try String(contentsOfFile: output, encoding: .utf8)
        let seconds = try #require(Int(printed.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
        #expect(printed.hasPrefix("status=0 "), "nothing given: \(printed)")
        #expect(seconds >= 10 && seconds < 24, "before its input ended: \(printed)")
        #expect(try String(contentsOfFile: errors, encoding: .utf8).contains("git wrote no whole description within 10 s"))
    }

    @Test(arguments: [
        "capability[]=authtype\nprotocol=https\nhost=git.example.com\nwwwauth[]=Basic realm=\"git\"\nwwwauth[]=\nstate[]=other:1\nfuture_key=x\n\n",
        "protocol=https\r\nhost=git.example.com\r\n\r\n",
        "protocol=https\nhost=git.example.com\npassword_expiry_utc=1\noauth_refresh_token=t\nquit=0\n\n",
        "url=https://git.example.com/team/x.git\n\n",
        "protocol=https\nhost=git.example.com\n\nhost=evil.example.net\n",
        "protocol=https\nhost=GIT.example.com.\n",
    ])
    func unknownKeysAndGitsOtherLinesAreIgnored(input: String) throws {
        let result = try helper(input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "username=alice\npassword=alice-git-pw\n", "\(result.stderr)")
    }

    @Test func theHostsPortIsPartOfTheSite() throws {
        // Netrc's machine names no port: any port of the host matches; an https-only identity would not.
        let result = try helper(Git.description(["protocol": "https", "host": "git.example.com:8443"]))
        #expect(result.stdout == "username=alice\npassword=alice-git-pw\n", "\(result.stderr)")
        // Repo's identity (user "ok") is saved for https://shared.example.org/team/app.git.
        let https = try helper(Git.description(["protocol": "https", "host": "shared.example.org", "path": "team/app.git", "username": "ok"]))
        #expect(https.stdout == "username=deploy\npassword=app-token\n", "\(https.stderr)")
        let http = try helper(Git.description(["protocol": "http", "host": "shared.example.org", "path": "team/app.git", "username": "ok"]))
        #expect(http.stdout.isEmpty, "the password saved for https:// is not offered to http://")
        let otherPort = try helper(Git.description(["protocol": "https", "host": "shared.example.org:8443", "path": "team/app.git", "username": "ok"]))
        #expect(otherPort.stdout.isEmpty, "nor to another port")
    }

    /// Nothing here saves (Netrc is read-only): a store says so in its one line, and nothing else prints.
    @Test func approveAndRejectNeverFailGitAndOnlyAStoreThatSavedNowhereSaysSo() throws {
        let credential = Git.description(["protocol": "https", "host": "git.example.com", "username": "alice", "password": "new-pw"])
        let notSaved = "autofill: git's password for alice at https://git.example.com was not saved (credential.helper 'autofill -v' says why)\n"
        for (action, stderr) in [("approve", notSaved), ("reject", "")] {
            let result = try git(["credential", action], input: credential)
            #expect(result.status == 0, "\(action): \(result.stderr)")
            #expect(result.stdout.isEmpty && result.stderr == stderr, "\(action): \(result.stdout) \(result.stderr)")
        }
        for (operation, stderr) in [("store", notSaved), ("erase", ""), ("capability", ""), ("some-future-operation", "")] {
            let result = try helper(credential, [operation])
            #expect(result.status == 0 && result.stdout.isEmpty && result.stderr == stderr, "\(operation): \(result.stderr)")
        }
    }

    @Test func gitFindsTheHelperByItsNameOnPath() throws {
        let result = try Git.run(["credential", "fill"], home: home.path, config: config, helper: "autofill",
                                 environment: ["PATH": "\(CLI.root)/.build/debug:/usr/bin:/bin"],
                                 input: Git.description(["protocol": "https", "host": "git.example.com"]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("username=alice\npassword=alice-git-pw\n"))
    }

    @Test func helpHasExamples() throws {
        let result = try CLI.run(["git-credential", "--help"], home: home.path)
        #expect(result.status == 0)
        #expect(result.stdout.contains("git config --global credential.helper autofill"))
        #expect(result.stdout.contains("| git credential fill"))
    }
}
