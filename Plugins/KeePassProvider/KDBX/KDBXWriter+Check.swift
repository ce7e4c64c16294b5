internal import Foundation

extension KDBXWriter {
    /// Checks the database as written (read back from the new XML with the new inner stream) against
    /// the database as read: every entry but the one edited reads the same, in the same order; the
    /// edited one has the new password, or the added one is there once. A writer bug, or input the
    /// rewriter reads differently from the reader, ends in an error before the file is touched.
    static func check(_ after: KDBXDatabase, against before: KDBXDatabase, edit: KDBXEdit) throws(KDBXError) {
        var written = after.entries
        var target: String?
        switch edit {
        case .add(let title, let userName, let password, _):
            let known = Set(before.entries.map(\.uuid))
            guard let added = written.firstIndex(where: { !known.contains($0.uuid) && $0.title == XMLOutput.xmlSafe(title)
                && $0.userName == XMLOutput.xmlSafe(userName) && $0.password.revealed == password.revealed }) else {
                throw mismatch("the new entry is not in it")
            }
            written.remove(at: added)
        case .setPassword(let uuid, let password):
            guard let changed = written.firstIndex(where: { $0.uuid == uuid }), written[changed].password.revealed == password.revealed else {
                throw mismatch("the changed entry does not have the new password")
            }
            target = uuid
        }
        guard written.count == before.entries.count else { throw mismatch("\(written.count) other entries, not \(before.entries.count)") }
        var targetSeen = false
        for (old, new) in zip(before.entries, written) {
            if old.uuid == target, !targetSeen {
                targetSeen = true
                guard new.uuid == old.uuid else { throw mismatch("an entry moved") }
                continue
            }
            guard same(old, new) else { throw mismatch("an entry other than the one saved reads differently") }
        }
    }

    private static func same(_ a: KDBXEntry, _ b: KDBXEntry) -> Bool {
        a.uuid == b.uuid && a.title == b.title && a.userName == b.userName && a.password.revealed == b.password.revealed
            && a.url == b.url && a.additionalURLs == b.additionalURLs && a.expiryTime == b.expiryTime
            && a.isInRecycleBin == b.isInRecycleBin && a.groupPath == b.groupPath
            && a.fields.mapValues(\.revealed) == b.fields.mapValues(\.revealed)
    }

    private static func mismatch(_ what: String) -> KDBXError {
        KDBXError(.corrupt, "the database as it would be written does not read back as it should (\(what)): nothing was written")
    }
}
