/// The fill records earlier versions of the vault kept next to a session (`vault-HASH.fills`). The
/// host now says which fills it delivered (`hostRecentPasswordFill`), so the vault keeps none; a
/// lock still removes an old file.
extension SessionCache {
    /// The legacy fills file's name: like the session's, from the vault's canonical path.
    static func fillsFileName(for path: String) -> String {
        String(fileName(for: path).dropLast(".session".count)) + ".fills"
    }
}
