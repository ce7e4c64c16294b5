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

/// The binary's dynamic dependencies are what the design says.
struct LinkageTests {
    @Test func theHostLinksLibffi() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        process.arguments = [CLI.binary]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(output.contains("libffi.so"))
    }
}
