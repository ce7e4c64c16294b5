internal import AutofillCore
internal import AutofillSystem
internal import CAutofillProvider
internal import CAutofillSandbox
internal import Glibc

/// The host's side of `replace_file` (docs/SANDBOX.md, "replace-file: the host replaces one file"): a
/// provider reads one file it declared with `replace-file` Access (a KeePass database), builds the whole
/// new contents itself, and asks the host to put them in place of the file. The provider gets no write
/// access at all, and nothing beside the file: a database in the home folder can be saved into without
/// granting the home folder, and a provider cannot write any other file there.
///
/// The host checks the path is one of the provider's replace-file files (as written or as resolved when
/// it launched the provider) and the size (1 byte to `AF_MAX_REPLACE_FILE_LENGTH`); opens the file's
/// folder with no link on the way (``openGrantFolder(_:)``) and the file beneath it without following a
/// link (`afs_open_beneath`), a plain file or refused; hashes it (SHA-256) and compares the digest with
/// the one the provider based its change on, refusing when they differ (another program saved the file
/// since the provider read it); then writes through ``AtomicFile`` in that folder with the file's mode,
/// and just before the rename checks again that the file is still the one hashed (its stat stamp, and
/// its digest again when it changed within the last 2 s, where a stamp cannot tell two writes apart).
extension FileGrantWriter {
    /// Replaces the replace-file file `path` with `contents` (read during the call only) for `provider` (its name, for messages),
    /// only when the file's SHA-256 is `expectedSHA256`. Returns what was done, for the log.
    public func replace(path: String, contents: UnsafeRawBufferPointer, expectedSHA256: [UInt8], provider: String) throws(Failure) -> String {
        guard path.hasPrefix("/"), let file = files.first(where: { [$0.written, $0.path].contains(LexicalPath.standardized(path)) }) else {
            throw refusal("\(DisplayText.line(path, limit: 300)) is not a file \(provider) declared with replace-file Access (docs/SANDBOX.md); nothing was written")
        }
        guard expectedSHA256.count == 32 else {
            throw refusal("the expected SHA-256 of \(file.path) has \(expectedSHA256.count) bytes, not 32; nothing was written")
        }
        guard (1...Int(AF_MAX_REPLACE_FILE_LENGTH)).contains(contents.count) else {
            throw refusal("the new contents of \(file.path) have \(contents.count) bytes; autofill replaces a file with 1 byte to \(AF_MAX_REPLACE_FILE_LENGTH >> 20) MiB; nothing was written")
        }
        return try Self.writing.withLock { _ throws(Failure) -> String in
            try replace(file, with: contents, expectedSHA256: expectedSHA256)
            return "replaced \(file.path) (\(contents.count) bytes)"
        }
    }

    private func replace(_ file: File, with contents: UnsafeRawBufferPointer, expectedSHA256: [UInt8]) throws(Failure) {
        let folderPath = LexicalPath.folder(of: file.path), name = LexicalPath.name(of: file.path)
        let folder = try openGrantFolder(folderPath)
        defer { close(folder) }
        let (current, info) = try openPlainFile(name, in: folder, path: file.path, verb: "replaces", undone: "nothing was written")
        defer { close(current) }
        let stamp = StatStamp(info)
        let expected = PinnedLibrary.hex(expectedSHA256)
        let digest: String
        do {
            digest = try PinnedLibrary.sha256(of: current)
        } catch {
            throw ioFailure("cannot read \(file.path) to check it (\(error.message)); nothing was written")
        }
        guard digest == expected else { throw Self.changedOnDisk(file.path) }
        let changed = AtomicFile.Failure(description: Self.changedOnDisk(file.path).message, code: ESTALE)
        // Still the file hashed, just before the rename: the same stamp, and the same digest again when
        // the stamp is too recent to tell writes within one clock tick apart.
        let stillTheOne = { () -> AtomicFile.Failure? in
            var now = stat()
            guard fstatat(folder, name, &now, AT_SYMLINK_NOFOLLOW) == 0, StatStamp(now) == stamp else { return changed }
            return stamp.isSettled() || (try? PinnedLibrary.sha256(of: current)) == expected ? nil : changed
        }
        do throws(AtomicFile.Failure) {
            try AtomicFile.write(contents, named: name, in: folder, shownAs: folderPath, mode: info.st_mode & 0o7777, unless: stillTheOne)
        } catch {
            if error.code == ESTALE && error.description == changed.description { throw Self.changedOnDisk(file.path) }
            throw ioFailure(error.description + "; nothing was written")
        }
    }

    /// The refusal when the file is not the version the provider read.
    static func changedOnDisk(_ path: String) -> Failure {
        Failure(status: .changedOnDisk, message: "the file changed on disk since it was read: \(path) is no longer the version the provider based its change on (another program saved it); nothing was written; read it again and apply the change to the new version")
    }
}
