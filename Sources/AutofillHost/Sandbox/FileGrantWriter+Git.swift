internal import AutofillCore
internal import AutofillSystem

/// Committing an added file, as `pass insert` does when the store is a git repository.
extension FileGrantWriter {
    /// Where git is looked for (the helpers' PATH): never a folder of the provider's.
    static let gitFolders = ["/usr/local/bin", "/usr/bin", "/bin"]

    /// Commits `name` (relative to `grant`) when its folder is in a git work tree: `git add` then
    /// `git commit` of that file only, with pass's messages ("Add given password for NAME to store." for
    /// a new file, "Edit password for NAME using autofill." for a replaced one) and, as pass does, `-S`
    /// when `git config pass.signcommits` is true. git runs in the file's folder (pass's `INNER_GIT_DIR`:
    /// a folder of the store may be a repository of its own), never looking above the grant for one, with a
    /// clean environment: the fixed PATH, and HOME, USER, LOGNAME and GNUPGHOME (for the user's identity and signing key). Returns " and
    /// committed it", nil when the folder is no git work tree (or git is not installed).
    func commit(_ name: String, in grant: Folder, replaced: Bool) throws(Failure) -> String? {
        guard let git = Self.gitFolders.map({ $0 + "/git" }).first(where: Paths.isExecutable) else { return nil }
        let components = name.split(separator: "/")
        let folder = ([grant.path] + components.dropLast().map(String.init)).joined(separator: "/")
        let file = String(components.last!)
        guard case (0, let inside) = run(git, ["-C", folder, "rev-parse", "--is-inside-work-tree"], root: grant.path), inside.trimmed == "true" else { return nil }
        let entry = String(name.dropLast(grant.suffix.count))
        let message = replaced ? "Edit password for \(entry) using autofill." : "Add given password for \(entry) to store."
        let sign = run(git, ["-C", folder, "config", "--bool", "--get", "pass.signcommits"], root: grant.path).output.trimmed == "true"
        for arguments in [["add", "--", file], ["commit", "-q"] + (sign ? ["-S"] : []) + ["-m", message, "--", file]] {
            let (status, output) = run(git, ["-C", folder] + arguments, root: grant.path)
            guard status == 0 else {
                throw ioFailure("wrote \(grant.path)/\(name), but `git \(arguments[0])` in \(folder) failed\(DisplayText.line(output, limit: 500)); commit it yourself, or fix the repository")
            }
        }
        return " and committed it"
    }

    /// Runs git with `arguments` and the clean environment (``ToolProcess``: stdin /dev/null, killed after
    /// its deadline); its exit status and output, or its error output when it failed.
    private func run(_ program: String, _ arguments: [String], root: String) -> (status: Int32, output: String) {
        var variables = environment
        variables["PATH"] = Self.gitFolders.joined(separator: ":")
        variables["LC_ALL"] = "C"
        // git never looks above the grant for a repository (pass would): the store's own, or none.
        variables["GIT_CEILING_DIRECTORIES"] = SandboxContext.parent(of: root)
        let outcome = ToolProcess(path: program, arguments: ["git"] + arguments, environment: variables, input: nil, captureOutput: true).wait()
        return (outcome.status, outcome.status == 0 ? String(decoding: outcome.output, as: UTF8.self) : outcome.reason)
    }
}
