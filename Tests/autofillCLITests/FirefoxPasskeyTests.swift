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
        let origin = try #require(seen["origin"] as? String)
        let createRows = seen["create.rows"] as? [String] ?? []
        #expect(createRows.first?.contains("Create a passkey for paula") == true && createRows.last?.contains("Other ways") == true, "\(createRows)")
        #expect(passkeys.accepted(seen["create.result"]), "the relying party verified the registration: \(seen["create.result"] ?? "none")")
        let created = passkeys.shape(seen["create.result"])
        #expect(created["instance"] as? Bool == true && created["same"] as? Bool == true && created["parts"] as? Bool == true,
                "a PublicKeyCredential whose members match its toJSON(): \(created)")
        #expect((created["clientData"] as? [String: Any])?["origin"] as? String == origin, "clientDataJSON holds the browser's origin: \(created)")
        #expect((seen["get.rows"] as? [String] ?? []).first?.contains("paula") == true, "\(seen["get.rows"] ?? "none")")
        #expect(passkeys.accepted(seen["get.result"]), "the relying party verified the sign-in: \(seen["get.result"] ?? "none")")
        let signed = passkeys.shape(seen["get.result"])
        #expect(signed["instance"] as? Bool == true && signed["same"] as? Bool == true && signed["parts"] as? Bool == true, "\(signed)")
        #expect(seen["get.accepted"] as? [Bool] == [true, true, true, true, true], "five sign-ins in a row: \(seen["get.accepted"] ?? "none")")
        let conditionalRows = seen["conditional.rows"] as? [String] ?? []
        #expect(conditionalRows.first?.contains("paula") == true && conditionalRows.first?.contains("Passkey") == true
                    && conditionalRows.contains { $0.contains("dave") }, "the passkey in the same list as dave's password: \(conditionalRows)")
        #expect(passkeys.accepted(seen["conditional.result"]), "a pick resolves the page's conditional get: \(seen["conditional.result"] ?? "none")")
        let abortError = (seen["abort.result"] as? [String: Any])?["error"] as? String ?? ""
        #expect(abortError.hasPrefix("AbortError"), "the page's abort rejects its conditional get: \(seen["abort.result"] ?? "none")")
        let abortRows = seen["abort.rows"] as? [String] ?? []
        #expect(abortRows.contains { $0.contains("dave") } && !abortRows.contains { $0.contains("Passkey") },
                "an aborted conditional get offers no passkey: \(abortRows)")
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
        #expect(passkeys.accepted(seen["control.create"]), "the control: a pick registers paula's passkey: \(seen["control.create"] ?? "none")")
        let framedError = (seen["framed.result"] as? [String: Any])?["error"] as? String ?? ""
        #expect(framedError.hasPrefix("NotAllowedError"), "Firefox's own refusal in a cross-origin frame: \(seen["framed.result"] ?? "none")")
        #expect(seen["framed.list"] as? Bool == false && seen["framed.topList"] as? Bool == false, "no list in the frame or its page")
        #expect((seen["subTop.rows"] as? [String] ?? []).first?.contains("paula") == true, "the control: the same page at the top level")
        #expect(passkeys.accepted(seen["subTop.result"]), "and its pick signs for localhost: \(seen["subTop.result"] ?? "none")")
        #expect(seen["override.wrappedFirst"] as? Bool == true, "the page's first script already sees the extension's wrapper")
        #expect(seen["override.own"] as? String == "the page's own", "a page's replacement is its own")
        #expect(seen["override.savedList"] as? Bool == true, "the wrapper the page kept still opens the extension's list")
        let ipAnswers = seen["forge.ip.answers"] as? [[String: Any]] ?? []
        #expect(ipAnswers.contains { $0["id"] as? String == "forged" && $0["fallback"] as? Bool == true }, "\(ipAnswers)")
        #expect(!ipAnswers.contains { $0["credential"] != nil }, "another origin claimed by the page gets nothing: \(ipAnswers)")
        #expect(seen["forge.ip.list"] as? Bool == false)
        #expect(seen["forge.local.list"] as? Bool == true, "the page's own request shows the list, as a get would")
        let localAnswers = seen["forge.local.answers"] as? [[String: Any]] ?? []
        #expect(!localAnswers.contains { $0["credential"] != nil }, "the page's fake pick signs nothing: \(localAnswers)")
        #expect(seen["forge.local.picked"] as? String == "public-key", "the control: the user's own pick signs")
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
