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

    /// Makes a new folder, mode 0700, named `prefix` followed by six random characters (`mkdtemp`);
    /// its path.
    public static func makeTemporaryFolder(_ prefix: String) throws(SystemError) -> String {
        var template = Array("\(prefix)XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw .current("mkdtemp") }
        return String(cString: made)
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

    /// The names in the folder `path`, without `.` and `..` (`opendir`/`readdir`), in the folder's
    /// order; at most `limit` of them (a folder may be anyone's, and hold millions).
    public static func contents(of path: String, limit: Int = .max) throws(SystemError) -> [String] {
        guard let folder = opendir(path) else { throw .current("opendir \(path)") }
        defer { closedir(folder) }
        var names: [String] = []
        while names.count < limit, let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
