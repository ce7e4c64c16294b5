import AutofillWire
import Glibc
import Synchronization
import Testing

/// The progress line: nothing for quick work, a spinner and the time for slow work, erased at the end
/// and while the user is asked something.
struct ProgressLineTests {
    final class Written: Sendable {
        let text = Mutex("")
        var all: String { text.withLock { $0 } }
        func append(_ more: String) { text.withLock { $0 += more } }
    }

    @Test func quickWorkShowsNothing() {
        let written = Written()
        let progress = ProgressLine { written.append($0) }
        let value = progress.during("Unlocking Vault") { 42 }
        #expect(value == 42)
        #expect(written.all.isEmpty)
    }

    @Test func slowWorkShowsTheLabelAndTheTimeAndErasesItAfterwards() async throws {
        let written = Written()
        let progress = ProgressLine { written.append($0) }
        try await progress.during("Unlocking Vault") { try await Task.sleep(for: .milliseconds(900)) }
        let text = written.all
        #expect(text.contains("Unlocking Vault… 0."), "\(text.debugDescription)")
        #expect(text.hasSuffix("\r\u{1B}[K"), "the line is erased at the end")
        #expect(!text.contains("\n"), "one line, redrawn in place")
        try await Task.sleep(for: .milliseconds(300))
        #expect(written.all == text, "nothing is drawn after the work ended")
    }

    @Test func theLineIsErasedWhileTheUserIsAskedAndTheClockStartsAgain() async throws {
        let written = Written()
        let progress = ProgressLine { written.append($0) }
        try await progress.during("Importing") {
            try await Task.sleep(for: .milliseconds(800))
            let before = written.all
            #expect(before.contains("Importing…"))
            progress.interacting {
                #expect(written.all == before + "\r\u{1B}[K", "erased before the prompt")
                usleep(700_000)
                #expect(written.all == before + "\r\u{1B}[K", "nothing drawn over the prompt")
            }
            let answered = written.all
            try await Task.sleep(for: .milliseconds(900))
            let after = String(written.all.dropFirst(answered.count))
            // Had the clock gone on through the prompt, it would say 1.5 s or more (0.8 + 0.7).
            let first = after.split(separator: "\r\u{1B}[K").first.map(String.init) ?? ""
            #expect(first.contains("Importing… 0."), "the clock starts again after the answer: \(after.debugDescription)")
        }
    }
}
