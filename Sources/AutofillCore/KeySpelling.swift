/// Telling a misspelt word from an unknown one: a key of a property list the host reads (a plugin's
/// capabilities (`ManifestReader`) and the host configuration (`ConfigurationKeys`). A near miss of a
/// known key is an error naming the key meant, since as written the setting silently does not apply),
/// a subcommand or a provider id typed on a command line (the error names the one meant).
public enum KeySpelling {
    /// True when `key` differs from `known` by at most two edits, ignoring case (a likely typo).
    public static func isNearMiss(_ key: String, _ known: String) -> Bool {
        let a = Array(key.lowercased()), b = Array(known.lowercased())
        guard a != b, abs(a.count - b.count) <= 2 else { return a == b && key != known }
        return distance(a, b) <= 2
    }

    /// The known word nearest to `word` when it is a near miss (``isNearMiss(_:_:)``) of one: a
    /// subcommand or provider id typed with a typo. Nil for an exact match or nothing near.
    public static func nearest(_ word: String, among known: [String]) -> String? {
        guard !known.contains(word) else { return nil }
        return known.filter { isNearMiss(word, $0) }
            .min { distance(Array(word.lowercased()), Array($0.lowercased())) < distance(Array(word.lowercased()), Array($1.lowercased())) }
    }

    /// "; did you mean X?" for the ``nearest(_:among:)`` word, or nothing: for the end of a message.
    public static func didYouMean(_ word: String, among known: [String]) -> String {
        nearest(word, among: known).map { "; did you mean \($0)?" } ?? ""
    }

    /// The edit distance between `a` and `b` (insertions, deletions, substitutions).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
