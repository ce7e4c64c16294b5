import AutofillProviderKit
import Foundation
import Glibc
import KDBX

/// The database file as it is on disk now, opened by the host (`open_file`; docs/SANDBOX.md, "What the
/// provider sees after a rename"): the sandbox holds the file by the inode it had when the provider
/// started, so only the host's descriptor shows a version KeePassXC saved since (its safe save renames
/// a new file over the old one). Read with the held key, it needs no new unlock, and a save is based on
/// it. A host without `open_file` (or one that refuses) leaves the path, read as the sandbox shows it.
final class DatabaseFile {
    let path: String
    /// The host's descriptor, or -1 when the file is read at `path`.
    private let descriptor: Int32
    /// The version open: its inode, size and modification time.
    let stamp: FileStamp

    init(_ path: String, host: ProviderHost) {
        self.path = path
        if case .success(let descriptor) = host.openFile(path) {
            self.descriptor = descriptor
            var info = stat()
            stamp = fstat(descriptor, &info) == 0 ? FileStamp(info) : FileStamp(path)
        } else {
            descriptor = -1
            stamp = FileStamp(path)
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The database opened with `key`.
    func open(key: CompositeKey, kdfLimit: Duration) throws(KDBXError) -> KDBXDatabase {
        guard descriptor >= 0 else { return try KDBXReader.open(at: path, key: key, kdfLimit: kdfLimit) }
        return try KDBXReader.open(try saved().bytes, key: key, kdfLimit: kdfLimit, name: "the database \(path)")
    }

    /// The file read whole, as a save is based on it.
    func saved() throws(KDBXError) -> SavedFile {
        guard descriptor >= 0 else { return try SavedFile(reading: path) }
        return try SavedFile(descriptor: descriptor, path: path)
    }

    /// Whether it was opened through the host (it follows renames).
    var isCurrent: Bool { descriptor >= 0 }
}
