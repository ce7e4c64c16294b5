/// Paths as text, without touching the file system: the one path normaliser.
package enum LexicalPath {
    /// `path` made absolute and free of `.`, `..` and doubled slashes ("/" for an empty result; `..`
    /// at the root stays at the root). A relative `path` is taken as relative to the root: callers
    /// join it to the folder they mean first.
    package static func standardized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The folder part of `path` ("." for a bare name, "/" for a name at the root).
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path` (all of it when it has no slash).
    package static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
