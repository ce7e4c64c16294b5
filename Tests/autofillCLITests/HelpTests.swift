import AutofillTestSupport
import Foundation
import Testing

/// `autofill --help` and every subcommand's (autofill-vault's too) are golden snapshots: a change to the
/// CLI's surface shows up in review. `AUTOFILL_RECORD_SNAPSHOTS=1 swift test --filter HelpTests`
/// records them again after a deliberate change.
struct HelpTests {
    static let snapshot = "\(CLI.root)/Tests/autofillCLITests/Snapshots/help.txt"

    @Test func helpMatchesTheSnapshot() throws {
        let home = try TemporaryHome()
        let result = try CLI.run(["--help"], home: home.path)
        #expect(result.status == 0)
        if ProcessInfo.processInfo.environment["AUTOFILL_RECORD_SNAPSHOTS"] == "1" {
            try Data(result.stdout.utf8).write(to: URL(fileURLWithPath: Self.snapshot))
        }
        let expected = try String(contentsOfFile: Self.snapshot, encoding: .utf8)
        #expect(result.stdout == expected, "run with AUTOFILL_RECORD_SNAPSHOTS=1 to record a deliberate change")
    }

    static let commands = [
        "fill", "suggest", "text", "passkey", "passkey get", "passkey create", "lock", "unlock", "identities", "identities list",
        "identities save", "identities remove", "identities replace", "providers", "providers list", "providers enable",
        "providers disable", "providers order", "providers sync", "providers trust", "plugin", "plugin validate", "plugin bundle",
        "agent", "agent serve", "agent stop", "agent status", "init", "providers set", "providers unset", "git-credential",
        "browser", "browser install", "browser uninstall",
    ]

    @Test(arguments: commands)
    func everyCommandsHelpHasExamples(command: String) throws {
        let home = try TemporaryHome()
        let result = try CLI.run(command.split(separator: " ").map(String.init) + ["--help"], home: home.path)
        #expect(result.status == 0)
        let examples = result.stdout.components(separatedBy: "Examples:\n").dropFirst().first ?? ""
        #expect(examples.hasPrefix("  ") && examples.contains("autofill"), "\(result.stdout)")
    }

    @Test(arguments: vaultCommands)
    func everyVaultCommandsHelpHasExamples(command: String) throws {
        let result = try ChildProcess.run("\(CLI.root)/.build/debug/autofill-vault", (command.isEmpty ? [] : [command]) + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Examples:\n  autofill-vault"), "\(result.stdout)")
    }

    /// Every subcommand, for the snapshots (some of these have no examples of their own).
    static let allCommands = commands + [
        "save", "generate", "report", "report unused-password", "passkey signal", "passkey signal unknown-credential",
        "passkey signal accepted-credentials", "passkey signal user-details",
    ]

    static let vaultCommands = ["", "create", "add-password", "add-otp", "add-text", "remove", "list", "import", "unlock", "lock",
                                "sync", "show", "search", "edit", "rename", "passwd"]

    /// `autofill COMMAND --help` (or `autofill-vault COMMAND --help`) at `columns`.
    static func help(_ command: String, vault: Bool, columns: Int) throws -> CLI.Result {
        let arguments = command.split(separator: " ").map(String.init) + ["--help"]
        if vault {
            return try ChildProcess.run("\(CLI.root)/.build/debug/autofill-vault", arguments, environment: ["COLUMNS": "\(columns)", "PATH": "/usr/bin:/bin"])
        }
        let home = try TemporaryHome()
        return try CLI.run(arguments, home: home.path, environment: ["COLUMNS": "\(columns)"])
    }

    /// Compares `text` with the snapshot `name`, recording it instead with AUTOFILL_RECORD_SNAPSHOTS=1.
    static func expectSnapshot(_ text: String, named name: String) throws {
        let path = "\(CLI.root)/Tests/autofillCLITests/Snapshots/\(name).txt"
        if ProcessInfo.processInfo.environment["AUTOFILL_RECORD_SNAPSHOTS"] == "1" {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == expected, "\(name): run with AUTOFILL_RECORD_SNAPSHOTS=1 to record a deliberate change")
    }

    @Test(arguments: allCommands)
    func everyCommandsHelpMatchesItsSnapshot(command: String) throws {
        let result = try Self.help(command, vault: false, columns: 100)
        #expect(result.status == 0)
        try Self.expectSnapshot(result.stdout, named: "help-" + command.replacingOccurrences(of: " ", with: "-"))
    }

    @Test(arguments: vaultCommands)
    func everyVaultCommandsHelpMatchesItsSnapshot(command: String) throws {
        let result = try Self.help(command, vault: true, columns: 100)
        #expect(result.status == 0)
        try Self.expectSnapshot(result.stdout, named: "vault-help" + (command.isEmpty ? "" : "-" + command))
    }

    /// At any width a discussion reads as paragraphs: wide enough for every paragraph to fit on one line,
    /// no line of prose ends mid-sentence with the next line of the same indentation going on with it.
    @Test(arguments: [("", false)] + allCommands.map { ($0, false) } + vaultCommands.map { ($0, true) })
    func everyHelpReadsAsParagraphsAtAnyWidth(command: String, vault: Bool) throws {
        let result = try Self.help(command, vault: vault, columns: 1000)
        #expect(result.status == 0)
        let lines = result.stdout.components(separatedBy: "\n")
        func indentation(_ line: String) -> Int { line.prefix { $0 == " " }.count }
        for (line, next) in zip(lines, lines.dropFirst()) {
            guard let last = line.last, let first = next.drop(while: { $0 == " " }).first,
                  indentation(line) == 0, indentation(next) == 0 else { continue }
            let broken = (last.isLetter || last == ",") && first.isLowercase
            #expect(!broken, "\(vault ? "autofill-vault" : "autofill") \(command) --help breaks a sentence:\n\(line)\n\(next)")
        }
    }

    /// A leaf command is parsed on its own first (Autofill.parse): what it says about itself is still
    /// said as `autofill COMMAND`.
    @Test(arguments: ["fill", "suggest", "lock"])
    func aLeafCommandsHelpUsageErrorsAndVersionAreThoseOfAutofill(command: String) throws {
        let home = try TemporaryHome()
        let help = try CLI.run([command, "--help"], home: home.path)
        #expect(help.status == 0 && help.stdout.contains("USAGE: autofill \(command)"), "\(help.stdout)")
        let wrong = try CLI.run([command, "--no-such-option"], home: home.path)
        #expect(wrong.status == 64 && wrong.stderr.contains("Usage: autofill \(command)"), "\(wrong.stderr)")
        let version = try CLI.run([command, "--version"], home: home.path)
        #expect(version.status == 0 && version.stdout.hasPrefix("autofill "), "\(version.stdout) \(version.stderr)")
    }

    @Test func helpListsTheExitStatuses() throws {
        let home = try TemporaryHome()
        let result = try CLI.run(["--help"], home: home.path)
        for status in ["64", "65", "66", "69", "70", "74", "77", "78"] { #expect(result.stdout.contains("  \(status)  ")) }
    }

    /// Every status a command's help names is one of the table's (docs/CLI.md lists the table, and
    /// ExitStatusTests holds that list to ExitStatus).
    @Test func everyStatusAHelpNamesIsInTheTable() throws {
        let docs = try String(contentsOfFile: "\(CLI.root)/docs/CLI.md", encoding: .utf8)
        let section = try #require(docs.components(separatedBy: "## Exit statuses").dropFirst().first?.components(separatedBy: "\n## ").first)
        let table = Set(section.split(separator: "\n").compactMap { line in line.hasPrefix("| ") ? Int(line.dropFirst(2).prefix { $0.isNumber }) : nil })
        #expect(table.contains(0) && table.contains(77))
        let folder = "\(CLI.root)/Tests/autofillCLITests/Snapshots"
        // autofill-vault, the Vault's companion, has statuses of its own (docs/VAULT.md).
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("help") {
            let text = try String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8)
            guard let start = text.range(of: "Exit status") else { continue }
            let paragraph = text[start.lowerBound...].components(separatedBy: "\n\n")[0]
            let numbers = paragraph.split { !$0.isNumber }.compactMap { Int($0) }
            #expect(!numbers.isEmpty, "\(name)")
            for number in numbers { #expect(table.contains(number), "\(name) names exit status \(number), which is not in the table") }
        }
    }
}

/// The binaries' dynamic dependencies are what the design says: the host (`autofill-cli`, which the
/// agent runs) links libffi; the sandboxed provider helper links what loading, the helper protocol
/// and the sandbox entry need, and none of the host's PAM, SQLite, D-Bus, libpsl or libidn2; the
/// clients every invocation starts (`autofill`, and git's `git-credential-autofill`) are linked
/// statically: they load no shared object at all, the Swift runtime included.
struct LinkageTests {
    /// `ldd`'s list for `binary`; fails the test when ldd fails (a missing binary lists nothing, which
    /// would pass every "does not link" check).
    static func libraries(_ binary: String) throws -> String {
        let result = try ChildProcess.run("/usr/bin/ldd", [binary])
        try #require(result.status == 0, "ldd \(binary) failed (\(result.status)): \(result.stderr)")
        return result.stdout
    }

    @Test func theHostLinksLibffi() throws {
        #expect(try Self.libraries("\(CLI.root)/.build/debug/autofill-cli").contains("libffi.so"))
    }

    @Test func theProviderHelperLinksOnlyTheProviderRuntime() throws {
        let libraries = try Self.libraries("\(CLI.root)/.build/debug/autofill-provider-helper")
        // Control: what the provider runtime does need is there (libffi for host services, libseccomp for the sandbox).
        for needed in ["libffi.so", "libseccomp.so"] { #expect(libraries.contains(needed), "the helper does not link \(needed)") }
        for hostOnly in ["libpam", "libsqlite3", "libdbus", "libpsl", "libidn2", "libsystemd", "libgcrypt"] {
            #expect(!libraries.contains(hostOnly), "autofill-provider-helper links \(hostOnly), which only the host needs")
        }
    }

    @Test func lddFailsForAMissingBinary() throws {
        let result = try ChildProcess.run("/usr/bin/ldd", ["\(CLI.root)/.build/debug/no-such-binary"])
        #expect(result.status != 0)
    }

    @Test(arguments: ["autofill", "git-credential-autofill"])
    func theClientsEveryInvocationStartsAreStatic(name: String) throws {
        let client = "\(CLI.root)/.build/debug/\(name)"
        let ldd = try ChildProcess.run("/usr/bin/ldd", [client])
        #expect(ldd.stdout.contains("not a dynamic executable") || ldd.stderr.contains("not a dynamic executable"), "\(ldd.stdout)")
        #expect(!ldd.stdout.contains("=>"), "\(name) loads shared objects: \(ldd.stdout)")
        // The control: the host is dynamic, so the check above can tell the two apart.
        #expect(try Self.libraries("\(CLI.root)/.build/debug/autofill-cli").contains("libswiftCore.so =>"))
    }
}
