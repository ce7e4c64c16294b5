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

    @Test func helpListsTheExitStatuses() throws {
        let home = try TemporaryHome()
        let result = try CLI.run(["--help"], home: home.path)
        for status in ["64", "65", "66", "69", "70", "74", "77", "78"] { #expect(result.stdout.contains("  \(status)  ")) }
    }
}

/// The binaries' dynamic dependencies are what the design says: the host (`autofill-cli`, which the
/// agent runs) links libffi; the client every invocation starts (`autofill`, and git's
/// `git-credential-autofill`) links neither Foundation nor any of the host's libraries, and
/// `autofill` is linked statically: it loads no shared object at all, the Swift runtime included.
struct LinkageTests {
    static func libraries(_ binary: String) throws -> String {
        try ChildProcess.run("/usr/bin/ldd", [binary]).stdout
    }

    @Test func theHostLinksLibffi() throws {
        #expect(try Self.libraries("\(CLI.root)/.build/debug/autofill-cli").contains("libffi.so"))
    }

    @Test(arguments: ["autofill", "git-credential-autofill"])
    func theClientIsLean(name: String) throws {
        let libraries = try Self.libraries("\(CLI.root)/.build/debug/\(name)")
        for heavy in ["Foundation", "libffi", "libsqlite3", "libpsl", "libpam", "libseccomp", "libdbus"] {
            #expect(!libraries.contains(heavy), "\(name) links \(heavy)")
        }
    }

    @Test func theClientEveryInvocationStartsIsStatic() throws {
        let client = "\(CLI.root)/.build/debug/autofill"
        let ldd = try ChildProcess.run("/usr/bin/ldd", [client])
        #expect(ldd.stdout.contains("not a dynamic executable") || ldd.stderr.contains("not a dynamic executable"), "\(ldd.stdout)")
        #expect(!ldd.stdout.contains("=>"), "autofill loads shared objects: \(ldd.stdout)")
        // The control: the host is dynamic, so the check above can tell the two apart.
        #expect(try Self.libraries("\(CLI.root)/.build/debug/autofill-cli").contains("libswiftCore.so =>"))
    }
}
