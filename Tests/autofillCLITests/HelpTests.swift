import AutofillTestSupport
import Foundation
import Testing

/// `autofill --help` is a golden snapshot: a change to the CLI's surface shows up in review.
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

    @Test(arguments: ["", "create", "add-password", "add-otp", "add-text", "remove", "list", "import", "unlock", "lock", "sync",
                      "show", "search", "edit", "rename", "passwd"])
    func everyVaultCommandsHelpHasExamples(command: String) throws {
        let result = try ChildProcess.run("\(CLI.root)/.build/debug/autofill-vault", (command.isEmpty ? [] : [command]) + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Examples:\n  autofill-vault"), "\(result.stdout)")
    }

    @Test func helpListsTheExitStatuses() throws {
        let home = try TemporaryHome()
        let result = try CLI.run(["--help"], home: home.path)
        for status in ["64", "65", "66", "69", "70", "74", "77", "78"] { #expect(result.stdout.contains("  \(status)  ")) }
    }
}

/// The binaries' dynamic dependencies are what the design says: the host (`autofill-cli`, which the
/// agent runs) links libffi; the client every invocation starts (`autofill`, and git's
/// `git-credential-autofill`) links neither Foundation nor any of the host's libraries.
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
}
