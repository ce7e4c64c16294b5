internal import AutofillSystem

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
            let names: [String]
            do {
                names = try Paths.contents(of: folder, limit: maximumEntries + 1)
            } catch {
                throw AutofillError(.io, "cannot list \(folder) to check the plugin's files: \(error.reason)")
            }
            for name in names {
                let path = relative.isEmpty ? name : "\(relative)/\(name)"
                guard entries.count + folders.count < maximumEntries else {
                    throw AutofillError(.refused, "the plugin bundle \(bundle) holds more than \(maximumEntries) files; a provider needs a few (docs/WRITING_A_PROVIDER.md)")
                }
                let info: FileStatus
                do {
                    info = try FileStatus(path: "\(bundle)/\(path)", followingLinks: false)
                } catch {
                    throw AutofillError(.io, "cannot check \(bundle)/\(path): \(error.reason)")
                }
                switch info.kind {
                case .directory:
                    guard depth + 1 < maximumDepth else {
                        throw AutofillError(.refused, "the plugin bundle \(bundle) has folders more than \(maximumDepth) deep (\(path))")
                    }
                    folders.append((path, depth + 1))
                case .regular:
                    entries.append(Entry(path: path, kind: .file))
                case .symbolicLink:
                    entries.append(Entry(path: path, kind: .link((try? Paths.linkTarget("\(bundle)/\(path)")) ?? "")))
                default:
                    entries.append(Entry(path: path, kind: .other(String(info.mode & 0o170000, radix: 8))))
                }
            }
        }
        return entries.sorted { $0.path < $1.path }
    }
}
