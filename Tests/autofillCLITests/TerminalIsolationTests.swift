import AutofillTestSupport
import Foundation
import Testing

/// Tests never use the developer's terminal by accident: every program they start runs in a session
/// of its own, without a controlling terminal, at a terminal exactly as in CI. (Tests that need a
/// terminal drive a real one through tmux.)
struct TerminalIsolationTests {
    @Test func aChildOfTheTestsHasNoControllingTerminal() throws {
        let result = try ChildProcess.run("/bin/sh", ["-c", "if (exec 3<>/dev/tty) 2>/dev/null; then echo terminal; else echo none; fi"])
        #expect(result.stdout == "none\n")
    }

    @Test func aChildLeadsASessionOfItsOwn() throws {
        let result = try ChildProcess.run("/bin/sh", ["-c", "ps -o sid= -p $$; echo $$"])
        let lines = result.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.count == 2 && lines[0] == lines[1], "\(result.stdout)")
    }
}
