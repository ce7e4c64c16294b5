import AutofillTestSupport
import Foundation
import Testing

/// The browser, end to end (docs/BROWSER.md): a real headless Chromium (Debian's `chromium` and
/// `chromium-driver`) with autofill's extension loaded, pages served on 127.0.0.1 and localhost by
/// `Support/browser_driver.py`, every click chromedriver's real (trusted) input, and the extension's
/// native host (`autofill browser install`) reaching the real agent of a test home: policy `none`,
/// the Vault unlocked there (as a user unlocks it) holding alice's login for 127.0.0.1, and the
/// Authenticator holding a one-time code for 127.0.0.1. localhost has no login.
/// The agent pass only: the Vault is unlocked in the agent, which the host reaches as `autofill` does.
@Suite(.serialized, .enabled(if: CLI.usesAgent), .enabled(if: Chromium.isInstalled, "needs Debian's chromium and chromium-driver (Scripts/bootstrap test)"))
struct BrowserTests {
    let home: TemporaryHome
    static let master = "correct horse battery staple"
    static let password = "alice-browser-password"

    init() throws {
        home = try TemporaryHome()
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        _ = try home.sample("AuthenticatorProvider", as: "org.autofill.authenticator")
        let vault = try home.demoVault()
        try FileManager.default.createDirectory(atPath: "\(home.path)/otp", withIntermediateDirectories: true)
        let codes = try home.file("otp/codes.txt", "otpauth://totp/Local:alice?secret=JBSWY3DPEHPK3PXP&issuer=Local&af_domain=127.0.0.1\n")
        try home.userConfiguration([
            "PluginSearchPaths": ["\(home.path)/plugins"],
            "EnabledProviders": ["org.autofill.vault", "org.autofill.authenticator"],
            "ProviderSettings": [
                "org.autofill.vault": ["VaultFile": "\(home.path)/\(vault.dropFirst(2))"],
                "org.autofill.authenticator": ["OTPAuthFile": codes],
            ],
            "UserAuthentication": ["Policy": "none"],
        ])
        try home.trust(["org.autofill.vault", "org.autofill.authenticator"], config: "\(home.path)/.config/autofill/config.plist")
        let unlocked = try CLI.run(["unlock", "org.autofill.vault", "--ui-script", try home.file("unlock.txt", "secret \(Self.master)\n")], home: home.path)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let saved = try CLI.run(["save", "127.0.0.1", "--user", "alice"], home: home.path, input: Self.password + "\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        let synced = try CLI.run(["providers", "sync", "org.autofill.authenticator"], home: home.path)
        #expect(synced.status == 0, "\(synced.stderr)")
        let installed = try CLI.run(["browser", "install", "--browser", "chromium"], home: home.path)
        #expect(installed.status == 0, "\(installed.stderr)")
    }

    /// Runs the driver's `scenario` in a Chromium whose profile is the home's (where `autofill browser
    /// install` wrote the host manifest); its observations.
    func drive(_ scenario: String, environment extra: [String: String] = [:]) throws -> [String: Any] {
        let result = try ChildProcess.run("/usr/bin/env", [
            "python3", "\(CLI.root)/Tests/autofillCLITests/Support/browser_driver.py", scenario,
            "\(CLI.root)/BrowserExtension", "\(home.path)/.config/chromium",
        ], environment: CLI.environment(home: home.path).merging(["AUTOFILL_AGENT": "on"].merging(extra) { $1 }) { $1 })
        try #require(result.status == 0, "browser_driver.py \(scenario): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func aPickFillsSignInMultiStepOneTimeCodeAndNewPasswordFieldsAndATypedPasswordIsSavedAfterSubmit() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: home.path) }
        let seen = try drive("fills")
        try Self.expectFills(seen, home: home)
    }

    /// The fills of the driver's `fills` scenario, in either browser (FirefoxTests too): sign-in, the
    /// list's rows after each focus, the keyboard, multi-step, one-time code, a new password and its
    /// confirmation, and a typed password saved.
    static func expectFills(_ seen: [String: Any], home: TemporaryHome) throws {
        #expect(seen["login.user"] as? String == "alice")
        #expect(seen["login.password"] as? String == password)
        #expect(seen["keys.synthetic.list"] as? Bool == true && seen["keys.synthetic.password"] as? String == "",
                "a page's synthetic arrows and Enter in the field pick nothing: \(seen)")
        #expect(seen["keys.password"] as? String == password, "the user's own ArrowDown and Enter pick the first row: \(seen)")
        let shown = seen["list.focusToRowsMs"] as? [Double] ?? []
        if ProcessInfo.processInfo.environment["AUTOFILL_TEST_FIGURES"] != nil {  // docs/BROWSER.md's figures
            print("figures: focus → rows \(shown) ms; pick → fill \(seen["login.pickToFillMs"] ?? "-") ms")
        }
        #expect(shown.count == 3 && shown.allSatisfy { $0 > 0 && $0 < 60_000 }, "the list's rows were drawn after each focus: \(shown) ms")
        #expect(seen["step1.user"] as? String == "alice", "the first page of a multi-step sign-in: the user name")
        #expect(seen["step2.password"] as? String == password, "its second page: the password")
        let code = seen["otp.code"] as? String ?? ""
        #expect(code.count == 6 && code.allSatisfy(\.isNumber), "a one-time code, not \(code.isEmpty ? "nothing" : "something else")")
        let generated = seen["signup.new"] as? String ?? ""
        #expect(generated.count == 24 && generated.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) } && generated.contains(where: \.isNumber),
                "a new password honouring the field's passwordrules (24 characters, lower case and digits, a digit)")
        #expect(seen["signup.again"] as? String == generated, "and its confirmation field the same")
        #expect(seen["save.prompted"] as? Bool == true, "a typed and submitted password is offered for saving on the next page")
        let origin = try #require(seen["origin"] as? String)
        let filled = try CLI.run(["fill", origin + "/", "--user", "carol"], home: home.path)
        #expect(filled.status == 0 && filled.stdout == "carol-typed-password\n", "saved in the Vault, and filled: \(filled.stderr)")
    }

    @Test func aCrossOriginFrameHiddenFieldsAClickjackingPageAScriptedSubmitAndAPageFakingGesturesGetNothing() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: home.path) }
        let seen = try drive("hostile")
        Self.expectNothingForHostilePages(seen)
        #expect(seen["clickjack.list"] as? Bool == true, "the list was shown, and clicked where its first row is")
        #expect(seen["clickjack.password"] as? String == "", "a list the page made transparent takes no pick")
    }

    /// The driver's `hostile` scenario, in either browser (FirefoxTests too), but for the transparent list.
    static func expectNothingForHostilePages(_ seen: [String: Any]) {
        #expect(seen["control.password"] as? String == password, "the control: the same clicks fill the top-level sign-in form")
        #expect(seen["framing.password"] as? String == Self.password, "a 127.0.0.1 frame in a localhost page is served by its own origin")
        #expect(seen["framed.list"] as? Bool == true, "the localhost frame showed its (empty) list, and the same clicks were made in it")
        #expect(seen["framed.password"] as? String == "", "a localhost frame in a 127.0.0.1 page gets none of 127.0.0.1's logins")
        #expect(seen["framed.user"] as? String == "")
        #expect(seen["sandboxed.list"] as? Bool == false, "a sandboxed frame of a page whose logins exist shows no list")
        #expect(seen["sandboxed.password"] as? String == "", "and nothing is filled in it")
        #expect(seen["hidden.user"] as? String == "alice", "the visible user name field is filled")
        #expect(seen["hidden.password"] as? String == "", "an off-screen password field is not")
        #expect(seen["hidden.trap"] as? String == "", "nor a transparent one")
        let view = seen["page.view"] as? [String: Any] ?? [:]
        #expect(view["shadowRoot"] as? String == "none" && view["text"] as? String == "" && view["frames"] as? Int == 0
                    && view["html"] as? Bool == false, "a page script sees no shadow root, text or frame of a list showing alice: \(view)")
        #expect(view["size"] as? [Int] == [320, 168], "the list's size is fixed, whatever it holds: \(view)")
        #expect(seen["scripted.submitted"] as? Bool == true)
        #expect(seen["scripted.prompted"] as? Bool == false, "a form the page filled and submitted by itself is offered for no save")
        #expect(seen["synthetic.user"] as? String == "")
        #expect(seen["synthetic.password"] as? String == "")
        #expect(seen["synthetic.list"] as? Bool == false, "a focus the page faked opens no list")
        let log = seen["synthetic.log"] as? [String] ?? []
        #expect(log.contains("host:absent,shadow:none"), "\(log)")
        #expect(log.contains("runtime:unavailable"), "a page cannot message the extension: \(log)")
        #expect(!log.joined().contains(Self.password) && !log.joined().contains("alice"), "\(log)")
    }

    @Test func chromiumLoadsTheExtensionWithOnlyFirefoxsBackgroundScriptsFlagged() throws {
        let seen = try drive("manifest")
        #expect(seen["state"] as? String == "ENABLED")
        #expect(seen["warnings"] as? [String] == ["'background.scripts' requires manifest version of 2 or lower."],
                "Chromium ignores Firefox's background (and reports it, which shows the warnings are collected), and nothing else: \(seen)")
    }
}

/// Debian's Chromium and its chromedriver, which the browser tests drive.
enum Chromium {
    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
            && FileManager.default.isExecutableFile(atPath: "/usr/lib/chromium/chromium")
    }
}
