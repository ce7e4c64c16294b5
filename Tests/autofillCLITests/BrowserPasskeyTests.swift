import AutofillTestSupport
import Foundation
import Testing

/// Passkeys through `navigator.credentials` (docs/BROWSER.md, "Passkeys"): a real headless Chromium
/// with the extension, a relying party on localhost (`Support/browser_passkeys.py`) whose pages call
/// `navigator.credentials.create` and `.get` as a site does and whose server verifies every credential
/// with py_webauthn (and python-fido2), every pick chromedriver's real input. The same home as
/// BrowserTests (the Vault unlocked in the agent), with dave's password for localhost, and the policy
/// pam with a service that asks nothing.
@Suite(.serialized, .enabled(if: CLI.usesAgent), .enabled(if: Chromium.isInstalled, "needs Debian's chromium and chromium-driver (Scripts/bootstrap test)"))
struct BrowserPasskeyTests {
    let browser: BrowserTests

    init() throws {
        browser = try BrowserTests()
        let saved = try CLI.run(["save", "localhost", "--user", "dave"], home: browser.home.path, input: "dave-password\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        // pam with a service that asks nothing: user verification, so a registration carries user
        // presence (the Vault's yes in the prompt window is a program's answer, which never does).
        try browser.home.usePolicy(try browser.home.permitPolicy())
    }

    /// Runs `browser_passkeys.py scenario`; its observations.
    func drive(_ scenario: String) throws -> [String: Any] {
        let result = try ChildProcess.run("/usr/bin/env", [
            "python3", "\(CLI.root)/Tests/autofillCLITests/Support/browser_passkeys.py", scenario,
            "\(CLI.root)/BrowserExtension", "\(browser.home.path)/.config/chromium",
        ], environment: CLI.environment(home: browser.home.path).merging([
            "AUTOFILL_AGENT": "on", "AUTOFILL_TEST_RP_PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]) { $1 })
        try #require(result.status == 0, "browser_passkeys.py \(scenario): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// The page's outcome of one ceremony: accepted by the relying party, and the credential's shape.
    func accepted(_ result: Any?) -> Bool {
        ((result as? [String: Any])?["verdict"] as? [String: Any])?["accepted"] as? Bool == true
    }

    func shape(_ result: Any?) -> [String: Any] {
        (result as? [String: Any])?["shape"] as? [String: Any] ?? [:]
    }

    /// What `passkeys` shows in any browser: a pick creates paula's passkey and five sign in with it,
    /// each verified by the relying party; conditional mediation, and its abort.
    func expectCreatedSignedInAndConditional(_ seen: [String: Any]) throws {
        let origin = try #require(seen["origin"] as? String)
        let createRows = seen["create.rows"] as? [String] ?? []
        #expect(createRows.first?.contains("Create a passkey for paula") == true && createRows.last?.contains("Other ways") == true, "\(createRows)")
        #expect(accepted(seen["create.result"]), "the relying party verified the registration: \(seen["create.result"] ?? "none")")
        let created = shape(seen["create.result"])
        #expect(created["instance"] as? Bool == true && created["same"] as? Bool == true && created["parts"] as? Bool == true,
                "a PublicKeyCredential whose members match its toJSON(): \(created)")
        #expect((created["clientData"] as? [String: Any])?["origin"] as? String == origin, "clientDataJSON holds the browser's origin: \(created)")
        #expect(((created["clientData"] as? [String: Any])?["type"] as? String) == "webauthn.create")
        #expect((seen["get.rows"] as? [String] ?? []).first?.contains("paula") == true, "\(seen["get.rows"] ?? "none")")
        #expect(accepted(seen["get.result"]), "the relying party verified the sign-in: \(seen["get.result"] ?? "none")")
        let signed = shape(seen["get.result"])
        #expect(signed["instance"] as? Bool == true && signed["same"] as? Bool == true && signed["parts"] as? Bool == true, "\(signed)")
        #expect(seen["get.accepted"] as? [Bool] == [true, true, true, true, true], "five sign-ins in a row: \(seen["get.accepted"] ?? "none")")
        let conditionalRows = seen["conditional.rows"] as? [String] ?? []
        #expect(conditionalRows.first?.contains("paula") == true && conditionalRows.first?.contains("Passkey") == true
                    && conditionalRows.contains { $0.contains("dave") }, "the passkey in the same list as dave's password: \(conditionalRows)")
        #expect(accepted(seen["conditional.result"]), "a pick resolves the page's conditional get: \(seen["conditional.result"] ?? "none")")
        let abortError = (seen["abort.result"] as? [String: Any])?["error"] as? String ?? ""
        #expect(abortError.hasPrefix("AbortError"), "the page's abort rejects its conditional get: \(seen["abort.result"] ?? "none")")
        let abortRows = seen["abort.rows"] as? [String] ?? []
        #expect(abortRows.contains { $0.contains("dave") } && !abortRows.contains { $0.contains("Passkey") },
                "an aborted conditional get offers no passkey: \(abortRows)")
    }

    /// What `passkey-hostile` shows in any browser: a cross-origin frame, a page overriding
    /// navigator.credentials and a page faking the extension's messages get nothing (with controls).
    func expectNothingForHostilePages(_ seen: [String: Any]) {
        #expect(accepted(seen["control.create"]), "the control: a pick registers paula's passkey: \(seen["control.create"] ?? "none")")
        let framed = seen["framed.result"] as? [String: Any] ?? [:]
        let framedError = framed["error"] as? String ?? ""
        #expect(framedError.hasPrefix("NotAllowedError"), "the browser's own refusal in a frame: \(framed)")
        #expect(seen["framed.list"] as? Bool == false && seen["framed.topList"] as? Bool == false, "no list in the frame or its page")
        #expect((seen["subTop.rows"] as? [String] ?? []).first?.contains("paula") == true, "the control: the same page at the top level")
        #expect(accepted(seen["subTop.result"]), "and its pick signs for localhost: \(seen["subTop.result"] ?? "none")")
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

    @Test func aPasskeyIsCreatedAndSignsInThroughNavigatorCredentialsAndConditionalMediationAndTheBrowsersOwnWebAuthnRunsWhenDeclined() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: browser.home.path) }
        let seen = try drive("passkeys")
        try expectCreatedSignedInAndConditional(seen)
        #expect(accepted(seen["decline.result"]), "after Other ways, the browser's own create ran: \(seen["decline.result"] ?? "none")")
        #expect((seen["unknown.rows"] as? [String])?.count == 1 && (seen["unknown.rows"] as? [String])?.first?.hasPrefix("Other ways") == true,
                "no provider holds the allowed passkey: the list still shows, its one row declining: \(seen["unknown.rows"] ?? "no list")")
        #expect(accepted(seen["unknown.result"]), "no provider holds the allowed passkey: the browser's own get after the decline: \(seen["unknown.result"] ?? "none")")
        #expect(seen["virtual.credentials"] as? Int == 1, "the browser's own authenticator made victor's passkey, not autofill")
        #expect(seen["upgrade.password"] as? String == "dave-password")
        #expect(accepted(seen["upgrade.result"]), "the automatic upgrade after the password sign-in: \(seen["upgrade.result"] ?? "none")")
        #expect(seen["upgrade.list"] as? Bool == false, "a conditional registration shows no list")
        let timings = seen["get.pickToResolveMs"] as? [Double] ?? []
        #expect(timings.count == 5 && timings.allSatisfy { $0 > 0 && $0 < 60_000 }, "from the pick to the page's promise: \(timings) ms")
    }

    @Test func aCrossOriginFrameAPageOverridingNavigatorCredentialsAndAPageFakingTheExtensionsMessagesGetNothing() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: browser.home.path) }
        let seen = try drive("passkey-hostile")
        expectNothingForHostilePages(seen)
    }

    @Test func aSameOriginFrameAndACrossOriginFrameWithThePermissionGetAutofillsPasskeysOtherFramesGetNothingAndCapabilitiesAndSignalsTellNothingOfTheStores() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: browser.home.path) }
        let seen = try drive("passkey-frames")
        let origin = try #require(seen["origin"] as? String), sub = try #require(seen["sub"] as? String)
        #expect(accepted(seen["control.create"]), "the control: a pick at the top level registers paula's passkey: \(seen["control.create"] ?? "none")")
        // A same-origin frame registers and signs in as the top frame does; its client data is not cross-origin.
        #expect((seen["same.create.rows"] as? [String])?.first?.contains("Create a passkey for sam") == true, "\(seen["same.create.rows"] ?? "no list")")
        #expect(accepted(seen["same.create"]), "a same-origin frame registers: \(seen["same.create"] ?? "none")")
        #expect((seen["same.get.rows"] as? [String])?.contains { $0.hasPrefix("sam") } == true, "\(seen["same.get.rows"] ?? "no list")")
        #expect(accepted(seen["same.get"]), "a same-origin frame signs in: \(seen["same.get"] ?? "none")")
        let sameData = shape(seen["same.get"])["clientData"] as? [String: Any] ?? [:]
        #expect(sameData["origin"] as? String == origin && sameData["crossOrigin"] as? Bool == false && sameData["topOrigin"] == nil, "\(sameData)")
        // A cross-origin frame with allow="publickey-credentials-get": the relying party verifies its
        // own origin; the client data says crossOrigin and the top page's origin.
        #expect((seen["allowed.get.rows"] as? [String])?.first?.contains("paula") == true, "\(seen["allowed.get.rows"] ?? "no list")")
        #expect(accepted(seen["allowed.get"]), "a cross-origin frame with the permission signs in: \(seen["allowed.get"] ?? "none")")
        let crossData = shape(seen["allowed.get"])["clientData"] as? [String: Any] ?? [:]
        #expect(crossData["origin"] as? String == sub && crossData["crossOrigin"] as? Bool == true && crossData["topOrigin"] as? String == origin,
                "\(crossData)")
        #expect((seen["allowed.create.rows"] as? [String])?.first?.contains("Create a passkey for cora") == true, "\(seen["allowed.create.rows"] ?? "no list")")
        #expect(accepted(seen["allowed.create"]), "a cross-origin frame with the create permission registers: \(seen["allowed.create"] ?? "none")")
        let createdData = shape(seen["allowed.create"])["clientData"] as? [String: Any] ?? [:]
        #expect(createdData["type"] as? String == "webauthn.create" && createdData["crossOrigin"] as? Bool == true
                    && createdData["topOrigin"] as? String == origin, "\(createdData)")
        #expect(accepted(seen["allowed.conditional"]), "a cross-origin frame's conditional get: \(seen["allowed.conditional"] ?? "none") \(seen["allowed.conditional.rows"] ?? "no list")")
        let conditionalData = shape(seen["allowed.conditional"])["clientData"] as? [String: Any] ?? [:]
        #expect(conditionalData["crossOrigin"] as? Bool == true && conditionalData["topOrigin"] as? String == origin, "\(conditionalData)")
        // A frame of the top page's origin inside a frame of another: cross-origin (an ancestor is), both allowed.
        #expect(accepted(seen["nested.get"]), "the nested frame signs in: \(seen["nested.get"] ?? "none") \(seen["nested.get.rows"] ?? "no list")")
        let nestedData = shape(seen["nested.get"])["clientData"] as? [String: Any] ?? [:]
        #expect(nestedData["origin"] as? String == origin && nestedData["crossOrigin"] as? Bool == true && nestedData["topOrigin"] as? String == origin,
                "\(nestedData)")
        // Without the permission, sandboxed, or with the permission faked by the page: no list, the browser's own refusal.
        for name in ["plain", "sandboxed", "late", "lying"] {
            let probe = seen[name] as? [String: Any] ?? [:]
            let result = probe["result"] as? String ?? ""
            #expect(probe["list"] as? Bool == false && probe["topList"] as? Bool == false, "\(name): no list in the frame or its page: \(probe)")
            #expect(!result.isEmpty && result != "credential", "\(name): the browser's own WebAuthn refused: \(probe)")
        }
        // getClientCapabilities: autofill's where it serves, the browser's elsewhere.
        for name in ["capabilities.top", "allowed.capabilities"] {
            let capabilities = seen[name] as? [String: Any] ?? [:]
            #expect(capabilities["conditionalGet"] as? Bool == true && capabilities["conditionalCreate"] as? Bool == true
                        && capabilities["passkeyPlatformAuthenticator"] as? Bool == true, "\(name): \(capabilities)")
        }
        let plain = seen["plain.capabilities"] as? [String: Any] ?? [:]
        #expect(plain["passkeyPlatformAuthenticator"] as? Bool == false && plain["conditionalGet"] != nil,
                "a frame autofill does not serve gets the browser's own answer (headless Chromium: no platform authenticator): \(plain)")
        // The signals: the same answer for a credential autofill holds and one nobody holds; another site's rpId is refused.
        #expect(accepted(seen["signals.get"]), "the signals' setup: paula signed in: \(seen["signals.get"] ?? "none")")
        let signals = seen["signals"] as? [String: Any] ?? [:]
        for name in ["signalUnknownCredential", "signalAllAcceptedCredentials", "signalCurrentUserDetails"] {
            let held = signals["held.\(name)"] as? String, unheld = signals["unheld.\(name)"] as? String
            #expect(held != nil && held == unheld, "\(name): held \(held ?? "none"), not held \(unheld ?? "none")")
            #expect(held?.hasPrefix("resolved") == true, "\(name) for the page's own rpId resolves: \(held ?? "none")")
            #expect(signals["foreign.\(name)"] as? String == "SecurityError", "\(name) for example.com: \(signals["foreign.\(name)"] ?? "none")")
        }
    }
}
