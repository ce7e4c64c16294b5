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
