internal import AutofillSystem
internal import Crypto

/// The SHA-256 of every file of a plugin's bundle: what the user approved when enabling it, compared
/// before any of its code runs again. The library and its Info.plist have fields of their own (records
/// of earlier versions hold only those); ``files`` pins the whole bundle, so a library the plugin links
/// from it (`DT_NEEDED` through `$ORIGIN`), or any file added, is a change too.
public struct PluginFingerprint: Codable, Hashable, Sendable {
    /// The library's SHA-256, lowercase hex.
    public var library: String
    /// The Info.plist's SHA-256, lowercase hex.
    public var plist: String
    /// Every entry of the bundle by its path there (`libX.so`, `lib/libdep.so`): a regular file's SHA-256,
    /// `link:TARGET` for a symbolic link, `other:TYPE` for anything else. Nil in a record made before
    /// autofill pinned the whole bundle.
    public var files: [String: String]?

    enum CodingKeys: String, CodingKey {
        case library = "librarySHA256"
        case plist = "plistSHA256"
        case files
    }

    /// A fingerprint from its digests.
    public init(library: String, plist: String, files: [String: String]? = nil) {
        self.library = library
        self.plist = plist
        self.files = files
    }

    /// Hashes every file of `manifest`'s bundle (reads them; runs nothing).
    public init(of manifest: PluginManifest) throws(AutofillError) {
        try self.init(of: manifest) { path throws(AutofillError) in try Self.sha256(ofFileAt: path) }
    }

    /// The same, taking digests of unchanged files from `cache` (see ``DigestCache``).
    init(of manifest: PluginManifest, cache: DigestCache) throws(AutofillError) {
        try self.init(of: manifest) { path throws(AutofillError) in try cache.sha256(ofFileAt: path) }
    }

    private init(of manifest: PluginManifest, digest: (String) throws(AutofillError) -> String) throws(AutofillError) {
        var files: [String: String] = [:]
        for entry in try BundleFiles.list(manifest.bundlePath) {
            switch entry.kind {
            case .file: files[entry.path] = try digest("\(manifest.bundlePath)/\(entry.path)")
            case .link(let target): files[entry.path] = "link:\(target)"
            case .other(let type): files[entry.path] = "other:\(type)"
            }
        }
        // A library or plist that is a link: the file it leads to, as before whole bundles were pinned.
        func contents(_ name: String, at path: String) throws(AutofillError) -> String {
            if let digest = files[name], !digest.hasPrefix("link:"), !digest.hasPrefix("other:") { return digest }
            return try digest(path)
        }
        library = try contents(manifest.executable, at: manifest.libraryPath)
        plist = try contents("Info.plist", at: manifest.plistPath)
        self.files = files
    }

    /// The files (by their path in the bundle: `libX.so`, `Info.plist`, `lib/libdep.so`) that differ
    /// from `other`'s; an added or removed file says so ("extra.so (added)"). Against a record of only
    /// two digests, only the library and the Info.plist are compared.
    public func changedFiles(since other: PluginFingerprint, executable: String) -> [String] {
        guard let files, let before = other.files else {
            return (library == other.library ? [] : [executable]) + (plist == other.plist ? [] : ["Info.plist"])
        }
        var changed: [String] = []
        for path in files.keys.sorted() where files[path] != before[path] {
            changed.append(before[path] == nil ? "\(path) (added)" : path)
        }
        for path in before.keys.sorted() where files[path] == nil { changed.append("\(path) (removed)") }
        return changed
    }

    /// The SHA-256 of the file at `path`, lowercase hex, read in 64 KiB blocks.
    static func sha256(ofFileAt path: String) throws(AutofillError) -> String {
        do throws(SystemError) {
            let fd = try Descriptors.open(path, .nonblocking)
            defer { Descriptors.closeQuietly(fd) }
            var hasher = SHA256()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = try buffer.withUnsafeMutableBytes { raw in Result { () throws(SystemError) in try Descriptors.read(fd, into: raw) } }.get()
                if count == 0 { break }
                buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
            }
            return PinnedLibrary.hex(hasher.finalize())
        } catch {
            throw AutofillError(.io, "cannot read \(path) to check it is the file you approved: \(error.reason)")
        }
    }
}
