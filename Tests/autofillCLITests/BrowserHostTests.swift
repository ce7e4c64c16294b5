import AutofillTestSupport
import Foundation
import Testing

/// `autofill-browser-host` and `autofill browser install` without a browser (docs/BROWSER.md): the
/// built host spoken to as a browser speaks to it (native messaging on stdin and stdout), the agent
/// of a test home behind it (policy none, the Vault unlocked there with alice's login for 127.0.0.1).
@Suite(.serialized)
struct BrowserHostTests {
    let home: TemporaryHome
    static let host = "\(CLI.root)/.build/debug/autofill-browser-host"
    static let extensionOrigin = "chrome-extension://codbobpodobdemdnekmelhkipidjofnm/"
    static let password = "alice-host-password"

    init() throws {
        home = try TemporaryHome()
    }

    /// The Vault, unlocked in the agent, with alice's login for 127.0.0.1; the user's policy none.
    func unlockedVault() throws {
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        let vault = try home.demoVault()
        try home.userConfiguration([
            "PluginSearchPaths": ["\(home.path)/plugins"], "EnabledProviders": ["org.autofill.vault"],
            "ProviderSettings": ["org.autofill.vault": ["VaultFile": "\(home.path)/\(vault.dropFirst(2))"]],
            "UserAuthentication": ["Policy": "none"],
        ])
        try home.trust(["org.autofill.vault"], config: "\(home.path)/.config/autofill/config.plist")
        let unlocked = try CLI.run(["unlock", "org.autofill.vault", "--ui-script", try home.file("unlock.txt", "secret correct horse battery staple\n")],
                                   home: home.path, environment: ["AUTOFILL_AGENT": "on"])
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let saved = try CLI.run(["save", "127.0.0.1", "--user", "alice"], home: home.path, environment: ["AUTOFILL_AGENT": "on"], input: Self.password + "\n")
        #expect(saved.status == 0, "\(saved.stderr)")
    }

    /// Native-messaging frames: a 32-bit length in this machine's byte order, then the bytes.
    static func frame(_ body: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(body.count)) { Array($0) } + body
    }

    /// Runs the host with `arguments` (the caller, as a browser passes it) and `messages` on stdin;
    /// its exit status, its answers (JSON text each) and its stderr.
    func talk(_ arguments: [String], _ input: [UInt8], agent: String = "on") throws -> (status: Int32, answers: [String], stderr: String) {
        let stdin = try home.file("stdin-\(UUID().uuidString)", "")
        try Data(input).write(to: URL(fileURLWithPath: stdin))
        // Its stdout to a file: the lengths are binary (ChildProcess's output is text).
        let stdout = "\(stdin).out"
        let result = try ChildProcess.run("/bin/sh", ["-c", "exec \"$0\" \"$@\" < \"\(stdin)\" > \"\(stdout)\"", Self.host] + arguments,
                                          environment: CLI.environment(home: home.path).merging(["AUTOFILL_AGENT": agent]) { $1 })
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stdout)))
        var answers: [String] = []
        while bytes.count >= 4 {
            let length = Int(bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            answers.append(String(decoding: bytes[4..<min(bytes.count, 4 + length)], as: UTF8.self))
            bytes.removeFirst(min(bytes.count, 4 + length))
        }
        return (result.status, answers, result.stderr)
    }

    func request(_ object: [String: Any]) throws -> [UInt8] {
        Self.frame(Array(try JSONSerialization.data(withJSONObject: object)))
    }

    @Test func theHostAnswersOnlyTheProjectsExtension() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: home.path) }
        let suggest = try request(["type": "suggest", "origin": "http://127.0.0.1:8000", "kind": "password"])
        let control = try talk([Self.extensionOrigin], suggest)
        #expect(control.status == 0 && control.answers.count == 1 && control.answers[0].contains(#""ok":true"#), "\(control)")
        let firefox = try talk(["/home/u/.mozilla/native-messaging-hosts/org.autofill.browser.json", "browser@autofill.invalid"], suggest)
        #expect(firefox.status == 0 && firefox.answers.count == 1, "\(firefox)")
        for caller in [["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"], ["chrome-extension://codbobpodobdemdnekmelhkipidjofnm.evil/"],
                       ["/manifest.json", "other@example.org"], []] {
            let refused = try talk(caller, suggest)
            #expect(refused.status == 77 && refused.answers.isEmpty, "\(caller): \(refused)")
            #expect(refused.stderr.contains("answers only autofill's extension"))
        }
    }

    @Test func theHostStartsTheAgentAsAutofillDoesAndRunsCommandsItselfWhenTheAgentIsOff() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: home.path) }
        let suggest = try request(["type": "suggest", "origin": "https://example.com", "kind": "password"])
        let off = try talk([Self.extensionOrigin], suggest, agent: "off")
        #expect(off.status == 0 && off.answers.first?.contains(#""ok":true"#) == true, "answered in process: \(off)")
        #expect(try CLI.run(["agent", "status"], home: home.path, environment: ["AUTOFILL_AGENT": "on"]).status == 3, "no agent was started")
        let on = try talk([Self.extensionOrigin], suggest)
        #expect(on.status == 0 && on.answers.first?.contains(#""ok":true"#) == true, "\(on)")
        #expect(try CLI.run(["agent", "status"], home: home.path, environment: ["AUTOFILL_AGENT": "on"]).status == 0, "the host started the agent")
    }

    @Test func aMessageLongerThanTheBrowsersLimitIsRefusedBeforeItIsRead() throws {
        let control = try talk([Self.extensionOrigin], Self.frame(Array(#"{"type":"nothing"}"#.utf8)))
        #expect(control.status == 0 && control.answers.first?.contains("not a request this host knows") == true, "\(control)")
        // 64 MiB + 1 announced, four bytes sent: refused by its length alone.
        let oversized = withUnsafeBytes(of: UInt32(64 << 20) + 1) { Array($0) } + Array("{}{}".utf8)
        let refused = try talk([Self.extensionOrigin], oversized)
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.answers.first?.contains("larger than the 64 MiB") == true, "\(refused)")
        let truncated = try talk([Self.extensionOrigin], withUnsafeBytes(of: UInt32(100)) { Array($0) } + Array("{}".utf8))
        #expect(truncated.status == 65 && truncated.answers.first?.contains("ended inside a message") == true, "\(truncated)")
    }

    @Test func suggestionsCarryNoSecretAndOnlyAFillOfThePickedUserDoes() throws {
        try unlockedVault()
        defer { _ = try? CLI.run(["agent", "stop"], home: home.path) }
        let origin = "http://127.0.0.1:8000"
        let talked = try talk([Self.extensionOrigin], try request(["type": "suggest", "origin": origin, "kind": "password"])
            + request(["type": "fill", "origin": origin, "kind": "password", "position": 1, "user": "bob"])
            + request(["type": "fill", "origin": origin, "kind": "password", "position": 1, "user": "alice"]))
        #expect(talked.status == 0 && talked.answers.count == 3, "\(talked)")
        guard talked.answers.count == 3 else { return }
        #expect(talked.answers[0].contains(#""user":"alice""#) && talked.answers[0].contains(#""provider":"Vault""#), "\(talked.answers[0])")
        #expect(!talked.answers[0].contains(Self.password), "a suggestion holds no secret")
        #expect(talked.answers[1].contains(#""ok":false"#) && !talked.answers[1].contains(Self.password), "another user than the list showed: nothing")
        #expect(talked.answers[2].contains(Self.password), "the picked user's password, after the pick")
    }

    @Test func generateHonoursThePagesRulesAndRulesNeverBecomeOptions() throws {
        try unlockedVault()
        defer { _ = try? CLI.run(["agent", "stop"], home: home.path) }
        let origin = "http://127.0.0.1:8000"
        let talked = try talk([Self.extensionOrigin], try request(["type": "generate", "origin": origin, "kind": "password", "rules": "minlength: 30; maxlength: 30; allowed: digit;"])
            + request(["type": "generate", "origin": origin, "kind": "password", "rules": "--config=/tmp/evil.plist"])
            + request(["type": "generate", "origin": origin, "kind": "password", "rules": String(repeating: "x", count: 1_001)]))
        #expect(talked.status == 0 && talked.answers.count == 3, "\(talked)")
        guard talked.answers.count == 3 else { return }
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(talked.answers[0].utf8)) as? [String: Any])
        let password = answer["password"] as? String ?? ""
        #expect(password.count == 30 && password.allSatisfy(\.isNumber), "\(talked.answers[0])")
        #expect(talked.answers[1].contains(#""ok":false"#) && talked.answers[1].contains("exited 64"), "rules that look like an option are rules (invalid ones): \(talked.answers[1])")
        #expect(talked.answers[2].contains("at most 1000 bytes"), "\(talked.answers[2])")
    }

    @Test func saveStoresWhatTheExtensionSendsAndRefusesWhatIsNoOneLine() throws {
        try unlockedVault()
        defer { _ = try? CLI.run(["agent", "stop"], home: home.path) }
        let origin = "http://127.0.0.1:8000"
        let talked = try talk([Self.extensionOrigin], try request(["type": "save", "origin": origin, "kind": "password", "user": "-dave", "password": "dave-pw"])
            + request(["type": "fill", "origin": origin, "kind": "password", "position": 1, "user": "-dave"])  // an exact URL ranks first
            + request(["type": "save", "origin": origin, "kind": "password", "user": "erin", "password": "two\nlines"])
            + request(["type": "save", "origin": origin, "kind": "password", "user": "", "password": "x"]))
        #expect(talked.status == 0 && talked.answers.count == 4, "\(talked)")
        guard talked.answers.count == 4 else { return }
        #expect(talked.answers[0] == #"{"ok":true}"#, "a user name starting with - is a name: \(talked.answers[0])")
        #expect(talked.answers[1].contains("dave-pw"), "\(talked.answers[1])")
        #expect(talked.answers[2].contains("one line") && talked.answers[3].contains("needs a user name"), "\(talked.answers)")
    }

    @Test(arguments: ["file:///etc/passwd", "chrome-extension://codbobpodobdemdnekmelhkipidjofnm", "null", "http://127.0.0.1/login",
                      "http://user:pw@127.0.0.1", "--config=/tmp/evil.plist", "http://127.0.0.1:99999", "javascript:alert(1)", "http://"])
    func anOriginThatIsNoWebOriginIsRefused(origin: String) throws {
        let talked = try talk([Self.extensionOrigin], try request(["type": "suggest", "origin": origin, "kind": "password"]))
        #expect(talked.status == 0 && talked.answers.first?.contains("must be a web origin") == true, "\(talked)")
    }

    @Test func browserInstallWritesManifestsAllowingExactlyTheExtensionAndUninstallRemovesThem() throws {
        let installed = try CLI.run(["browser", "install"], home: home.path)
        #expect(installed.status == 0, "\(installed.stderr)")
        let paths = [
            "chromium": "\(home.path)/.config/chromium/NativeMessagingHosts/org.autofill.browser.json",
            "chrome": "\(home.path)/.config/google-chrome/NativeMessagingHosts/org.autofill.browser.json",
            "firefox": "\(home.path)/.mozilla/native-messaging-hosts/org.autofill.browser.json",
        ]
        for (browser, path) in paths {
            let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any], "\(browser)")
            #expect(manifest["name"] as? String == "org.autofill.browser")
            #expect(manifest["type"] as? String == "stdio")
            #expect(manifest["path"] as? String == URL(fileURLWithPath: Self.host).resolvingSymlinksInPath().path
                || (manifest["path"] as? String)?.hasSuffix("/autofill-browser-host") == true)
            if browser == "firefox" {
                #expect(manifest["allowed_extensions"] as? [String] == ["browser@autofill.invalid"])
                #expect(manifest["allowed_origins"] == nil)
            } else {
                #expect(manifest["allowed_origins"] as? [String] == [Self.extensionOrigin])
                #expect(manifest["allowed_extensions"] == nil)
            }
        }
        let removed = try CLI.run(["browser", "uninstall", "--browser", "firefox"], home: home.path)
        #expect(removed.status == 0 && !FileManager.default.fileExists(atPath: paths["firefox"]!), "\(removed.stderr)")
        #expect(FileManager.default.fileExists(atPath: paths["chromium"]!), "one browser's only")
        _ = try CLI.run(["browser", "uninstall"], home: home.path)
        #expect(paths.values.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
    }

    @Test func aLockedProvidersPromptGoesToTheExtensionOverAPortAndNeverToAOneShotMessage() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: home.path) }
        try unlockedVault()
        let locked = try CLI.run(["lock", "org.autofill.vault"], home: home.path, environment: ["AUTOFILL_AGENT": "on"])
        #expect(locked.status == 0, "\(locked.stderr)")
        let fill: [String: Any] = ["type": "fill", "origin": "http://127.0.0.1:8000", "kind": "password", "position": 1, "user": "alice"]
        // Over a port: the Vault's request comes first, framed with its name and id; the answer unlocks, and the fill follows.
        var withPort = fill
        withPort["port"] = true
        let asked = try talk([Self.extensionOrigin], try request(withPort) + request(["type": "ui-answer", "text": "correct horse battery staple"]))
        #expect(asked.answers.count == 2, "\(asked)")
        let ui = try #require(try JSONSerialization.jsonObject(with: Data((asked.answers.first ?? "{}").utf8)) as? [String: Any])
        let prompt = ui["request"] as? [String: Any] ?? [:]
        #expect(ui["type"] as? String == "ui" && prompt["owner"] as? String == "Vault (org.autofill.vault)" && prompt["kind"] as? String == "prompt"
                    && prompt["secret"] as? Bool == true, "\(ui)")
        #expect(asked.answers.last?.contains(#""password":"\#(Self.password)""#) == true, "unlocked by the answer, then filled: \(asked)")
        // A one-shot message cannot be asked anything: the command gets no channel (exit 21), nothing is sent before the answer.
        let locked2 = try CLI.run(["lock", "org.autofill.vault"], home: home.path, environment: ["AUTOFILL_AGENT": "on"])
        #expect(locked2.status == 0, "\(locked2.stderr)")
        let oneShot = try talk([Self.extensionOrigin], try request(fill))
        #expect(oneShot.answers.count == 1 && oneShot.answers[0].contains("autofill exited 21") && !oneShot.answers[0].contains(#""type":"ui""#), "\(oneShot)")
        // An answer that is no ui-answer (or none: the input ends) cancels; nothing is filled.
        let wrong = try talk([Self.extensionOrigin], try request(withPort) + request(["type": "fill", "text": "correct horse battery staple"]))
        #expect(wrong.answers.count == 2 && wrong.answers[1].contains(#""ok":false"#) && !wrong.answers[1].contains(Self.password), "\(wrong)")
        // The CLI takes --ui-channel only with a socket on its standard input.
        let file = try CLI.run(["fill", "127.0.0.1", "--ui-channel"], home: home.path, environment: ["AUTOFILL_AGENT": "off"])
        #expect(file.status != 0 && file.stderr.contains("--ui-channel needs a socket on standard input"), "\(file.stderr)")
    }
}
