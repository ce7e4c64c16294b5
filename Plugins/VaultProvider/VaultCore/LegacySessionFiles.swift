internal import AutofillSystem
internal import FoundationEssentials

/// The files earlier releases of the Vault kept in its private runtime folder,
/// `$XDG_RUNTIME_DIR/autofill/providers/org.autofill.vault/`, and which this release removes.
///
/// Earlier releases kept an unlocked session there as a file holding the vault key
/// (`vault-HASH.session`, written through a temporary `.vault-HASH.session.RANDOM.tmp`), and before
/// the host recorded fills itself, the fills next to it (`vault-HASH.fills`). The unlocked vault now
/// lives in the provider's memory only (``VaultMemory``) and the host says which fills it delivered
/// (`hostRecentPasswordFill`), so nothing is written there any more. What an older release left is
/// deleted at the provider's load and by `autofill-vault lock`, so a key written before an upgrade
/// does not stay on the runtime file system until logout.
public enum LegacySessionFiles {
    /// The Vault's provider id: its runtime folder is named after it.
    public static let providerID = "org.autofill.vault"

    /// `$XDG_RUNTIME_DIR/autofill/providers/org.autofill.vault` when XDG_RUNTIME_DIR is an absolute
    /// path; else "" (there is no runtime folder, so nothing to remove).
    public static func folder(environment: [String: String]) -> String {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return "" }
        return (runtime.hasSuffix("/") ? runtime : runtime + "/") + "autofill/providers/\(providerID)"
    }

    /// ``remove(in:)`` in the folder of this process's environment.
    @discardableResult
    public static func remove() -> Int {
        remove(in: folder(environment: ProcessInfo.processInfo.environment))
    }

    /// Deletes the session files, their temporary files and the fill records in `folder`; returns
    /// how many were deleted. A folder that does not exist, is a symbolic link, belongs to another
    /// user or cannot be read (the sandbox) is left alone: nothing is created and nothing fails.
    @discardableResult
    public static func remove(in folder: String) -> Int {
        guard !folder.isEmpty else { return 0 }
        guard let fd = try? Descriptors.open(folder, [.directory, .noFollow]) else { return 0 }
        defer { Descriptors.closeQuietly(fd) }
        guard (try? FileStatus(descriptor: fd))?.owner == Users.current, let names = try? Paths.contents(ofFolder: fd) else { return 0 }
        return names.filter(isLegacy).filter { (try? Paths.remove($0, in: fd)) != nil }.count
    }

    /// Whether `name` is one of the files earlier releases wrote.
    static func isLegacy(_ name: String) -> Bool {
        (name.hasPrefix("vault-") && (name.hasSuffix(".session") || name.hasSuffix(".fills")))
            || (name.hasPrefix(".vault-") && name.contains(".session.") && name.hasSuffix(".tmp"))
    }
}
