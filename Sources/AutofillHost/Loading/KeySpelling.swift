/// Telling a misspelt key from an unknown one, for every property list the host reads: a plugin's
/// capabilities (``ManifestReader``) and the host configuration (`ConfigurationKeys`). A near miss of a
/// known key is an error naming the key meant, since as written the setting silently does not apply.
enum KeySpelling {
    /// True when `key` differs from `known` by at most two edits, ignoring case (a likely typo).
    static func isNearMiss(_ key: String, _ known: String) -> Bool {
        let a = Array(key.lowercased()), b = Array(known.lowercased())
        guard a != b, abs(a.count - b.count) <= 2 else { return a == b && key != known }
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count] <= 2
    }
}
