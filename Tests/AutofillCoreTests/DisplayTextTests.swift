import AutofillCore
import Testing

/// Provider text made safe for a terminal: the one function every path uses.
struct DisplayTextTests {
    @Test(arguments: [
        ("plain text", "plain text"),
        ("\u{1b}[1;31mred\u{1b}[0m", #"\u{1b}[1;31mred\u{1b}[0m"#),
        ("a\nautofill: error: forged", #"a\nautofill: error: forged"#),
        ("tab\tcr\rnul\u{0}bel\u{7}del\u{7f}", #"tab\tcr\rnul\u{0}bel\u{7}del\u{7f}"#),
        ("8-bit CSI \u{9b}31m", #"8-bit CSI \u{9b}31m"#),
        ("\u{202e}txt.exe", #"\u{202e}txt.exe"#),
        ("\u{2066}isolate\u{2069} \u{200e}\u{200f}\u{61c}", #"\u{2066}isolate\u{2069} \u{200e}\u{200f}\u{61c}"#),
        ("line\u{2028}para\u{2029}", #"line\u{2028}para\u{2029}"#),
        ("Müller, 名前, emoji 🔑, a back\\slash", "Müller, 名前, emoji 🔑, a back\\slash"),
    ])
    func oneLineShowsEveryControlEscaped(input: String, shown: String) {
        #expect(DisplayText.line(input) == shown)
        #expect(DisplayText.escaped(input, keepingNewlines: false) == shown)
    }

    @Test func escapingTwiceChangesNothing() {
        let once = DisplayText.line("\u{1b}[2J\n\u{202e}x")
        #expect(DisplayText.line(once) == once)
        #expect(!DisplayText.needsEscaping(once, keepingNewlines: false))
    }

    @Test func aLongLineIsCutWithTheBytesItLost() {
        #expect(DisplayText.line(String(repeating: "x", count: 1005)) == String(repeating: "x", count: 1000) + "… (5 more bytes)")
        #expect(DisplayText.line("abcdef", limit: 3) == "abc… (3 more bytes)")
        #expect(DisplayText.line("ab\u{1b}", limit: 3) == "ab… (1 more byte)", "an escape is never cut in half")
        #expect(DisplayText.line("e" + String(repeating: "\u{301}", count: 6), limit: 2) == "e\u{301}… (10 more bytes)",
                "combining marks count, one scalar each")
        #expect(DisplayText.line("short", alreadyCut: 7) == "short… (7 more bytes)")
    }

    @Test func textKeepsNewlinesButNotTheirLookAlikesAndCapsTheLines() {
        #expect(DisplayText.text("one\ntwo\r\n\u{1b}[A") == #"one"# + "\n" + #"two\r"# + "\n" + #"\u{1b}[A"#)
        #expect(DisplayText.text("a\nb\nc\nd", maximumLines: 2) == "a\nb… (4 more bytes)")
        #expect(DisplayText.escaped("keep\nthis", keepingNewlines: true) == "keep\nthis")
    }
}
