import AutofillTestSupport
import Foundation
import Testing

/// autofill's own PAM question in the extension's prompt window (docs/BROWSER.md, "The prompt
/// window"): the same home as BrowserTests, its policy then `pam` with a service of the test's own
/// that asks a password and checks it (pam_exec with expose_authtok, a script comparing what PAM
/// passes it), so the test knows the answer without the user's real one. A pick opens the window
/// framed as autofill's own; a wrong password fills nothing, the right one fills. The policy
/// `confirm`'s yes/no is asked there too, framed the same way: No fills nothing, Yes fills.
@Suite(.serialized, .enabled(if: CLI.usesAgent), .enabled(if: Chromium.isInstalled, "needs Debian's chromium and chromium-driver (Scripts/bootstrap test)"),
       .enabled(if: FileManager.default.fileExists(atPath: "/lib/x86_64-linux-gnu/security/pam_exec.so") || FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/security/pam_exec.so"), "needs pam_exec"))
struct BrowserPAMTests {
    let browser: BrowserTests
    static let pamPassword = "the-users-login-password"

    init() throws {
        browser = try BrowserTests()
    }

    /// A PAM service that asks a password and accepts only ``pamPassword``: pam_exec hands the
    /// script the answer on its standard input.
    func checkingService() throws -> [String: String] {
        let folder = "\(browser.home.path)/pam.d"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script = try browser.home.file("pam-check.sh", """
            #!/bin/bash
            read -r -d '' answer
            [ "$answer" = "\(Self.pamPassword)" ]

            """)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        try Data("auth required pam_exec.so expose_authtok quiet \(script)\naccount required pam_permit.so\n".utf8)
            .write(to: URL(fileURLWithPath: "\(folder)/autofill-browser"))
        return ["Policy": "pam", "PAMService": "autofill-browser", "PAMConfigurationDirectory": folder]
    }

    func drive(_ scenario: String, environment extra: [String: String]) throws -> [String: Any] {
        let result = try ChildProcess.run("/usr/bin/env", [
            "python3", "\(CLI.root)/Tests/autofillCLITests/Support/browser_pam.py", scenario,
            "\(CLI.root)/BrowserExtension", "\(browser.home.path)/.config/chromium",
        ], environment: CLI.environment(home: browser.home.path).merging(["AUTOFILL_AGENT": "on"].merging(extra) { $1 }) { $1 })
        try #require(result.status == 0, "browser_pam.py \(scenario): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func autofillsOwnPAMPasswordIsAskedInThePromptWindowFramedAsItsOwnAndOnlyTheRightOneFills() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: browser.home.path) }
        try browser.home.usePolicy(try checkingService())
        var extra = ["AUTOFILL_TEST_PAM_PASSWORD": Self.pamPassword]
        if let shot = ProcessInfo.processInfo.environment["AUTOFILL_TEST_SCREENSHOT"] { extra["AUTOFILL_TEST_SCREENSHOT"] = shot }
        let seen = try drive("pam", environment: extra)
        #expect(seen["wrong.opened"] as? Bool == true, "a pick opens the prompt window: \(seen)")
        let view = seen["wrong.view"] as? [String: Any] ?? [:]
        #expect((view["owner"] as? String ?? "").hasPrefix("autofill ▶ Authenticate to "), "framed as autofill's own: \(view)")
        #expect((view["ownerClass"] as? String ?? "").contains("authentication"), "\(view)")
        #expect((view["note"] as? String ?? "").contains("not a provider's"), "and said to be no provider's question: \(view)")
        #expect(view["fieldType"] as? String == "password", "\(view)")
        #expect(seen["wrong.password"] as? String == "", "a wrong PAM password fills nothing")
        #expect(seen["right.opened"] as? Bool == true)
        #expect(seen["right.password"] as? String == BrowserTests.password, "the right one fills: \(seen)")
        #expect(seen["right.user"] as? String == "alice")
    }

    @Test func underConfirmItsYesOrNoIsAskedInThePromptWindowFramedAsAutofillsOwnAndOnlyYesFills() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: browser.home.path) }
        try browser.home.usePolicy(["Policy": "confirm"])
        let seen = try drive("confirm", environment: [:])
        #expect(seen["no.opened"] as? Bool == true, "a pick opens the prompt window: \(seen)")
        let view = seen["no.view"] as? [String: Any] ?? [:]
        #expect(view["owner"] as? String == "autofill ▶ Confirm", "framed as autofill's own, as at the terminal: \(view)")
        #expect((view["ownerClass"] as? String ?? "").contains("authentication"), "\(view)")
        #expect((view["note"] as? String ?? "").contains("your policy confirm"), "\(view)")
        #expect(view["buttons"] as? [String] == ["Cancel", "No", "Yes"], "\(view)")
        #expect(view["field"] as? Bool == false)
        #expect(seen["no.password"] as? String == "", "No fills nothing")
        #expect(seen["yes.opened"] as? Bool == true)
        #expect(seen["yes.password"] as? String == BrowserTests.password, "Yes fills: \(seen)")
        #expect(seen["yes.user"] as? String == "alice")
    }

    /// The host, spoken to as the extension does over a port: under `confirm` the yes/no reaches the
    /// prompt window as autofill's own, and a No (or the window closed) hands out nothing.
    @Test func underConfirmTheHostAsksTheYesOrNoAsAutofillsOwnAndANoHandsOutNothing() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: browser.home.path) }
        try browser.home.usePolicy(["Policy": "confirm"])
        let host = BrowserHostTests.host
        var framed = Data()
        for message in [#"{"type":"fill","origin":"http://127.0.0.1","kind":"password","position":1,"user":"alice","port":true}"#,
                        #"{"type":"ui-answer","confirmed":false}"#] {
            framed.append(withUnsafeBytes(of: UInt32(message.utf8.count).littleEndian) { Data($0) })
            framed.append(Data(message.utf8))
        }
        let result = try ChildProcess.run(host, ["chrome-extension://codbobpodobdemdnekmelhkipidjofnm/"],
                                          environment: CLI.environment(home: browser.home.path).merging(["AUTOFILL_AGENT": "on"]) { $1 },
                                          input: String(decoding: framed, as: UTF8.self))
        #expect(result.stdout.contains(#""type":"ui""#) && result.stdout.contains(#""kind":"confirm""#), "the yes/no reaches the window: \(result.stdout)")
        #expect(result.stdout.contains(#""owner":"autofill""#) && result.stdout.contains(#""authentication":true"#), "as autofill's own: \(result.stdout)")
        #expect(!result.stdout.contains(BrowserTests.password), "a No hands out nothing")
    }
}

extension TemporaryHome {
    /// Rewrites the home's user configuration with `policy` as its UserAuthentication (the agent
    /// reads it for each command).
    func usePolicy(_ policy: [String: String]) throws {
        let path = "\(self.path)/.config/autofill/config.plist"
        var configuration = try #require(try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: path)), format: nil) as? [String: Any])
        configuration["UserAuthentication"] = policy
        try PropertyListSerialization.data(fromPropertyList: configuration, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
    }
}
