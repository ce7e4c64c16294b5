import AutofillTestSupport
import Foundation
import Testing

/// Passkeys through `navigator.credentials` in Firefox (docs/BROWSER.md, "Passkeys"): BrowserPasskeyTests'
/// scenarios (`Support/browser_passkeys.py`, its relying party verifying every credential with
/// py_webauthn) run in Debian's headless Firefox ESR through `Support/firefox_driver.py` (its own
/// WebDriver BiDi, every pick real input), in BrowserPasskeyTests' home with the host installed for
/// Firefox. Firefox has no virtual authenticator here: after a decline its own WebAuthn refuses.
@Suite(.serialized, .enabled(if: CLI.usesAgent), .enabled(if: Firefox.isInstalled, "needs Debian's firefox-esr (Scripts/bootstrap test)"))
struct FirefoxPasskeyTests {
    let passkeys: BrowserPasskeyTests

    init() throws {
        passkeys = try BrowserPasskeyTests()
        let installed = try CLI.run(["browser", "install", "--browser", "firefox"], home: passkeys.browser.home.path)
        #expect(installed.status == 0, "\(installed.stderr)")
    }

    var home: String { passkeys.browser.home.path }

    /// Runs `firefox_driver.py scenario` (a passkey scenario of browser_passkeys.py); its observations.
    func drive(_ scenario: String) throws -> [String: Any] {
        let result = try ChildProcess.run("/usr/bin/env", [
            "python3", "\(CLI.root)/Tests/autofillCLITests/Support/firefox_driver.py", scenario,
            "\(CLI.root)/BrowserExtension", "\(home)/.mozilla/firefox/autofill-test",
        ], environment: CLI.environment(home: home).merging([
            "AUTOFILL_AGENT": "on", "AUTOFILL_TEST_RP_PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]) { $1 })
        try #require(result.status == 0, "firefox_driver.py \(scenario): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func aPasskeyIsCreatedAndSignsInThroughNavigatorCredentialsAndConditionalMediationAndFirefoxsOwnWebAuthnAnswersADecline() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: home) }
        let seen = try drive("passkeys")
        try passkeys.expectCreatedSignedInAndConditional(seen)
        // "Other ways…": Firefox's own create runs, finds no authenticator, and the page's promise
        // settles with Firefox's own refusal (autofill's wrapper has no error of its own but AbortError).
        #expect((seen["decline.rows"] as? [String])?.last?.hasPrefix("Other ways") == true, "\(seen["decline.rows"] ?? "no list")")
        let declined = seen["decline.result"] as? [String: Any] ?? [:]
        #expect((declined["error"] as? String ?? "").hasPrefix("NotAllowedError"), "Firefox's own WebAuthn refused: \(declined)")
        let waited = (declined["settledAt"] as? Double ?? 0) - (declined["started"] as? Double ?? 0)
        #expect(waited > 30_000, "Firefox waited for an authenticator until the options' timeout (60 s), as its own WebAuthn does: \(waited) ms")
        #expect(seen["upgrade.password"] as? String == "dave-password")
        #expect(passkeys.accepted(seen["upgrade.result"]), "the automatic upgrade after the password sign-in: \(seen["upgrade.result"] ?? "none")")
        #expect(seen["upgrade.list"] as? Bool == false, "a conditional registration shows no list")
        let timings = seen["get.pickToResolveMs"] as? [Double] ?? []
        #expect(timings.count == 5 && timings.allSatisfy { $0 > 0 && $0 < 60_000 }, "from the pick to the page's promise: \(timings) ms")
    }

    @Test func aCrossOriginFrameAPageOverridingNavigatorCredentialsAndAPageFakingTheExtensionsMessagesGetNothing() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: home) }
        let seen = try drive("passkey-hostile")
        passkeys.expectNothingForHostilePages(seen)
    }

    @Test func aSameOriginFrameGetsAutofillsPasskeysAndACrossOriginFrameEvenWithThePermissionGetsFirefoxsOwnWebAuthn() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: home) }
        let seen = try drive("passkey-frames")
        let origin = try #require(seen["origin"] as? String)
        #expect(passkeys.accepted(seen["control.create"]), "the control: a pick at the top level registers paula's passkey: \(seen["control.create"] ?? "none")")
        #expect((seen["same.create.rows"] as? [String])?.first?.contains("Create a passkey for sam") == true, "\(seen["same.create.rows"] ?? "no list")")
        #expect(passkeys.accepted(seen["same.create"]), "a same-origin frame registers: \(seen["same.create"] ?? "none")")
        #expect((seen["same.get.rows"] as? [String])?.contains { $0.hasPrefix("sam") } == true, "\(seen["same.get.rows"] ?? "no list")")
        #expect(passkeys.accepted(seen["same.get"]), "a same-origin frame signs in: \(seen["same.get"] ?? "none")")
        let sameData = passkeys.shape(seen["same.get"])["clientData"] as? [String: Any] ?? [:]
        #expect(sameData["origin"] as? String == origin && sameData["crossOrigin"] as? Bool == false, "\(sameData)")
        // Firefox gives the extension no permissions policy API: a cross-origin frame gets nothing of
        // autofill's even with allow="publickey-credentials-get" (Firefox's own WebAuthn answers it), as
        // do frames without the permission, sandboxed, or with the permission faked by the page.
        for name in ["allowed", "plain", "sandboxed", "late", "lying"] {
            let probe = seen[name] as? [String: Any] ?? [:]
            let result = probe["result"] as? String ?? ""
            #expect(probe["list"] as? Bool == false && probe["topList"] as? Bool == false, "\(name): no list in the frame or its page: \(probe)")
            #expect(!result.isEmpty && result != "credential", "\(name): Firefox's own WebAuthn answered: \(probe)")
        }
        // getClientCapabilities: autofill's at the top level, Firefox's own in the frames it does not serve.
        let top = seen["capabilities.top"] as? [String: Any] ?? [:]
        #expect(top["conditionalGet"] as? Bool == true && top["conditionalCreate"] as? Bool == true
                    && top["passkeyPlatformAuthenticator"] as? Bool == true, "\(top)")
        for name in ["allowed.capabilities", "plain.capabilities"] {
            let capabilities = seen[name] as? [String: Any] ?? [:]
            #expect(capabilities["passkeyPlatformAuthenticator"] as? Bool == false && capabilities["conditionalCreate"] as? Bool == false,
                    "\(name): Firefox's own answer (no platform authenticator, no conditional create): \(capabilities)")
        }
        // Firefox 153 has no signal methods (its capabilities say signalUnknownCredential false …), and
        // the wrapper adds none: the page's call is a TypeError, the same for every credential and site.
        #expect(top["signalUnknownCredential"] as? Bool == false, "\(top)")
        let signals = seen["signals"] as? [String: Any] ?? [:]
        for name in ["signalUnknownCredential", "signalAllAcceptedCredentials", "signalCurrentUserDetails"] {
            for kind in ["held", "unheld", "foreign"] {
                #expect(signals["\(kind).\(name)"] as? String == "TypeError", "\(kind).\(name): \(signals)")
            }
        }
    }
}
