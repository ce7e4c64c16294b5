import AutofillTestSupport
import Foundation

/// Runs the real git for the git credential helper's tests, with the built `git-credential-autofill`
/// as its only credential helper, in a test's home.
enum Git {
    /// The built helper, next to `autofill`.
    static var helper: String { "\(CLI.root)/.build/debug/git-credential-autofill" }

    /// ``CLI/environment(home:)`` with `config` as autofill's configuration, no system or global git
    /// configuration, and git's own prompt turned off: where no helper answers, git fails with
    /// "terminal prompts disabled" instead of asking.
    static func environment(home: String, config: String) -> [String: String] {
        CLI.environment(home: home).merging(variables(config: config)) { $1 }
    }

    /// What ``environment(home:config:)`` adds to the CLI's.
    static func variables(config: String) -> [String: String] {
        ["AUTOFILL_CONFIG": config, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0"]
    }

    /// Runs `git -c credential.helper=HELPER arguments` (nil: no helper at all) with `input` on stdin.
    static func run(_ arguments: [String], home: String, config: String, helper: String? = Git.helper,
                    environment extra: [String: String] = [:], input: String = "") throws -> CLI.Result {
        let helperOption = ["-c", "credential.helper="] + (helper.map { ["-c", "credential.helper=\($0)"] } ?? [])
        return try ChildProcess.run("/usr/bin/git", helperOption + arguments,
                                    environment: environment(home: home, config: config).merging(extra) { $1 }, input: input)
    }

    /// Runs the helper itself, as git would (`git-credential-autofill OPERATION`), with `input` on stdin.
    static func runHelper(_ arguments: [String], home: String, config: String, input: String) throws -> CLI.Result {
        try ChildProcess.run(helper, arguments, environment: environment(home: home, config: config), input: input)
    }

    /// A credential description as git writes one: `key=value` lines and the blank line.
    static func description(_ pairs: KeyValuePairs<String, String>) -> String {
        pairs.map { "\($0.key)=\($0.value)\n" }.joined() + "\n"
    }
}
