internal import AutofillCore
internal import AutofillSystem

/// Where the identity stores live: `$XDG_DATA_HOME/autofill/stores/` (default
/// `~/.local/share/autofill/stores/`), one `<provider id>.sqlite` per provider. Folders 0700, files 0600.
public struct IdentityStoreDirectory: Hashable, Sendable {
    /// The folder.
    public let path: String

    /// A store folder at `path`.
    public init(path: String) {
        self.path = path
    }

    /// The folder the environment names (``UserFolders``: `$XDG_DATA_HOME` when absolute, else under
    /// `$HOME`, else under the password database's home).
    public init(environment: [String: String]) {
        self.path = "\(UserFolders(environment: environment).dataHome)/autofill/stores"
    }

    /// The database file of `providerID` (provider ids are reverse-DNS names, safe as file names).
    public func path(for providerID: String) -> String {
        "\(path)/\(providerID).sqlite"
    }

    /// Creates the folder and its parents, mode 0700.
    func create() throws(IdentityStoreError) {
        do {
            try Paths.makeFolders(path, mode: 0o700)
        } catch {
            throw IdentityStoreError(.internalError, "cannot create the identity store folder \(path): \(error)")
        }
        try? Paths.setMode(path, 0o700)
    }
}
