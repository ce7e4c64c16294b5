internal import AutofillWire

extension AgentPaths {
    /// Creates the folder (and `autofill/` above it) 0700, refusing one that is a symbolic link,
    /// another user's or open to others.
    func prepare() throws(AutofillError) {
        try SandboxContext.makePrivateFolder(folder, for: "the autofill agent")
    }
}
