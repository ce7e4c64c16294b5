import AutofillTestSupport
import Foundation
import Testing

/// `Scripts/install` into a temporary prefix (the home's `.local`, a default plugin folder's prefix),
/// and the installed programs run from another folder, as a user runs them after installing.
struct InstallTests {
    let home: TemporaryHome
    var prefix: String { "\(home.path)/.local" }

    init() throws {
        home = try TemporaryHome()
    }

    /// `Scripts/install --debug --no-build [extra] PREFIX`: the debug build the suite runs on (building
    /// here would wait for the build folder `swift test` holds). It builds generate-manual on first use.
    func install(_ extra: [String] = []) throws -> CLI.Result {
        let environment = ["HOME": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        return try ChildProcess.run("\(CLI.root)/Scripts/install", ["--debug", "--no-build"] + extra + [prefix], environment: environment)
    }

    /// The installed `autofill arguments`, started in `/` with the home's environment (PATH without the prefix).
    func installed(_ arguments: [String]) throws -> CLI.Result {
        try ChildProcess.run("/bin/sh", ["-c", #"cd / && exec "$0" "$@""#, "\(prefix)/bin/autofill"] + arguments,
                             environment: CLI.environment(home: home.path))
    }

    static let programs = ["autofill", "autofill-cli", "autofill-provider-helper", "autofill-vault"]
    static let samples = ["AuthenticatorProvider", "NetrcProvider", "PassProvider", "SecretServiceProvider", "VaultProvider"]

    @Test func installPutsProgramsProvidersManPagesAndCompletionsUnderThePrefix() throws {
        let result = try install()
        #expect(result.status == 0, "\(result.stderr)")
        let files = FileManager.default
        for program in Self.programs { #expect(files.isExecutableFile(atPath: "\(prefix)/bin/\(program)"), "\(program)") }
        for sample in Self.samples {
            let bundle = "\(prefix)/lib/autofill/providers/\(sample).afprovider"
            #expect(files.fileExists(atPath: "\(bundle)/Info.plist") && files.fileExists(atPath: "\(bundle)/lib\(sample).so"), "\(sample)")
            // Nobody else may change what autofill will run: 0755 folders, 0644 files.
            #expect(try files.attributesOfItem(atPath: bundle)[.posixPermissions] as? Int == 0o755)
        }
        // Man pages that groff reads without an error, naming the commands.
        for (page, expected) in [("autofill", ["autofill — A multi-provider credential AutoFill host", "providers", "init", "set"]),
                                 ("autofill-vault", ["autofill-vault"])] {
            let path = "\(prefix)/share/man/man1/\(page).1"
            let source = try String(contentsOfFile: path, encoding: .utf8)
            #expect(source.contains(".Dt \(page.uppercased()) 1") && source.contains(".Sh NAME") && source.contains(".Sh SYNOPSIS"))
            let rendered = try ChildProcess.run("/usr/bin/groff", ["-mdoc", "-Tutf8", "-P-cbou", "-ww", path], environment: ["PATH": "/usr/bin:/bin"])
            #expect(rendered.status == 0, "\(rendered.stderr)")
            #expect(!rendered.stderr.contains("error") && !rendered.stderr.contains("warning"), "\(rendered.stderr)")
            // It describes an installed copy, not a checkout.
            #expect(!rendered.stdout.contains("the repository's Config"), "\(page).1")
            for text in expected { #expect(rendered.stdout.contains(text), "\(page).1 lacks \(text)") }
        }
        // A completion script per shell, where each shell looks under the prefix, that the shell parses.
        for (shell, check, path, head) in [
            ("/bin/bash", ["-n"], "share/bash-completion/completions/autofill", "#!/bin/bash"),
            ("/usr/bin/zsh", ["-n"], "share/zsh/site-functions/_autofill", "#compdef autofill"),
            ("/usr/bin/fish", ["--no-execute"], "share/fish/vendor_completions.d/autofill.fish", ""),
        ] {
            let script = "\(prefix)/\(path)"
            let text = try String(contentsOfFile: script, encoding: .utf8)
            #expect(text.hasPrefix(head) && text.contains("autofill"), "\(path)")
            let parsed = try ChildProcess.run(shell, check + [script], environment: ["PATH": "/usr/bin:/bin", "HOME": home.path])
            #expect(parsed.status == 0, "\(shell) does not parse \(path): \(parsed.stderr)")
        }
        #expect(files.fileExists(atPath: "\(prefix)/share/zsh/site-functions/_autofill-vault"))
        // The documents messages name, and a systemd --user unit that runs the installed agent.
        for doc in ["README.md", "docs/CONFIGURATION.md", "docs/SANDBOX.md", "docs/VAULT.md", "docs/AGENT.md"] {
            #expect(files.fileExists(atPath: "\(prefix)/share/doc/autofill/\(doc)"), "\(doc)")
        }
        let unit = try String(contentsOfFile: "\(prefix)/share/systemd/user/autofill-agent.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix)/bin/autofill agent serve\n"), "\(unit)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let verified = try ChildProcess.run("/usr/bin/systemd-analyze", ["--user", "verify", "\(prefix)/share/systemd/user/autofill-agent.service"],
                                                environment: ["PATH": "/usr/bin:/bin", "HOME": home.path])
            #expect(!verified.stderr.contains("autofill-agent.service:"), "\(verified.stderr)")
        }
    }

    /// The Swift toolchain's folder (where libswiftCore.so of the build comes from).
    static var toolchainRuntime: String? {
        let ldd = try? ChildProcess.run("/usr/bin/ldd", ["\(CLI.root)/.build/debug/autofill-cli"])
        let line = ldd?.stdout.split(separator: "\n").first { $0.contains("libswiftCore.so =>") }
        return line.flatMap { $0.split(separator: " ").dropFirst(2).first }.map { String($0.prefix { $0 != " " }) }
            .map { ($0 as NSString).deletingLastPathComponent }
    }

    @Test(.enabled(if: toolchainRuntime != nil, "the build links a shared Swift runtime"))
    func theInstalledProgramsAndPluginsLoadTheRuntimeInstalledBesideThemNeverTheToolchains() throws {
        #expect(try install().status == 0)
        let toolchain = try #require(Self.toolchainRuntime)
        let files = FileManager.default
        #expect(files.fileExists(atPath: "\(prefix)/lib/autofill/libswiftCore.so"))
        // A configuration with a Swift plugin (the Authenticator), run in the installed helper.
        // In a folder of its own: the Authenticator may change files in its OTPAuthFile's folder (its StateFile).
        try files.createDirectory(atPath: "\(home.path)/otp", withIntermediateDirectories: true)
        let otpauth = try home.file("otp/codes.txt", "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP&issuer=Example\n")
        #expect(try installed(["init", "--provider", "org.autofill.authenticator"]).status == 0)
        // A file the provider was not approved for: saved, refused without a terminal (77), then approved.
        #expect(try installed(["providers", "set", "org.autofill.authenticator", "OTPAuthFile", otpauth]).status == 77)
        #expect(try installed(["providers", "trust", "org.autofill.authenticator"]).status == 0)
        // Every process's loader trace (autofill, autofill-cli, the provider helper): the libraries it opened.
        let trace = "\(home.path)/ld-trace"
        try files.createDirectory(atPath: trace, withIntermediateDirectories: true)
        var environment = CLI.environment(home: home.path)
        environment["AUTOFILL_AGENT"] = "off"
        environment["LD_DEBUG"] = "libs"
        environment["LD_DEBUG_OUTPUT"] = "\(trace)/ld"
        let synced = try ChildProcess.run("/bin/sh", ["-c", #"cd / && exec "$0" "$@""#, "\(prefix)/bin/autofill", "providers", "sync"],
                                          environment: environment)
        #expect(synced.stdout.contains("org.autofill.authenticator: 1 identity"), "\(synced.stderr)")
        let traces = try files.contentsOfDirectory(atPath: trace).map { try String(contentsOfFile: "\(trace)/\($0)", encoding: .utf8) }
        #expect(traces.count >= 2, "autofill and the processes it ran each left a trace")
        let all = traces.joined()
        #expect(all.contains("\(prefix)/bin/../lib/autofill/libswiftCore.so"), "the installed runtime was loaded (through $ORIGIN/../lib/autofill)")
        // The Swift plugin ran (the sync above counted its identity) in the installed helper. Its own
        // load is not in the helper's trace since the host loads it through /proc/self/fd/N in the
        // helper's namespaces (the trace stops before it); no traced process opened the toolchain.
        let intoToolchain = all.split(separator: "\n").filter { $0.contains(toolchain) }
        #expect(intoToolchain.isEmpty, "opened from the toolchain: \(intoToolchain.prefix(5).joined(separator: "\n"))")
    }

    @Test func theInstalledAutofillRunsFromAnotherFolderWithTheInstalledProviders() throws {
        #expect(try install().status == 0)
        let version = try installed(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("autofill "))
        #expect(version.stdout.contains("provider ABI version 1 (AF_ABI_VERSION)"))
        // A configuration of the user's own from the installed providers; the repository's demo is not involved.
        let netrc = try home.file("netrc", "machine example.com login carol password carol-pw\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: netrc)
        let initialized = try installed(["init", "--provider", "org.autofill.netrc"])
        #expect(initialized.status == 0, "\(initialized.stderr)")
        #expect(initialized.stdout.contains("Enabled Netrc (org.autofill.netrc) as provider 1 of 1."))
        // Another file than the one approved at init (~/.netrc): a new approval, refused without a terminal.
        #expect(try installed(["providers", "set", "org.autofill.netrc", "NetrcFile", netrc]).status == 77)
        #expect(try installed(["providers", "trust", "org.autofill.netrc"]).status == 0)
        // Sync runs the plugin in the provider helper installed beside autofill-cli.
        let synced = try installed(["providers", "sync"])
        #expect(synced.stdout == "org.autofill.netrc: 1 identity\n", "\(synced.stderr)")
        let suggested = try installed(["suggest", "example.com", "--json"])
        #expect(suggested.status == 0, "\(suggested.stderr)")
        #expect(suggested.stdout.contains("\"user\" : \"carol\""), "\(suggested.stdout)")
        #expect(!suggested.stderr.contains("built-in demo"))
        let listed = try installed(["providers", "list", "--json"])
        #expect(listed.stdout.contains("\"bundle\" : \"\(prefix)/lib/autofill/providers/NetrcProvider.afprovider\""), "\(listed.stdout)")
        _ = try installed(["agent", "stop"])
    }

    @Test func uninstallRemovesWhatTheInstallPutThereAndNothingElse() throws {
        #expect(try install().status == 0)
        let mine = "\(prefix)/lib/autofill/providers/Mine.afprovider"
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: true)
        let tool = try home.file(".local/bin/my-tool", "#!/bin/sh\n")
        let removed = try install(["--uninstall"])
        #expect(removed.status == 0, "\(removed.stderr)")
        let files = FileManager.default
        for program in Self.programs { #expect(!files.fileExists(atPath: "\(prefix)/bin/\(program)")) }
        for sample in Self.samples { #expect(!files.fileExists(atPath: "\(prefix)/lib/autofill/providers/\(sample).afprovider")) }
        for gone in ["share/man/man1/autofill.1", "share/bash-completion", "share/zsh", "share/fish", "lib/autofill/installed-files"] {
            #expect(!files.fileExists(atPath: "\(prefix)/\(gone)"), "\(gone)")
        }
        #expect(files.fileExists(atPath: mine) && files.fileExists(atPath: tool), "what the user put there stays")
        let again = try install(["--uninstall"])
        #expect(again.status == 66)
        #expect(again.stderr.contains("autofill was not installed in \(prefix) by Scripts/install; nothing removed"))
    }
}
