import AutofillTestSupport
import Foundation
import Testing

/// `autofill providers set|unset`: settings without writing XML, checked against what the provider declares.
struct ProviderSettingsTests {
    let home: TemporaryHome
    let config: String

    init() throws {
        home = try TemporaryHome()
        _ = try home.sample("NetrcProvider", as: "org.t.netrc")
        config = try home.config(enabled: ["org.t.netrc"], settings: ["org.t.netrc": ["Colour": "blue"]])
    }

    func autofill(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(arguments + ["--config", config], home: home.path)
    }

    func settings() throws -> [String: String]? {
        let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: config)), format: nil) as! [String: Any]
        return (plist["ProviderSettings"] as? [String: [String: String]])?["org.t.netrc"]
    }

    @Test func setAndUnsetChangeTheConfigurationAtomically() throws {
        let set = try autofill(["providers", "set", "org.t.netrc", "NetrcFile", "~/work.netrc"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "Set NetrcFile of org.t.netrc to ~/work.netrc.\nSaved \(config)\n")
        #expect(set.stderr.isEmpty, "a declared setting needs no note: \(set.stderr)")
        #expect(try settings() == ["NetrcFile": "~/work.netrc", "Colour": "blue"], "written as typed; resolved when used")
        // The provider sees it: its sandbox summary names the file.
        #expect(try autofill(["providers", "list"]).stdout.contains("NetrcFile setting (now \(home.path)/work.netrc)"))
        #expect(try FileManager.default.attributesOfItem(atPath: config)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).allSatisfy { !$0.contains(".tmp") }, "no temporary file left")

        let unset = try autofill(["providers", "unset", "org.t.netrc", "NetrcFile"])
        #expect(unset.status == 0, "\(unset.stderr)")
        #expect(unset.stdout.hasPrefix("Removed NetrcFile of org.t.netrc; its default applies.\n"))
        #expect(try settings() == ["Colour": "blue"])
        #expect(try autofill(["providers", "unset", "org.t.netrc", "Colour"]).status == 0)
        #expect(try settings() == nil, "an empty dictionary goes with its last key")
    }

    @Test func aKeyTheProviderDoesNotDeclareIsSetWithANote() throws {
        let result = try autofill(["providers", "set", "org.t.netrc", "Timeout", "30"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("autofill: note: Netrc (org.t.netrc) does not declare Timeout (it declares NetrcFile); set it anyway"))
        #expect(try settings()?["Timeout"] == "30")
    }

    @Test func mistakesAreRefusedNamingWhatWasWrongAndNothingChanges() throws {
        let before = try String(contentsOfFile: config, encoding: .utf8)
        let cases: [([String], String)] = [
            (["set", "org.t.netrc", "NetrcFiel", "x"], "Netrc (org.t.netrc) has no setting NetrcFiel; did you mean NetrcFile?"),
            (["set", "org.t.netrc", "netrcfile", "x"], "did you mean NetrcFile?"),
            (["set", "org.t.nope", "NetrcFile", "x"], "no plugin with id org.t.nope in \(home.path)/plugins; found: org.t.netrc"),
            (["set", "org.t.netrc", "NetrcFile=~/x", "y"], "NetrcFile=~/x is not a setting name (letters, digits, ., _ and -)"),
            (["set", "org.t.netrc", "NetrcFile", ""], "the value of NetrcFile is empty; to remove the setting, run `autofill providers unset org.t.netrc NetrcFile`"),
            (["set", "org.t.netrc", "NetrcFile", "a\nb"], "the value of NetrcFile contains a control character"),
            (["unset", "org.t.netrc", "Color"], "does not set Color for org.t.netrc (it sets Colour for org.t.netrc); did you mean Colour?"),
        ]
        for (arguments, message) in cases {
            let result = try autofill(["providers"] + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(try String(contentsOfFile: config, encoding: .utf8) == before)
    }
}
