import AutofillTestSupport
import Foundation
import Testing

/// The prompt window (docs/BROWSER.md): a provider that needs its UI (the Vault, locked) asks in a
/// window the extension opens itself, framed with the provider's name and id, and typed into with
/// chromedriver's real input; a page script can neither open, frame nor answer one. The same home
/// as BrowserTests (alice's login for 127.0.0.1 in the Vault), with the Vault locked again.
@Suite(.serialized, .enabled(if: CLI.usesAgent), .enabled(if: Chromium.isInstalled, "needs Debian's chromium and chromium-driver (Scripts/bootstrap test)"))
struct BrowserPromptTests {
    let browser: BrowserTests

    init() throws {
        browser = try BrowserTests()
        let locked = try CLI.run(["lock", "org.autofill.vault"], home: browser.home.path)
        #expect(locked.status == 0, "\(locked.stderr)")
    }

    @Test func aLockedVaultAsksItsMasterPasswordInTheExtensionsOwnWindowAndThePickThenFills() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: browser.home.path) }
        let seen = try browser.drive("prompt", environment: ["AUTOFILL_TEST_MASTER": BrowserTests.master])
        #expect(seen["prompt.opened"] as? Bool == true, "a pick opens the extension's prompt window: \(seen)")
        let view = seen["prompt.view"] as? [String: Any] ?? [:]
        #expect((view["owner"] as? String ?? "").hasPrefix("┌─ Vault (org.autofill.vault): "), "framed with the provider's name and id: \(view)")
        #expect((view["site"] as? String ?? "").hasPrefix("for http://127.0.0.1:"), "for the frame's site: \(view)")
        #expect(view["fieldType"] as? String == "password", "a secret prompt hides what is typed: \(view)")
        #expect((view["url"] as? String ?? "").hasPrefix("chrome-extension://codbobpodobdemdnekmelhkipidjofnm/prompt.html"))
        #expect(seen["login.password"] as? String == BrowserTests.password, "the master password typed there unlocks, and the pick fills: \(seen)")
        #expect(seen["login.user"] as? String == "alice")
        #expect(seen["prompt.closed"] as? Bool == true, "the window closes after the answer: \(seen)")
        #expect(seen["page.runtime"] as? Bool == false, "a page cannot message the extension")
        #expect(seen["page.frameReadable"] as? Bool == false, "a frame of prompt.html is no page's to read")
        let forged = try #require(seen["forged.windows"] as? [[String: Any]])
        #expect(!forged.isEmpty && forged.allSatisfy { (($0["view"] as? [String: Any])?["text"] as? String ?? "").contains("ERR_BLOCKED_BY_CLIENT") },
                "the window the page opened on prompt.html exists, and Chromium blocked it: \(forged)")
        #expect(forged.allSatisfy { ($0["view"] as? [String: Any])?["field"] as? Bool == false }, "a window or frame the page opens draws no prompt: \(forged)")
    }
}
