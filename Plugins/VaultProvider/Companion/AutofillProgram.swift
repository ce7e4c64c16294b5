import ArgumentParser
import Foundation
import AutofillSystem

/// The options of the commands autofill carries out (`unlock`, `lock`): which configuration, which provider.
struct HostOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The autofill configuration (file, or folder holding config.plist), passed on to autofill as --config.", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("The provider's id in the autofill configuration.", valueName: "id"))
    var provider: String = "org.autofill.vault"

    /// The options autofill gets too.
    var passedOn: [String] {
        config.map { ["--config", $0] } ?? []
    }

    /// The refusal of `--vault` for a command autofill carries out.
    static func vaultDoesNotApply(to command: String, provider: String) -> CommandFailure {
        CommandFailure(.usage, """
            --vault does not apply to \(command): autofill \(command)s the vault its configuration names (the VaultFile \
            setting of \(provider)); name another configuration with --config
            """)
    }
}

/// Running `autofill`: the one found next to this program (the folder of /proc/self/exe), else on PATH.
enum AutofillProgram {
    /// Replaces this process with `autofill ARGUMENTS` (`execv`), so what it prints and its exit
    /// status are autofill's. Returns only by throwing: autofill was not found or could not run (69).
    static func replaceProcess(_ arguments: [String]) throws(CommandFailure) {
        guard let path = locate(environment: ProcessInfo.processInfo.environment) else {
            throw CommandFailure(.unavailable, """
                cannot find autofill next to autofill-vault or on PATH; install it, or run `autofill \(arguments.joined(separator: " "))` yourself
                """)
        }
        do {
            try Processes.replace(with: path, arguments: ["autofill"] + arguments)
        } catch {
            throw CommandFailure(.unavailable, "cannot run \(path): \(error.reason)")
        }
    }

    /// The autofill to run: the executable `autofill` in this program's folder, else the first on `PATH`.
    static func locate(environment: [String: String]) -> String? {
        if let executable = try? Paths.linkTarget("/proc/self/exe"), !executable.isEmpty, let slash = executable.lastIndex(of: "/") {
            let sibling = String(executable[..<slash]) + "/autofill"
            if Paths.isExecutable(sibling) { return sibling }
        }
        for folder in (environment["PATH"] ?? "").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = "\(folder)/autofill"
            if Paths.isExecutableFile(candidate) { return candidate }
        }
        return nil
    }
}
