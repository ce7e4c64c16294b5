internal import AutofillCore
internal import AutofillSystem
internal import CAutofillSandbox
internal import Glibc

/// The host's side of `open_file` (docs/SANDBOX.md, "What the provider sees after a rename"): the
/// provider's sandbox holds a declared single file by the inode it had when the helper started, so a
/// provider that must follow the file across renames (KeePassXC's safe save) asks the host to open it.
///
/// The host opens only one of the provider's declared single files (`read` of a file, `replace-file`;
/// as written or as resolved when it launched the provider), read-only and close-on-exec: its folder
/// with no link on the way (``openGrantFolder(_:undone:)``: a folder above replaced by a link after the
/// launch is refused), the file beneath it without following a link (`afs_open_beneath`: a link planted
/// in place of the file is refused), and a plain file or nothing (a FIFO there cannot hold the host:
/// `O_NONBLOCK`). Never a file beside it, nor beneath a declared folder.
extension FileGrantWriter {
    /// The declared single file `path`, opened read-only (`O_CLOEXEC`) for `provider` (its name, for
    /// messages): the caller owns the descriptor.
    public func open(path: String, provider: String) throws(Failure) -> Int32 {
        guard path.hasPrefix("/"), let file = singleFiles.first(where: { [$0.written, $0.path].contains(LexicalPath.standardized(path)) }) else {
            throw refusal("\(DisplayText.line(path, limit: 300)) is not a file \(provider) declared (Access read of a file, or replace-file; docs/SANDBOX.md); nothing was opened")
        }
        let folder = try openGrantFolder(LexicalPath.folder(of: file.path), undone: "nothing was opened")
        defer { close(folder) }
        let (opened, _) = try openPlainFile(LexicalPath.name(of: file.path), in: folder, path: file.path, verb: "opens", undone: "nothing was opened")
        // Reads of a plain file never block; the flag only kept a FIFO from holding the open.
        _ = fcntl(opened, F_SETFL, fcntl(opened, F_GETFL) & ~O_NONBLOCK)
        return opened
    }

    /// The declared file `name` beneath the open `folder` (`path`, for messages), opened read-only and
    /// close-on-exec without following a link there (`afs_open_beneath`), a plain file only (`O_NONBLOCK`
    /// while opening: a FIFO put in its place cannot hold the host); its descriptor, which the caller
    /// owns, and status. `verb` says what autofill does with the file, `undone` what did not happen.
    func openPlainFile(_ name: String, in folder: Int32, path: String, verb: String, undone: String) throws(Failure) -> (Int32, stat) {
        let opened = afs_open_beneath(folder, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0)
        guard opened >= 0 else {
            var code = errno
            var info = stat()
            if fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFLNK { code = ELOOP }
            throw code == ELOOP || code == EXDEV
                ? refusal("\(path) is now a symbolic link; autofill \(verb) only the plain file it resolved when it started the provider; \(undone)")
                : code == ENOENT ? refusal("\(path) is gone (moved or deleted); \(undone)")
                : ioFailure("cannot open \(path) (\(String(cString: strerror(code)))); \(undone)")
        }
        var info = stat()
        guard fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(opened)
            throw refusal("\(path) is not a plain file; autofill \(verb) only plain files; \(undone)")
        }
        return (opened, info)
    }
}
