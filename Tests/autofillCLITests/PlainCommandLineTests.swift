import AutofillTestSupport
import Foundation
import Testing

/// A plain `fill` or `suggest` command line is read without ArgumentParser (PlainCommandLine.swift,
/// docs/PERFORMANCE.md); anything else goes the full way. Both must give the same command: a debug
/// build (these tests') parses each plain line the full way too and stops if the two differ, and here
/// each plain line's whole result is compared with the same command spelled so that only the full
/// parse takes it (`--user=ok`, `--`).
struct PlainCommandLineTests {
    /// org.t.fast and org.t.slow, with identities "ok", "hang" and "never" on `<name>.test`.
    let agent: AgentTests

    init() throws {
        agent = try AgentTests()
    }

    static let pairs: [(plain: [String], full: [String])] = [
        (["fill", "fast.test", "--user", "ok"], ["fill", "fast.test", "--user=ok"]),
        (["fill", "--user", "ok", "fast.test", "--json"], ["fill", "--user=ok", "fast.test", "--json"]),
        (["fill", "fast.test", "--user", "ok", "--format", "env", "--fallback"], ["fill", "fast.test", "--user=ok", "--format=env", "--fallback"]),
        (["fill", "fast.test", "--user", "nobody", "--type", "otp"], ["fill", "fast.test", "--user=nobody", "--type=otp"]),
        (["fill", "fast.test", "--pick", "0"], ["fill", "fast.test", "--pick=0"]),
        (["fill", "fast.test", "--pick", "1", "--user", "ok"], ["fill", "fast.test", "--pick=1", "--user=ok"]),
        (["fill", "fast.test", "--provider", "org.t.fast"], ["fill", "fast.test", "--provider=org.t.fast"]),
        (["fill", "fast.test", "--type", "bogus"], ["fill", "fast.test", "--type=bogus"]),
        (["fill", "fast.test", "--format", "xml"], ["fill", "fast.test", "--format=xml"]),
        (["fill", "fast.test", "--pick", "two"], ["fill", "fast.test", "--pick=two"]),
        (["fill", "ok", "--name", "--user", "ok"], ["fill", "--name", "--user=ok", "--", "ok"]),
        (["suggest", "fast.test"], ["suggest", "--", "fast.test"]),
        (["suggest", "fast.test", "--limit", "2", "--json"], ["suggest", "fast.test", "--limit=2", "--json"]),
        (["suggest", "--type", "password", "fast.test"], ["suggest", "--type=password", "fast.test"]),
        (["suggest", "fast.test", "--limit", "0"], ["suggest", "fast.test", "--limit=0"]),
        (["suggest", "fast.test", "--type", "note"], ["suggest", "fast.test", "--type=note"]),
        (["suggest", "hang", "--name"], ["suggest", "--name", "--", "hang"]),
    ]

    /// `autofill COMMAND --config CONFIG REST` in the tests' home (before any `--`).
    func run(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run([arguments[0], "--config", agent.config] + arguments.dropFirst(), home: agent.home.path)
    }

    @Test(arguments: pairs.indices)
    func aPlainCommandLineDoesWhatTheFullParseDoes(pair: Int) throws {
        let (plain, full) = Self.pairs[pair]
        let fast = try run(plain), slow = try run(full)
        #expect(fast.status == slow.status && fast.stdout == slow.stdout && fast.stderr == slow.stderr,
                "\(plain): \(fast.status) \(fast.stdout) \(fast.stderr)\nagainst \(full): \(slow.status) \(slow.stdout) \(slow.stderr)")
        #expect(fast.status != 69 && fast.status < 128, "the debug build found the two parses differ: \(fast.stderr)")
    }
}
