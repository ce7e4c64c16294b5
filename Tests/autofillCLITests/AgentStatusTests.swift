import AutofillTestSupport
import Foundation
import Testing

/// What `autofill agent status` says about the providers' helpers: the pid it reports is the
/// process that runs the provider, also when that runs in namespaces of its own (docs/AGENT.md).
/// Uses the fixture providers of ``AgentTests``.
@Suite(.enabled(if: CLI.usesAgent))
struct AgentStatusTests {
    let agent: AgentTests

    init() throws {
        agent = try AgentTests()
    }

    /// The kernel's list of `pid`'s ids, one per pid namespace from the outermost (`NSpid:`).
    static func namespacePIDs(_ pid: Int32) throws -> [Substring] {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("NSpid:") })
        return line.split(whereSeparator: \.isWhitespace).dropFirst().map { $0 }
    }

    @Test(.enabled(if: NamespaceSandboxTests.userNamespaces))
    func theHelperPIDIsTheProcessThatAnswersStoppingItHoldsFillsUntilItContinues() throws {
        let filled = try agent.autofill(["fill", "fast.test", "--user", "ok"])
        #expect(filled.status == 0 && filled.stdout == "pw-fast\n", "\(filled.stderr)")
        let helper = try #require(try agent.status()?.helpers["org.t.fast"])
        // In the helper's own pid namespace: the kernel names it there too.
        #expect(try Self.namespacePIDs(helper).count == 2, "pid \(helper) is not the helper inside its namespaces")

        kill(helper, SIGSTOP)
        var continued = false
        defer { if !continued { kill(helper, SIGCONT) } }
        let waiting = try agent.startFill("fast.test", user: "ok")
        // Stopped, the process reported answers nothing: the fill waits (the no-UI deadline is 60 s).
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline && waiting.isRunning { Thread.sleep(forTimeInterval: 0.05) }
        #expect(waiting.isRunning, "a fill was answered while the helper pid agent status reports was stopped")
        // Control: continued, it answers the fill that waited, and the next one.
        kill(helper, SIGCONT)
        continued = true
        let answered = waiting.wait()
        #expect(answered.status == 0 && answered.stdout == "pw-fast\n", "\(answered.stderr)")
        #expect(try agent.autofill(["fill", "fast.test", "--user", "ok"]).stdout == "pw-fast\n")
        #expect(try agent.status()?.helpers["org.t.fast"] == helper, "the same helper still serves")
    }
}
