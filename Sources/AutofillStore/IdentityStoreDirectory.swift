internal import AutofillCore
internal import AutofillSystem
internal import Glibc

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
        // Almost always it exists (every open makes sure) or only it is missing: one mkdir. Else each parent.
        if !path.hasPrefix("/") || (mkdir(path, 0o700) != 0 && errno != EEXIST) {
            var prefix = ""
            for component in path.split(separator: "/") {
                prefix += "/\(component)"
                if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                    throw IdentityStoreError(.internalError, "cannot create the identity store folder \(prefix): \(String(cString: strerror(errno)))")
                }
            }
        }
        chmod(path, 0o700)
    }
}
