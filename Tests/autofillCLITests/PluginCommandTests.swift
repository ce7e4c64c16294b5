import AutofillTestSupport
import Foundation
import Testing

/// `autofill plugin validate|bundle` run as a provider author runs them.
struct PluginCommandTests {
    let home: TemporaryHome

    init() throws {
        home = try TemporaryHome()
    }

    @Test(arguments: ["VaultProvider", "NetrcProvider", "AuthenticatorProvider", "SecretServiceProvider", "KeePassProvider"])
    func theSamplesAreValid(sample: String) throws {
        let result = try CLI.run(["plugin", "validate", "\(CLI.builtBundles)/\(sample).afprovider"], home: home.path)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("valid\n"))
        #expect(result.stdout.contains("entry points:"))
    }

    /// Inspecting a bundle runs its code with no grant beyond its own folders until the user approved it:
    /// the fixture refuses to load when it can read the file its declared FixtureRead setting names.
    @Test func validateGivesAPluginNobodyApprovedNoneOfItsDeclaredFiles() throws {
        let id = "org.t.reader"
        var plist = FixturePlugin.plist(id: id, name: "Reader")
        plist["AFProviderSandbox"] = ["Files": [["Setting": "FixtureRead", "Access": "read"]]]
        let bundle = try FixturePlugin.bundle(in: "\(home.path)/plugins", name: "Reader", plist: plist, defines: ["FIXTURE_REFUSE_IF_READABLE"])
        let secret = try home.file("secret.txt", "the user's file\n")
        let config = "\(home.path)/config.plist"
        let configuration: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": [String](), "ProviderSettings": [id: ["FixtureRead": secret]],
            "UserAuthentication": ["Policy": "none"],
        ]
        try PropertyListSerialization.data(fromPropertyList: configuration, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        let unapproved = try CLI.run(["plugin", "validate", bundle, "--config", config], home: home.path)
        #expect(unapproved.status == 0, "it could not read the file, so it loaded: \(unapproved.stdout)\(unapproved.stderr)")
        #expect(unapproved.stdout.contains("sandbox:       ran with no grant beyond its own folders: you have not approved it (`autofill providers enable \(id)`)"))
        #expect(unapproved.stdout.contains("read the file named by its FixtureRead setting (now \(secret))"), "what it asks for is still shown")
        // Control: once approved (enabled, its files trusted; trusting runs none of its code), validate
        // runs it in the sandbox approved, which grants the file.
        var enabled = configuration
        enabled["EnabledProviders"] = [id]
        try PropertyListSerialization.data(fromPropertyList: enabled, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust([id], config: config)
        let approved = try CLI.run(["plugin", "validate", bundle, "--config", config], home: home.path)
        #expect(approved.status == 65, "it read the file and refused to load: \(approved.stdout)")
        #expect(approved.stdout.contains("sandbox:       ran in the sandbox you approved"))
        #expect(approved.stdout.contains("returned NULL"))
    }

    @Test func everyProblemIsPrintedWithItsFixAndExit65() throws {
        let bundle = try home.sample("VaultProvider", as: "org.t.broken") { plist in
            plist["AFProviderABIVersion"] = 9
            var ext = plist["NSExtension"] as! [String: Any]
            ext["NSExtensionPointIdentifier"] = "com.example.other"
            plist["NSExtension"] = ext
        }
        let result = try CLI.run(["plugin", "validate", bundle], home: home.path)
        #expect(result.status == 65)
        #expect(result.stdout.contains("error: \(bundle)/Info.plist: AFProviderABIVersion: the plugin was built for provider ABI version 9, this host speaks version 1"))
        #expect(result.stdout.contains("error: \(bundle)/Info.plist: NSExtension.NSExtensionPointIdentifier: \"com.example.other\" is not an extension point autofill hosts"))
        #expect(result.stdout.components(separatedBy: "fix: ").count == 3)
        #expect(result.stdout.hasSuffix("invalid: 2 problems\n"))
    }

    @Test func validateJSONListsTheProblemsWithCodes() throws {
        let bundle = try home.sample("NetrcProvider", as: "org.t.json") { plist in
            var ext = plist["NSExtension"] as! [String: Any]
            var attributes = ext["NSExtensionAttributes"] as! [String: Any]
            attributes["ASCredentialProviderExtensionCapabilities"] = ["ProvidesPasswords": true, "ProvidesOneTimeCodes": true]
            ext["NSExtensionAttributes"] = attributes
            plist["NSExtension"] = ext
        }
        let result = try CLI.run(["plugin", "validate", "--json", bundle], home: home.path)
        #expect(result.status == 65)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(json["valid"] as? Bool == false)
        let problems = json["problems"] as! [[String: Any]]
        #expect(problems.map { $0["code"] as? String } == ["missingEntryPoints"])
        #expect((problems[0]["message"] as? String)?.contains("prepare_one_time_code_list (for ProvidesOneTimeCodes)") == true)
    }

    @Test func aMissingBundleIsExit66() throws {
        let result = try CLI.run(["plugin", "validate", "\(home.path)/None.afprovider"], home: home.path)
        #expect(result.status == 66)
        #expect(result.stdout.contains("no plugin bundle directory here"))
    }

    @Test func bundleNamesTheRealPlistInItsErrors() throws {
        let plist = try home.file("Info.plist", "<?xml version=\"1.0\"?><plist version=\"1.0\"><array/></plist>")
        let result = try CLI.run(
            ["plugin", "bundle", "--info", plist, "--library", "\(CLI.builtBundles)/NetrcProvider.afprovider/libNetrcProvider.so",
             "--output", "\(home.path)/Out.afprovider"], home: home.path)
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(plist): the top level is an Array, expected a Dictionary"))
        #expect(!FileManager.default.fileExists(atPath: "\(home.path)/Out.afprovider"))
    }

    @Test func bundleAssemblesADirectoryThatValidates() throws {
        let output = "\(home.path)/Made.afprovider"
        let made = try CLI.run(
            ["plugin", "bundle", "--info", "\(CLI.root)/Plugins/NetrcProvider/Info.plist",
             "--library", "\(CLI.builtBundles)/NetrcProvider.afprovider/libNetrcProvider.so", "--output", output],
            home: home.path)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(output)/libNetrcProvider.so"))
        #expect(try CLI.run(["plugin", "validate", output], home: home.path).status == 0)
    }
}
