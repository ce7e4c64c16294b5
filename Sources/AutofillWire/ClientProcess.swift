internal import AutofillSystem

/// What the small `autofill` client needs of its own process, without Foundation.
package enum ClientProcess {
    /// This process's environment.
    package static func environment() -> [String: String] {
        ClientEnvironment.current().variables
    }

    /// The folder of this process's executable (`/proc/self/exe`), where `autofill-cli` is installed.
    package static func folder() -> String {
        guard let path = try? Paths.linkTarget("/proc/self/exe"), !path.isEmpty else { return "." }
        return String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// Replaces this process with `executable arguments` (argv[0] "autofill"), or exits 70 saying why.
    package static func replace(with executable: String, arguments: [String]) -> Never {
        do {
            try Processes.replace(with: executable, arguments: ["autofill"] + arguments)
        } catch {
            writeError("autofill: cannot run \(executable): \(error.reason); reinstall autofill (autofill-cli belongs next to autofill)\n")
        }
        Processes.exit(ExitStatus.software.rawValue)
    }

    /// Writes `text` to stderr.
    package static func writeError(_ text: String) {
        try? Descriptors.write(2, text)
    }
}
