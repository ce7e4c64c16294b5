import AutofillTestSupport
import Foundation
import Testing

/// `fill --clip` and `text --clip` with the real tools: xclip and xsel on an X server of the test's own
/// (Xvfb). wl-copy needs a Wayland compositor, which cannot run here headless: for it, the choice of
/// tool is tested with the tool on PATH or not, and the real wl-copy's failure without a compositor.
@Suite(.serialized)
struct ClipboardTests {
    let home: TemporaryHome
    let config: String
    /// A folder holding only the named tools (symbolic links to /usr/bin), for PATH.
    func tools(_ names: [String]) throws -> String {
        let folder = "\(home.path)/tools-\(names.joined(separator: "-"))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in names { try FileManager.default.createSymbolicLink(atPath: "\(folder)/\(name)", withDestinationPath: "/usr/bin/\(name)") }
        return folder
    }

    /// One Netrc provider with alice's password, the `none` policy (unattended on purpose), synced.
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try home.sample("NetrcProvider", as: "org.t.work") { $0["CFBundleDisplayName"] = "Work" }
        let netrc = try home.file("work.netrc", "machine example.com login alice password alice-clip-pw\n")
        config = try Self.unattended(home, enabled: ["org.t.work"], settings: ["org.t.work": ["NetrcFile": netrc]])
        #expect(try CLI.run(["providers", "sync", "--config", config], home: home.path).status == 0)
    }

    /// A configuration of `home` with `enabled` approved and the `none` policy (unattended on purpose).
    static func unattended(_ home: TemporaryHome, enabled: [String], settings: [String: [String: String]] = [:]) throws -> String {
        let config = try home.config(enabled: enabled, settings: settings)
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: config)), format: nil) as! [String: Any]
        plist["UserAuthentication"] = ["Policy": "none"]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(enabled, config: config)
        return config
    }

    func fillClip(_ environment: [String: String], _ extra: [String] = []) throws -> CLI.Result {
        try CLI.run(["fill", "example.com", "--pick", "1", "--clip", "--config", config] + extra, home: home.path, environment: environment)
    }

    /// Waits (up to `timeout`) until the clipboard no longer holds `text`; what it holds then.
    func waitUntilCleared(_ x: PrivateXServer, of text: String, timeout: Duration = .seconds(20)) throws -> String? {
        let deadline = ContinuousClock.now + timeout
        var now = try x.clipboard()
        while now == text && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            now = try x.clipboard()
        }
        return now
    }

    /// What the clipboard holds once it holds `text` (the background owner that xclip or xsel forks
    /// takes the clipboard a moment after the command ended), or after 5 s.
    func clipboard(of x: PrivateXServer, once text: String) throws -> String? {
        let deadline = ContinuousClock.now + .seconds(5)
        var now = try x.clipboard()
        while now != text && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            now = try x.clipboard()
        }
        return now
    }

    @Test func xclipCopiesTheSecretAndItIsClearedAfterTheDelay() throws {
        let x = try PrivateXServer()
        defer { x.stop() }
        let result = try fillClip(["DISPLAY": x.display, "AUTOFILL_CLIP_SECONDS": "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "with --clip nothing goes to stdout")
        #expect(result.stderr.contains("copied alice's password to the clipboard with xclip; it is cleared in 2 s unless it changes before"))
        #expect(!result.stderr.contains("alice-clip-pw"))
        let copiedAt = ContinuousClock.now
        #expect(try clipboard(of: x, once: "alice-clip-pw") == "alice-clip-pw")
        let after = try waitUntilCleared(x, of: "alice-clip-pw")
        #expect(after == nil || after == "", "cleared: \(after ?? "nothing owns it")")
        #expect(ContinuousClock.now - copiedAt >= .milliseconds(1500), "not before its time")
    }

    @Test func textGoesToTheClipboardToo() throws {
        try FixturePlugin.bundle(in: "\(home.path)/plugins",
                                 plist: FixturePlugin.plist(id: "org.t.fixture", capabilities: ["ProvidesTextToInsert": true]))
        let textConfig = try Self.unattended(home, enabled: ["org.t.fixture"])
        let x = try PrivateXServer()
        defer { x.stop() }
        let result = try CLI.run(["text", "--provider", "org.t.fixture", "--clip", "--config", textConfig], home: home.path,
                                 environment: ["DISPLAY": x.display, "AUTOFILL_CLIP_SECONDS": "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("copied text to the clipboard with xclip"), "\(result.stderr)")
        #expect(try clipboard(of: x, once: "inserted text") == "inserted text")
        let after = try waitUntilCleared(x, of: "inserted text")
        #expect(after == nil || after == "")
    }

    @Test func aClipboardThatChangedMeanwhileIsLeftAlone() throws {
        let x = try PrivateXServer()
        defer { x.stop() }
        let result = try fillClip(["DISPLAY": x.display, "AUTOFILL_CLIP_SECONDS": "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try clipboard(of: x, once: "alice-clip-pw") == "alice-clip-pw")
        try x.copy("something the user copied")
        Thread.sleep(forTimeInterval: 4)
        #expect(try x.clipboard() == "something the user copied")
    }

    @Test func xselIsUsedWhenXclipIsMissing() throws {
        let x = try PrivateXServer()
        defer { x.stop() }
        let result = try fillClip(["DISPLAY": x.display, "AUTOFILL_CLIP_SECONDS": "2", "PATH": try tools(["xsel"])])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("with xsel;"))
        #expect(try clipboard(of: x, once: "alice-clip-pw") == "alice-clip-pw")
        let after = try waitUntilCleared(x, of: "alice-clip-pw")
        #expect(after == nil || after == "")
    }

    @Test(.enabled(if: CLI.usesAgent)) func theClipboardIsClearedAtOnceWhenTheAgentEnds() throws {
        let x = try PrivateXServer()
        defer { x.stop() }
        let result = try fillClip(["DISPLAY": x.display, "AUTOFILL_CLIP_SECONDS": "600"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try clipboard(of: x, once: "alice-clip-pw") == "alice-clip-pw")
        #expect(try CLI.run(["agent", "stop"], home: home.path).status == 0)
        let after = try waitUntilCleared(x, of: "alice-clip-pw", timeout: .seconds(10))
        #expect(after == nil || after == "", "cleared when the agent ended, long before its 600 s")
    }

    @Test func withoutTheAgentTheClearerOutlivesTheCommand() throws {
        let x = try PrivateXServer()
        defer { x.stop() }
        let result = try fillClip(["DISPLAY": x.display, "AUTOFILL_CLIP_SECONDS": "3"], ["--no-agent"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try clipboard(of: x, once: "alice-clip-pw") == "alice-clip-pw", "the command has ended; the clipboard still holds the secret")
        let after = try waitUntilCleared(x, of: "alice-clip-pw")
        #expect(after == nil || after == "", "and its clearer, left alone, cleared it")
    }

    @Test(arguments: [
        (["DISPLAY": "", "WAYLAND_DISPLAY": ""], "neither WAYLAND_DISPLAY nor DISPLAY is set"),
        (["DISPLAY": ":9999", "PATH": "EMPTY"], "no clipboard tool for X11: install xclip or xsel"),
        (["WAYLAND_DISPLAY": "wayland-9", "PATH": "EMPTY"], "no clipboard tool for Wayland: install wl-clipboard (wl-copy and wl-paste)"),
        (["WAYLAND_DISPLAY": "wayland-9", "DISPLAY": ":9999", "PATH": "EMPTY"], "install wl-clipboard (wl-copy and wl-paste) for Wayland, or xclip or xsel for X11"),
    ])
    func withoutADisplayOrAToolTheErrorSaysWhatToDo(environment: [String: String], message: String) throws {
        var environment = environment
        if environment["PATH"] == "EMPTY" { environment["PATH"] = try tools([]) }
        let result = try fillClip(environment)
        #expect(result.status == 69)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stdout.contains("alice-clip-pw") && !result.stderr.contains("alice-clip-pw"))
    }

    @Test func onWaylandWlCopyIsChosenWhenItIsOnPath() throws {
        // No compositor runs here: the real wl-copy is chosen, and fails to connect, which is reported.
        let result = try fillClip(["WAYLAND_DISPLAY": "wayland-autofill-test-none", "DISPLAY": "", "PATH": try tools(["wl-copy", "wl-paste"])])
        #expect(result.status == 69)
        #expect(result.stderr.contains("cannot copy to the clipboard: wl-copy failed"), "\(result.stderr)")
        #expect(!result.stderr.contains("alice-clip-pw"))
    }

    @Test(arguments: [["--json"], ["--format", "env"]])
    func clipCopiesTheSecretAloneNotAFormat(extra: [String]) throws {
        let result = try fillClip(["DISPLAY": ":9999"], extra)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--clip copies the secret alone"))
    }

    @Test func aBadDelayIsAUsageError() throws {
        let result = try fillClip(["DISPLAY": ":9999", "AUTOFILL_CLIP_SECONDS": "soon"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("AUTOFILL_CLIP_SECONDS must be a number of seconds"))
    }

    /// A /proc file read to its end (its size says 0, so a read by size gets nothing); nil when unreadable.
    static func procFile(_ path: String) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return try? handle.readToEnd()
    }

    @Test func theSecretNeverAppearsInTheClearersCommandLineOrEnvironment() throws {
        let x = try PrivateXServer()
        defer { x.stop() }
        let result = try fillClip(["DISPLAY": x.display, "AUTOFILL_CLIP_SECONDS": "8"])  // long enough to find it on a loaded machine
        #expect(result.status == 0, "\(result.stderr)")
        var seen = 0
        let deadline = ContinuousClock.now + .seconds(5)  // scanned until the clearer is found
        while seen == 0 && ContinuousClock.now < deadline {
            for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") where Int(entry) != nil {
                guard let commandLine = Self.procFile("/proc/\(entry)/cmdline"),
                      String(decoding: commandLine, as: UTF8.self).contains("clipboard-clearer") else { continue }
                seen += 1
                #expect(!String(decoding: commandLine, as: UTF8.self).contains("alice-clip-pw"))
                let environment = Self.procFile("/proc/\(entry)/environ").map { String(decoding: $0, as: UTF8.self) } ?? ""
                #expect(!environment.contains("alice-clip-pw"))
            }
            if seen == 0 { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(seen >= 1, "a clearer runs")
        _ = try waitUntilCleared(x, of: "alice-clip-pw")
    }
}
