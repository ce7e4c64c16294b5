internal import Glibc

/// Operations on paths: whether one exists or may be run, renaming, removing, making folders and
/// setting modes. Each throws the `errno` with the path involved.
public enum Paths {
    /// This process's working folder (`getcwd`).
    public static func currentFolder() throws(SystemError) -> String {
        var folder = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&folder, folder.count) != nil else { throw .current("getcwd") }
        return String(decoding: folder.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `path` exists (`access(F_OK)`, following links).
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Whether this process may run `path` (`access(X_OK)`).
    public static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    /// Whether `path` is a regular file (links followed) this process may run: what a program found on
    /// `PATH` must be.
    public static func isExecutableFile(_ path: String) -> Bool {
        (try? FileStatus(path: path))?.kind == .regular && isExecutable(path)
    }

    /// Whether this process may read `path` (`access(R_OK)`).
    public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// Renames `source` to `destination`, replacing it (`rename`).
    public static func rename(_ source: String, to destination: String) throws(SystemError) {
        guard Glibc.rename(source, destination) == 0 else { throw .current("rename \(source)") }
    }

    /// Removes the file or link `path` (`unlink`).
    public static func remove(_ path: String) throws(SystemError) {
        guard unlink(path) == 0 else { throw .current("unlink \(path)") }
    }

    /// Removes the empty folder `path` (`rmdir`).
    public static func removeFolder(_ path: String) throws(SystemError) {
        guard rmdir(path) == 0 else { throw .current("rmdir \(path)") }
    }

    /// Makes the folder `path` with `mode` (`mkdir`; EEXIST when it exists).
    public static func makeFolder(_ path: String, mode: UInt32 = 0o700) throws(SystemError) {
        guard mkdir(path, mode_t(mode)) == 0 else { throw .current("mkdir \(path)") }
    }

    /// Makes the folder at the absolute `path` and any missing parents, each with `mode` (`mkdir -p`);
    /// nothing when it exists. Almost always it exists or only it is missing: one `mkdir`; else each
    /// parent in turn. The error names the folder that could not be made.
    public static func makeFolders(_ path: String, mode: UInt32 = 0o700) throws(SystemError) {
        do {
            return try makeFolder(path, mode: mode)
        } catch where error.alreadyExists {
            return
        } catch {}
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/\(component)"
            do {
                try makeFolder(prefix, mode: mode)
            } catch where !error.alreadyExists {
                throw error
            } catch {}
        }
    }

    /// Makes a new folder, mode 0700, named `prefix` followed by six random characters (`mkdtemp`);
    /// its path.
    public static func makeTemporaryFolder(_ prefix: String) throws(SystemError) -> String {
        var template = Array("\(prefix)XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw .current("mkdtemp") }
        return String(cString: made)
    }

    /// Makes a new file, mode 0600, named `prefix` followed by six random characters (`mkstemp`),
    /// holding `bytes`; its path. Nothing is left behind when writing fails.
    public static func makeTemporaryFile(_ prefix: String, holding bytes: [UInt8]) throws(SystemError) -> String {
        var template = Array("\(prefix)XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .current("mkstemp") }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        do {
            try Descriptors.setCloseOnExec(descriptor)
            try Descriptors.write(descriptor, bytes)
            try Descriptors.close(descriptor)
        } catch {
            Descriptors.closeQuietly(descriptor)
            try? remove(path)
            throw error
        }
        return path
    }

    /// Makes the folder `name` in the folder open as `folder` with `mode` (`mkdirat`; EEXIST when it exists).
    public static func makeFolder(_ name: String, in folder: Int32, mode: UInt32 = 0o700) throws(SystemError) {
        guard mkdirat(folder, name, mode_t(mode)) == 0 else { throw .current("mkdirat \(name)") }
    }

    /// Sets the permission bits of `path` (`chmod`).
    public static func setMode(_ path: String, _ mode: UInt32) throws(SystemError) {
        guard chmod(path, mode_t(mode)) == 0 else { throw .current("chmod \(path)") }
    }

    /// Where the symbolic link `path` points (`readlink`).
    public static func linkTarget(_ path: String) throws(SystemError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { throw .current("readlink \(path)") }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The names in the folder open as `folder`, without `.` and `..` (`fdopendir` of a duplicate:
    /// `folder` stays open and is never reached again by path).
    public static func contents(ofFolder folder: Int32) throws(SystemError) -> [String] {
        let copy = fcntl(folder, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw .current("fcntl F_DUPFD_CLOEXEC") }
        guard let directory = fdopendir(copy) else {
            let error = SystemError.current("fdopendir")
            _ = close(copy)
            throw error
        }
        defer { closedir(directory) }  // closes copy
        rewinddir(directory)
        return names(in: directory, limit: .max)
    }

    /// Removes the file or link `name` in the folder open as `folder` (`unlinkat`).
    public static func remove(_ name: String, in folder: Int32) throws(SystemError) {
        guard unlinkat(folder, name, 0) == 0 else { throw .current("unlinkat \(name)") }
    }

    /// The names in the folder `path`, without `.` and `..` (`opendir`/`readdir`), in the folder's
    /// order; at most `limit` of them (a folder may be anyone's, and hold millions).
    public static func contents(of path: String, limit: Int = .max) throws(SystemError) -> [String] {
        guard let folder = opendir(path) else { throw .current("opendir \(path)") }
        defer { closedir(folder) }
        return names(in: folder, limit: limit)
    }

    private static func names(in folder: OpaquePointer, limit: Int) -> [String] {
        var names: [String] = []
        while names.count < limit, let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
