internal import AutofillCore

/// How a prompt is drawn on the terminal, so that the host's own questions and a provider's can be
/// told apart, and no provider text can pass for the host's (docs/SANDBOX.md, "Prompts you can tell
/// apart"):
///
/// - every line drawn for a provider starts with a frame the host draws: `┌─ Vault (org.autofill.vault): title`
///   first, then `│ ` on every other line. Provider text never begins a line: its newlines are each
///   followed by the frame, its control characters (carriage returns, escape sequences) are shown
///   escaped, and its long lines are wrapped by the host, frame included, before the terminal would wrap them;
/// - the host's own questions (`confirm`, PAM, its lists) start with `autofill ▶` at the line start,
///   in reverse video when the terminal has attributes (which only an escape sequence makes, and
///   provider text never carries one), and their lines carry no frame.
struct PromptFrame {
    /// "autofill" for the host's own prompts; otherwise the provider's "Name (id)".
    let owner: String
    let columns: Int
    let attributes: Bool

    static let hostOwner = "autofill"
    static let hostMark = "autofill ▶"
    static let first = "┌─ ", next = "│ "

    var isHost: Bool { owner == Self.hostOwner }

    /// The header line(s): a blank line, then the owner and title.
    func header(_ title: String) -> String {
        let title = DisplayText.escaped(title, keepingNewlines: false)
        if isHost {
            let mark = attributes ? "\u{1B}[7m\(Self.hostMark)\u{1B}[0m" : Self.hostMark
            return "\n\(mark) \(title)\n"
        }
        return "\n" + wrap("\(DisplayText.escaped(owner, keepingNewlines: false)): \(title)", firstPrefix: Self.first).joined(separator: "\n") + "\n"
    }

    /// `text` (already made printable; newlines kept) as whole lines.
    func lines(_ text: String) -> String {
        guard !isHost else { return text + "\n" }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .flatMap { wrap(String($0), firstPrefix: Self.next) }.joined(separator: "\n") + "\n"
    }

    /// `text` as the question line, the answer typed after it (no newline).
    func question(_ text: String) -> String {
        guard !isHost else { return text + " " }
        return String(lines(text).dropLast()) + " "
    }

    /// `line` cut into pieces that fit the terminal with their prefix: the first after `firstPrefix`,
    /// the others after `│ `. Wide characters count twice, so the terminal never wraps a piece.
    func wrap(_ line: String, firstPrefix: String) -> [String] {
        let room = max(20, columns - 3)
        var pieces: [String] = [], current = "", width = 0
        for character in line {
            let size = character.unicodeScalars.contains { Self.isWide($0) } ? 2 : 1
            if width + size > room {
                pieces.append(current)
                current = ""
                width = 0
            }
            current.append(character)
            width += size
        }
        pieces.append(current)
        return pieces.enumerated().map { index, piece in (index == 0 ? firstPrefix : Self.next) + piece }
    }

    /// East Asian wide and emoji ranges, counted as two columns (over-counting only wraps earlier).
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x1F300...0x1FAFF, 0x20000...0x3FFFD:
            true
        default: false
        }
    }
}
