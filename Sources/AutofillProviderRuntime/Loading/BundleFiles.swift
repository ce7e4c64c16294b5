internal import Glibc

/// Every entry of a plugin bundle, for pinning the whole bundle (``PluginFingerprint/files``): regular
/// files, symbolic links (by their target) and anything else (by its type), in folders up to 8 deep.
/// A bundle of more than ``maximumEntries`` entries is refused: a plugin needs a few files.
package enum BundleFiles {
    static let maximumEntries = 1000
    static let maximumDepth = 8

    package enum Kind: Equatable {
        case file
        case link(String)
        /// A FIFO, socket or device: pinned by its type, never read.
        case other(String)
    }

    package struct Entry: Equatable {
        /// The path in the bundle (`libX.so`, `lib/libdep.so`).
        package var path: String
        package var kind: Kind
    }

    /// The bundle's entries, sorted by path; folders are walked, not listed.
    package static func list(_ bundle: String) throws(AutofillError) -> [Entry] {
        var entries: [Entry] = []
        var folders: [(relative: String, depth: Int)] = [("", 0)]
        while let (relative, depth) = folders.popLast() {
            let folder = relative.isEmpty ? bundle : "\(bundle)/\(relative)"
            guard let directory = opendir(folder) else {
                throw AutofillError(.io, "cannot list \(folder) to check the plugin's files: \(String(cString: strerror(errno)))")
            }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name == "." || name == ".." { continue }
                let path = relative.isEmpty ? name : "\(relative)/\(name)"
                guard entries.count + folders.count < maximumEntries else {
                    throw AutofillError(.refused, "the plugin bundle \(bundle) holds more than \(maximumEntries) files; a provider needs a few (docs/WRITING_A_PROVIDER.md)")
                }
                var info = stat()
                guard lstat("\(bundle)/\(path)", &info) == 0 else {
                    throw AutofillError(.io, "cannot check \(bundle)/\(path): \(String(cString: strerror(errno)))")
                }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    guard depth + 1 < maximumDepth else {
                        throw AutofillError(.refused, "the plugin bundle \(bundle) has folders more than \(maximumDepth) deep (\(path))")
                    }
                    folders.append((path, depth + 1))
                case S_IFREG:
                    entries.append(Entry(path: path, kind: .file))
                case S_IFLNK:
                    var target = [CChar](repeating: 0, count: 4097)
                    let count = readlink("\(bundle)/\(path)", &target, 4096)
                    entries.append(Entry(path: path, kind: .link(count < 0 ? "" : String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self))))
                default:
                    entries.append(Entry(path: path, kind: .other(String(info.st_mode & S_IFMT, radix: 8))))
                }
            }
        }
        return entries.sorted { $0.path < $1.path }
    }
}
