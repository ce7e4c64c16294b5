internal import AutofillSystem

/// The one per-user folder of the host's trust and fault records: `trust.json` (what the user approved
/// of each plugin), `faults.json` (faults and quarantines) and `digests.json` (the digest cache).
///
/// It is `$XDG_STATE_HOME/autofill/` (default `~/.local/state/autofill/`), **whatever the configuration
/// says**: a configuration chooses plugins, settings and its identity stores, but it cannot choose the
/// records its plugins are checked against. A configuration pointing `IdentityStoreDirectory` at a new
/// folder therefore meets the same records, so it can neither get a changed plugin trusted afresh nor
/// escape a quarantine with an empty ledger. Records are keyed by provider id *and* bundle path, so one
/// configuration's plugins never answer for another's. See docs/ARCHITECTURE.md, "Trust and quarantine".
public struct HostRecords: Hashable, Sendable {
    /// The folder.
    public let path: String

    /// The records in `path` (tests; the host uses ``init(environment:)``).
    public init(path: String) {
        self.path = path
    }

    /// The folder the environment names: `$XDG_STATE_HOME/autofill` (``UserFolders``: when it is
    /// absolute, else `$HOME/.local/state/autofill`, `HOME` unset: the user's home from the password database).
    public init(environment: [String: String]) {
        path = "\(UserFolders(environment: environment).stateHome)/autofill"
    }

    /// The path of record file `name` in the folder.
    func file(_ name: String) -> String { "\(path)/\(name)" }

    /// The permission problems of the folder and of the record file `name` (owned by the user or root,
    /// writable by no one else; see ``PluginPermissions``).
    static func problems(ofRecordFile filePath: String) -> [PluginProblem] {
        PluginPermissions.problems(hostPath: filePath, what: "autofill's records", folder: "the folder of autofill's records")
    }
}
