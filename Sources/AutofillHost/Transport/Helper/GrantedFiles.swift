internal import AutofillSystem

/// The single files a helper's sandbox holds by their inode, and which inode each was when the helper
/// started (docs/SANDBOX.md, "What the provider sees after a rename").
///
/// bubblewrap bind-mounts a declared file by itself (`read` of a file, `replace-file`), and Landlock's
/// rule is on the inode the helper opened: when the file is replaced by a rename (KeePassXC's own safe
/// save, another program's, or the host's `replace_file`), a running helper keeps seeing the old version
/// (bound) or cannot read the new one at all (Landlock alone). The host compares each file's device and
/// inode now with those taken just before the helper's sandbox was made; a file replaced since means the
/// helper's view is stale, and the connection ends it before sending a request (a fresh helper binds the
/// current file). Writes into the same inode need nothing: the sandbox sees them.
struct GrantedFiles: Sendable, Equatable {
    /// A file's device and inode; nil fields never occur (a missing file has no identity).
    struct Identity: Sendable, Equatable {
        var device: UInt64
        var inode: UInt64
    }

    /// The files, resolved as at the launch, each with its identity when the helper started (nil: missing).
    private(set) var identities: [String: Identity?]

    /// No file: nothing can go stale.
    static let none = GrantedFiles(identities: [:])

    private init(identities: [String: Identity?]) {
        self.identities = identities
    }

    /// The identity of each of `files` now (their resolved paths): taken before the sandbox binds them.
    init(taking files: [String]) {
        var identities: [String: Identity?] = [:]
        for path in files { identities[path] = Self.identity(of: path) }
        self.identities = identities
    }

    /// The first file (in path order) whose identity is no longer the one taken, or nil.
    func replaced() -> String? {
        identities.keys.sorted().first { Self.identity(of: $0) != identities[$0] ?? nil }
    }

    /// Takes `path`'s identity again (the host itself replaced it for the provider, which knows what it
    /// handed over); a path that is not one of the files is ignored.
    mutating func adopt(_ path: String) {
        guard identities.keys.contains(path) else { return }
        identities[path] = Self.identity(of: path)
    }

    /// Whether `path` is watched: one of the files, not opened through the host since.
    func watches(_ path: String) -> Bool {
        identities.keys.contains(path)
    }

    /// Stops watching `path`: the provider opens it through the host (`open_file`), so it reads the
    /// current file whatever its sandbox holds.
    mutating func follow(_ path: String) {
        identities.removeValue(forKey: path)
    }

    private static func identity(of path: String) -> Identity? {
        StatStamp(path: path).map { Identity(device: $0.device, inode: $0.inode) }
    }
}
