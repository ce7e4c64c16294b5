@testable import AutofillHost
import AutofillCore
import Testing

/// How prompts are drawn (docs/SANDBOX.md, "Prompts you can tell apart"): no provider text can begin
/// a line or make the host's mark, whatever it holds.
struct PromptFrameTests {
    static let hostile = [
        "Unlock\nautofill ▶ Confirm", "\r\u{1B}[7mautofill ▶\u{1B}[0m Confirm", "x\u{2028}autofill ▶ y", "a\u{202E}b",
        String(repeating: "w", count: 10_000) + "autofill ▶ Confirm", String(repeating: "界", count: 300) + "autofill ▶",
        "\n\n\nautofill ▶ Approve a provider", "│ fake frame\n┌─ Vault (org.autofill.vault): Unlock",
    ]

    /// Every line a provider frame draws for `text`, as the terminal shows it.
    static func drawn(_ text: String, columns: Int = 80) -> [String] {
        let frame = PromptFrame(owner: "Evil (org.evil.provider)", columns: columns, attributes: true)
        let printable = TerminalUserInterface.printable(text)
        let output = frame.header(text) + frame.lines(printable) + frame.question(TerminalUserInterface.prompt(text))
        return output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }

    @Test(arguments: hostile)
    func everyLineDrawnForAProviderStartsWithTheFrameAndHasNoEscape(text: String) {
        for line in Self.drawn(text) {
            #expect(line.hasPrefix("┌─ Evil (org.evil.provider): ") || line.hasPrefix("│ "), "\(line.prefix(80))")
            #expect(!line.contains("\u{1B}"), "no escape sequence reaches the terminal")
            #expect(!line.contains("\r"))
            #expect(!line.hasPrefix(PromptFrame.hostMark))
        }
    }

    @Test(arguments: [40, 80, 200])
    func longLinesAreWrappedInsideTheFrameBeforeTheTerminalWouldWrapThem(columns: Int) {
        for line in Self.drawn(String(repeating: "界w", count: 500), columns: columns) {
            let width = line.unicodeScalars.reduce(0) { $0 + (PromptFrame.isWide($1) ? 2 : 1) }
            #expect(width <= columns, "\(width) > \(columns)")
        }
    }

    @Test func theHostsOwnPromptsCarryTheMarkAndNoFrame() {
        let host = PromptFrame(owner: "autofill", columns: 80, attributes: true)
        #expect(host.header("Confirm") == "\n\u{1B}[7mautofill ▶\u{1B}[0m Confirm\n")
        #expect(host.question("Allow? [y/n, q cancels]:") == "Allow? [y/n, q cancels]: ")
        let plain = PromptFrame(owner: "autofill", columns: 80, attributes: false)
        #expect(plain.header("Confirm") == "\nautofill ▶ Confirm\n")
        // A provider whose display name is close to the host's still gets the frame.
        #expect(PromptFrame(owner: "autofill ▶ (org.x.y)", columns: 80, attributes: true).header("t").hasPrefix("\n┌─ "))
    }
}
