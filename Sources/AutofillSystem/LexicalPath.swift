/// Paths as text, without touching the file system: the one path normaliser.
package enum LexicalPath {
    /// `path` made absolute and free of `.`, `..` and doubled slashes ("/" for an empty result; `..`
    /// at the root stays at the root). A relative `path` is taken as relative to the root: callers
    /// join it to the folder they mean first.
    package static func standardized(_ path: String) -> String {
        if isStandardized(path) { return path }
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Whether `path` is already what ``standardized(_:)`` makes of it: absolute, no empty, `.` or
    /// `..` component, no trailing slash (the common case, told by one pass over its bytes).
    static func isStandardized(_ path: String) -> Bool {
        var utf8 = path.utf8.makeIterator()
        guard utf8.next() == UInt8(ascii: "/") else { return false }
        if path.utf8.count == 1 { return true }
        // The bytes of the current component so far: 0 empty, 1 ".", 2 "..", 3 anything else.
        var component = 0
        while let byte = utf8.next() {
            if byte == UInt8(ascii: "/") {
                guard component == 3 else { return false }
                component = 0
            } else if byte == UInt8(ascii: ".") && component < 2 {
                component += 1
            } else {
                component = 3
            }
        }
        return component == 3
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
