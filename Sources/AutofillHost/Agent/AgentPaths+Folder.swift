internal import AutofillWire

extension AgentPaths {
    /// Checks the runtime folder and `autofill/` in it (``unsafeFolder()``: the user's, 0700), then
    /// creates the agent's folder (and what is missing above it) 0700, refusing one that is a
    /// symbolic link, another user's or open to others.
    func prepare() throws(AutofillError) {
        if let problem = unsafeFolder() { throw AutofillError(.refused, "cannot start the agent: \(problem)") }
        try SandboxContext.makePrivateFolder(folder, for: "the autofill agent")
        if let problem = unsafeFolder() { throw AutofillError(.refused, "cannot start the agent: \(problem)") }
    }
}
