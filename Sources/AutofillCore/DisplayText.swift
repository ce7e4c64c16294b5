/// Text a provider wrote (a failure reason, a log line, a prompt, a list item, a display name, a
/// line it printed) made safe to show on a terminal: the one place that does it.
///
/// A provider's text is data, never terminal control. So every character that could move the
/// cursor, recolour the screen, start a new line that looks like the host's own (`autofill: …`),
/// or reorder what the user reads is shown escaped:
///
/// - C0 controls (U+0000–U+001F: ESC, newline, carriage return, tab, backspace, …), DEL (U+007F)
///   and C1 controls (U+0080–U+009F, including the 8-bit CSI U+009B);
/// - the line and paragraph separators U+2028 and U+2029;
/// - bidirectional controls: the embeddings and overrides U+202A–U+202E, the isolates
///   U+2066–U+2069, and the marks U+200E, U+200F and U+061C.
///
/// Newline, carriage return and tab show as `\n`, `\r`, `\t`; the others as `\u{1b}`. A backslash
/// stays as it is, so escaping twice changes nothing. Then the text is cut at a limit counted in
/// Unicode scalars (so a thousand combining marks on one letter count as a thousand), with an
/// ellipsis and a note of how many bytes were cut: "… (5000 more bytes)".
///
/// The host applies it where provider text enters (`ProviderSession`, the helper's output log, the
/// manifest reader), and the command-line tool applies ``escaped(_:keepingNewlines:)`` again to
/// everything it writes to stderr, so a path that forgets cannot reach the terminal raw.
public enum DisplayText {
    /// The most scalars ``line(_:limit:)`` keeps by default: a failure reason, a log line, a title, an item.
    public static let lineLimit = 1_000
    /// The most scalars ``text(_:limit:maximumLines:)`` keeps by default: a provider's message.
    public static let textLimit = 4_000
    /// The most lines ``text(_:limit:maximumLines:)`` keeps by default.
    public static let textLineLimit = 40

    /// `text` on one line: every character listed above escaped, newlines included, and cut at `limit`
    /// scalars with "… (N more bytes)". `alreadyCut` counts bytes of the text dropped before it got
    /// here (a reader that stops keeping a line's bytes at some length), for the note.
    public static func line(_ text: String, limit: Int = lineLimit, alreadyCut: Int = 0) -> String {
        capped(text, keepingNewlines: false, limit: limit, maximumLines: 1, alreadyCut: alreadyCut)
    }

    /// `text` as at most `maximumLines` lines: as ``line(_:limit:)``, but newlines are kept (and
    /// the lines past `maximumLines` are cut like the characters past `limit`).
    public static func text(_ text: String, limit: Int = textLimit, maximumLines: Int = textLineLimit) -> String {
        capped(text, keepingNewlines: true, limit: limit, maximumLines: maximumLines, alreadyCut: 0)
    }

    /// `text` with every character listed above escaped (newlines kept when `keepingNewlines`),
    /// and nothing cut: for output the host wrote itself around provider text.
    public static func escaped(_ text: String, keepingNewlines: Bool) -> String {
        guard needsEscaping(text, keepingNewlines: keepingNewlines) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { append(scalar, to: &out, keepingNewlines: keepingNewlines) }
        return String(out)
    }

    /// Whether ``escaped(_:keepingNewlines:)`` would change `text`.
    public static func needsEscaping(_ text: String, keepingNewlines: Bool) -> Bool {
        text.unicodeScalars.contains { isEscaped($0) && !(keepingNewlines && $0 == "\n") }
    }

    /// Whether `scalar` is shown escaped (a newline is, unless newlines are kept).
    public static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    private static func capped(_ text: String, keepingNewlines: Bool, limit: Int, maximumLines: Int, alreadyCut: Int) -> String {
        var out = String.UnicodeScalarView()
        var kept = 0, lines = 1
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let newline = keepingNewlines && scalar == "\n"
            let width = newline || !isEscaped(scalar) ? 1 : escape(scalar).unicodeScalars.count
            if kept + width > limit || (newline && lines == maximumLines) {
                let rest = text.utf8.distance(from: index, to: text.utf8.endIndex) + alreadyCut
                return String(out) + note(rest)
            }
            if newline { lines += 1 }
            kept += width
            append(scalar, to: &out, keepingNewlines: keepingNewlines)
            index = scalars.index(after: index)
        }
        return alreadyCut > 0 ? String(out) + note(alreadyCut) : String(out)
    }

    private static func note(_ bytes: Int) -> String {
        "… (\(bytes) more byte\(bytes == 1 ? "" : "s"))"
    }

    private static func append(_ scalar: Unicode.Scalar, to out: inout String.UnicodeScalarView, keepingNewlines: Bool) {
        if isEscaped(scalar) && !(keepingNewlines && scalar == "\n") {
            out.append(contentsOf: escape(scalar).unicodeScalars)
        } else {
            out.append(scalar)
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        default: "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
}
