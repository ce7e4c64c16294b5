internal import AutofillCore
internal import AutofillSystem

/// GnuPG's folders are never a provider's to change (docs/SANDBOX.md, "GnuPG homes are read-only").
/// gpg-agent runs, outside any sandbox, the programs its configuration names (`pinentry-program`,
/// `scdaemon-program`, …) and rereads it on `gpgconf --reload`; gpg.conf, common.conf, scdaemon.conf and
/// dirmngr.conf steer the programs the user runs. A provider that could write one of them in the GnuPG
/// home would run its own code outside its sandbox. gpg decrypts and encrypts with the home read-only
/// (its only writes there, the random seed and trust-database checks, are skipped with a warning), and
/// connecting to gpg-agent's socket needs no write, so no grant that changes files may be, hold or lie
/// in a GnuPG home or the folder of gpg-agent's sockets.
extension SandboxContext {
    /// The GnuPG folders no grant may change: the home the provider's `GPGAgent` names (as its grant
    /// resolves), the user's `$GNUPGHOME` and `~/.gnupg`, and `$XDG_RUNTIME_DIR/gnupg` (gpg-agent's
    /// sockets on a desktop); each as written and resolved.
    func gnupgFolders(of manifest: PluginManifest, grants: [Grant]) -> [String] {
        var folders = ["\(home)/.gnupg"]
        if let variable = environment["GNUPGHOME"], variable.hasPrefix("/") { folders.append(LexicalPath.standardized(variable)) }
        if let runtimeDirectory { folders.append("\(runtimeDirectory)/gnupg") }
        if let setting = manifest.sandbox.gpgAgentHomeSetting, let grant = grants.first(where: { $0.what == "its \(setting) setting" }) {
            folders += [grant.written, grant.path]
        }
        var result: [String] = []
        for folder in folders.flatMap(Self.bothForms) where !result.contains(folder) { result.append(folder) }
        return result
    }

    /// Refuses `grant` when it changes files and is, holds or lies in one of `folders` (``gnupgFolders``).
    func checkGnuPG(_ grant: Grant, folders: [String], refuse: (String) -> AutofillError) throws(AutofillError) {
        guard grant.changes else { return }
        for folder in folders {
            for path in Set([grant.written, grant.path]) where Self.overlaps(path, folder) {
                let relation = path == folder ? "is" : Self.isInside(folder, path) ? "holds" : "is part of"
                throw refuse("\(relation) the GnuPG folder \(folder): gpg-agent runs the programs its configuration there names outside any sandbox, so no provider may change it (gpg needs it only read; declare it with read Access)")
            }
        }
    }
}
