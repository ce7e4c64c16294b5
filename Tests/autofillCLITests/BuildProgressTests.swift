import AutofillTestSupport
import Foundation
import Testing

/// `Scripts/progress`, the filter `Scripts/build`, `Scripts/test` and `Scripts/install` pipe `swift build`
/// through: a build shows what it does, at a terminal (one updating line) and without one (a line per interval).
struct BuildProgressTests {
    /// A package of one small library, in a folder of its own: a real `swift build` that takes seconds.
    static func tinyPackage() throws -> TemporaryFolder {
        let folder = try TemporaryFolder("tiny-package")
        try folder.file("Package.swift", """
            // swift-tools-version:5.9
            import PackageDescription
            let package = Package(name: "Tiny", targets: [.target(name: "Tiny")])
            """)
        try FileManager.default.createDirectory(atPath: "\(folder.path)/Sources/Tiny", withIntermediateDirectories: true)
        try folder.file("Sources/Tiny/Tiny.swift", "public func tiny() -> Int { 42 }\n")
        return folder
    }

    static var swift: String { "\(BootstrapTests.swiftFolder)/swift" }
    static var progress: String { "\(CLI.root)/Scripts/progress" }

    @Test func atATerminalABuildShowsOneLineThatUpdatesWithTheStepAndWhatIsBuilt() throws {
        let package = try Self.tinyPackage()
        let raw = "\(package.path)/terminal-output"
        // The build waits for Enter, so pipe-pane records the pane's every byte from its first one.
        let session = try TmuxSession("read go; '\(Self.swift)' build --package-path '\(package.path)' 2>&1 | '\(Self.progress)'; echo BUILD-ENDED; sleep 600",
                                      columns: 60, rows: 20)
        try session.tmux(["pipe-pane", "-o", "-t", session.name, "cat >> '\(raw)'"])
        try session.send("Enter")
        let screen = try session.waitFor("BUILD-ENDED", timeout: 900)
        let output = try String(contentsOfFile: raw, encoding: .utf8)
        // The step line was drawn in place (carriage return, erase line), naming the step and what it built.
        #expect(output.contains("\r\u{1B}[Kbuild: ["), "\(output.debugDescription)")
        #expect(output.contains("Compiling Tiny") || output.contains("Compiling tiny"), "\(output.debugDescription)")
        // ...and erased when the build ended: the pane keeps swift build's own lines, no step lines.
        #expect(screen.contains("Build complete!"), "\(screen)")
        #expect(!screen.contains("build: ["), "\(screen)")
        #expect(!screen.split(separator: "\n").contains { $0.hasPrefix("[") }, "\(screen)")
        // Cut to the pane's width: a progress line never wraps onto a second line.
        let drawn = output.components(separatedBy: "\r\u{1B}[K").dropFirst().map { $0.prefix { $0 != "\r" && $0 != "\n" } }
        #expect(drawn.allSatisfy { $0.count < 60 }, "\(drawn)")
    }

    @Test func withoutATerminalABuildWritesProgressLinesAndPassesTheRestThrough() throws {
        let package = try Self.tinyPackage()
        let result = try ChildProcess.run("/bin/bash", ["-c", "'\(Self.swift)' build --package-path '\(package.path)' 2>&1 | '\(Self.progress)'"],
                                          environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                                                        "HOME": package.path, "AUTOFILL_PROGRESS_INTERVAL": "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("build: [") && $0.contains("/") && $0.hasSuffix(" s)") }, "\(result.stderr)")
        // Plain lines for a log: no carriage returns, no terminal escapes.
        #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}"), "\(result.stderr.debugDescription)")
        // swift build's own lines pass through on stdout; its step lines do not.
        #expect(result.stdout.contains("Build complete!"), "\(result.stdout)")
        #expect(!result.stdout.split(separator: "\n").contains { $0.hasPrefix("[") }, "\(result.stdout)")
    }

    @Test func withoutATerminalALongStepIsReportedAgainEveryInterval() throws {
        // One step that prints nothing for 4 s (a big module compiling): reported again while it runs.
        let script = "{ echo '[1/2] Compiling Big Big.swift'; sleep 4; echo '[2/2] Linking big'; echo 'Build complete!'; } | '\(Self.progress)'"
        let result = try ChildProcess.run("/bin/bash", ["-c", script], environment: ["PATH": "/usr/bin:/bin", "AUTOFILL_PROGRESS_INTERVAL": "1"])
        #expect(result.status == 0)
        let reports = result.stderr.split(separator: "\n").filter { $0.hasPrefix("build: [1/2] Compiling Big Big.swift (") }
        #expect(reports.count >= 2, "\(result.stderr)")
        #expect(result.stdout == "Build complete!\n")
    }
}
