internal import FoundationEssentials
internal import Glibc

/// The session cache's file handling: a checked folder, files read and written relative to it.
extension SessionCache {
    /// Opens the folder (creating it 0700 if `create`), refusing a symbolic link, another owner or
    /// access for others. Returns nil when it does not exist and `create` is false.
    func openFolder(create: Bool) throws(VaultError) -> Int32? {
        guard isAvailable else {
            guard !create else {
                throw VaultError(.unsafeSessionFolder,
                                 "XDG_RUNTIME_DIR is not set, so there is no private runtime folder to keep an unlocked session in (never a folder on disk); log in through a session that sets it (systemd-logind does), or unlock each time")
            }
            return nil
        }
        if create {
            // Its parents too ($XDG_RUNTIME_DIR/autofill/providers), each 0700; the host makes the same.
            var path = ""
            for component in folder.split(separator: "/") {
                path += "/\(component)"
                if mkdir(path, 0o700) != 0 && errno != EEXIST {
                    throw AtomicFile.ioError("cannot create the session folder \(path)")
                }
            }
        }
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP || errno == ENOTDIR {
                throw VaultError(.unsafeSessionFolder,
                                 "the session folder \(folder) is a symbolic link or not a folder; remove it (the vault stays locked until then)")
            }
            throw AtomicFile.ioError("cannot open the session folder \(folder)")
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw AtomicFile.ioError("cannot check the session folder \(folder)")
        }
        guard info.st_uid == getuid() else {
            close(fd)
            throw VaultError(.unsafeSessionFolder,
                             "the session folder \(folder) belongs to user \(info.st_uid), not to you (\(getuid())); remove it or set XDG_RUNTIME_DIR")
        }
        guard info.st_mode & 0o077 == 0 else {
            close(fd)
            throw VaultError(.unsafeSessionFolder,
                             "the session folder \(folder) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 700 \(folder)")
        }
        return fd
    }

    /// Writes a session file atomically (temporary file, rename), mode 0600.
    func writeFile(_ bytes: [UInt8], named name: String, in folderFD: Int32) throws(VaultError) {
        var random = SystemRandomNumberGenerator()
        let temporary = ".\(name).\(String(random.next() as UInt64, radix: 16)).tmp"
        let fd = openat(folderFD, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AtomicFile.ioError("cannot create a session file in \(folder)") }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, renameat(folderFD, temporary, folderFD, name) == 0 else {
            let code = errno
            unlinkat(folderFD, temporary, 0)
            throw AtomicFile.ioError("cannot write the session file \(folder)/\(name)", code)
        }
    }

    /// Reads a session file; deletes and ignores one that is not a small (at most `maximumSize`
    /// bytes) regular 0600 file of ours.
    func readRecord<Record: Decodable>(
        named name: String, in folderFD: Int32, as type: Record.Type = Record.self, maximumSize: Int = 4096
    ) -> Record? {
        let fd = openat(folderFD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno != ENOENT { unlinkat(folderFD, name, 0) }
            return nil
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid(),
            info.st_mode & 0o077 == 0, info.st_size <= maximumSize
        else {
            unlinkat(folderFD, name, 0)
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: maximumSize)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        guard count > 0, let record = try? JSONDecoder().decode(Record.self, from: Data(bytes.prefix(count))) else {
            unlinkat(folderFD, name, 0)
            return nil
        }
        return record
    }

    /// The names of the session files (or, with `suffix` ".fills", the fill records) in the folder.
    ///
    /// The folder is listed through a descriptor of its own (`openat(folderFD, ".")`), not a `dup`
    /// of `folderFD`: a dup shares the read position, so a second listing through the same folder
    /// descriptor would start where the first ended and find nothing.
    func sessionFiles(in folderFD: Int32, suffix: String = ".session") throws(VaultError) -> [String] {
        let listing = openat(folderFD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard listing >= 0 else { throw AtomicFile.ioError("cannot list the session folder \(folder)") }
        guard let directory = fdopendir(listing) else {
            let code = errno
            close(listing)
            throw AtomicFile.ioError("cannot list the session folder \(folder)", code)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw AtomicFile.ioError("cannot list the session folder \(folder)") }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("vault-") && name.hasSuffix(suffix) { names.append(name) }
        }
    }

    /// Deletes the sessions that have expired (so sessions of deleted vaults do not linger).
    func removeExpired(in folderFD: Int32) {
        struct Expiry: Decodable { var expires: Double }
        let time = now()
        for name in (try? sessionFiles(in: folderFD)) ?? [] {
            if let record = readRecord(named: name, in: folderFD, as: Expiry.self), record.expires > time { continue }
            unlinkat(folderFD, name, 0)
        }
    }
}
