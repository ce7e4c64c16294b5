internal import Crypto
internal import Glibc

/// The SHA-256 of a plugin's two files, the library and its Info.plist: what the user approved when
/// enabling it, compared before any of its code runs again.
public struct PluginFingerprint: Codable, Hashable, Sendable {
    /// The library's SHA-256, lowercase hex.
    public var library: String
    /// The Info.plist's SHA-256, lowercase hex.
    public var plist: String

    enum CodingKeys: String, CodingKey {
        case library = "librarySHA256"
        case plist = "plistSHA256"
    }

    /// A fingerprint from its two digests.
    public init(library: String, plist: String) {
        self.library = library
        self.plist = plist
    }

    /// Hashes `manifest`'s library and Info.plist (reads them; runs nothing).
    public init(of manifest: PluginManifest) throws(AutofillError) {
        library = try Self.sha256(ofFileAt: manifest.libraryPath)
        plist = try Self.sha256(ofFileAt: manifest.plistPath)
    }

    /// The same, taking digests of unchanged files from `cache` (see ``DigestCache``).
    init(of manifest: PluginManifest, cache: DigestCache) throws(AutofillError) {
        library = try cache.sha256(ofFileAt: manifest.libraryPath)
        plist = try cache.sha256(ofFileAt: manifest.plistPath)
    }

    /// The names of the files (as in the bundle: `libX.so`, `Info.plist`) whose digests differ from `other`'s.
    public func changedFiles(since other: PluginFingerprint, executable: String) -> [String] {
        (library == other.library ? [] : [executable]) + (plist == other.plist ? [] : ["Info.plist"])
    }

    /// The SHA-256 of the file at `path`, lowercase hex, read in 64 KiB blocks.
    static func sha256(ofFileAt path: String) throws(AutofillError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw AutofillError(.io, "cannot read \(path) to check it is the file you approved: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw AutofillError(.io, "cannot read \(path) to check it is the file you approved: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        return hex(hasher.finalize())
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
