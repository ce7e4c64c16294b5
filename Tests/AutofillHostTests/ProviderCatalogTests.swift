import AutofillCore
import AutofillHost
import Foundation
import Testing

/// The host configuration and the rules for enabling providers.
struct ProviderCatalogTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: "\(folder.path)/plugins", withIntermediateDirectories: true)
    }

    /// A configuration file in the temporary folder, searching `plugins/`.
    func configuration(enabled: [String] = [], extra: [String: Any] = [:]) throws -> ConfigurationFile {
        var plist: [String: Any] = ["PluginSearchPaths": ["plugins"], "EnabledProviders": enabled]
        plist.merge(extra) { $1 }
        let path = "\(folder.path)/config.plist"
        try TestPlugins.write(plist, to: path)
        return try ConfigurationFile.locate(option: path, environment: ["HOME": folder.path])
    }

    @discardableResult
    func plugin(_ id: String, name: String? = nil) throws -> String {
        try TestPlugins.fixture(in: "\(folder.path)/plugins", name: name ?? id, plist: TestPlugins.plist(id: id))
    }

    @Test func aFourthProviderIsRefusedNamingTheThree() throws {
        for id in ["org.a.one", "org.a.two", "org.a.three", "org.a.four"] { try plugin(id) }
        var catalog = ProviderCatalog(file: try configuration(enabled: ["org.a.one", "org.a.two", "org.a.three"]))
        let fourth = try catalog.manifest(for: "org.a.four")
        do {
            try catalog.enable(fourth)
            Issue.record("a fourth provider was enabled")
        } catch {
            #expect(error.code == .configuration)
            #expect(error.exitStatus == 78)
            #expect(error.message.contains("3 providers are enabled already (org.a.one, org.a.two, org.a.three)"))
            #expect(error.message.contains("autofill providers disable"))
        }
        #expect(ProviderCatalog(file: try ConfigurationFile.locate(option: "\(folder.path)/config.plist", environment: [:])).enabledIDs.count == 3)
    }

    @Test func aConfigurationListingFourProvidersIsRefused() throws {
        #expect {
            try configuration(enabled: ["org.a.one", "org.a.two", "org.a.three", "org.a.four"])
        } throws: { error in
            (error as? AutofillError)?.message.contains("at most 3 may be enabled") == true
        }
    }

    @Test func duplicateProviderIdsAreRefused() throws {
        try plugin("org.dup.same", name: "First")
        try plugin("org.dup.same", name: "Second")
        let catalog = ProviderCatalog(file: try configuration())
        #expect(throws: AutofillError.self) { try catalog.manifest(for: "org.dup.same") }
        let outside = try TestPlugins.fixture(in: folder.path, name: "Elsewhere", plist: TestPlugins.plist(id: "org.dup.same"))
        do {
            _ = try catalog.resolve(outside)
            Issue.record("a duplicate id was accepted")
        } catch {
            #expect(error.code == .configuration)
            #expect(error.message.contains("two providers cannot share an id"))
        }
        #expect(throws: AutofillError.self) { try configuration(enabled: ["org.x.a", "org.x.a"]) }
    }

    @Test func enablingAppendsSavesAndAddsTheBundlesFolder() throws {
        let outside = try TestPlugins.fixture(in: folder.path, name: "Outside", plist: TestPlugins.plist(id: "org.out.side"))
        var catalog = ProviderCatalog(file: try configuration())
        let (manifest, isNewFolder) = try catalog.resolve(outside)
        #expect(isNewFolder)
        #expect(try catalog.enable(manifest))
        #expect(try !catalog.enable(manifest), "enabling twice is a no-op")
        let reread = try ConfigurationFile.locate(option: "\(folder.path)/config.plist", environment: [:])
        #expect(reread.configuration.enabledProviders == ["org.out.side"])
        #expect(reread.searchPaths.contains(folder.path))
    }

    @Test func orderMovesTheNamedProvidersToTheFront() throws {
        var catalog = ProviderCatalog(file: try configuration(enabled: ["org.a.one", "org.a.two", "org.a.three"]))
        try catalog.order(["org.a.three"])
        #expect(catalog.enabledIDs == ["org.a.three", "org.a.one", "org.a.two"])
        #expect(throws: AutofillError.self) { try catalog.order(["org.a.nope"]) }
        #expect(throws: AutofillError.self) { try catalog.order(["org.a.one", "org.a.one"]) }
    }

    @Test func disablingRemovesTheProviderAndRefusesUnknownIds() throws {
        var catalog = ProviderCatalog(file: try configuration(enabled: ["org.a.one", "org.a.two"]))
        try catalog.disable("org.a.one")
        #expect(catalog.enabledIDs == ["org.a.two"])
        do {
            try catalog.disable("org.a.one")
            Issue.record("disabled twice")
        } catch {
            #expect(error.code == .usage)
            #expect(error.message == "org.a.one is not enabled; enabled providers: org.a.two")
        }
    }

    @Test func theLookupOrderIsOptionThenEnvironmentThenUserThenTheBuiltInDemo() throws {
        let option = "\(folder.path)/option.plist", env = "\(folder.path)/env.plist"
        let user = "\(folder.path)/xdg/autofill/config.plist"
        try FileManager.default.createDirectory(atPath: "\(folder.path)/xdg/autofill", withIntermediateDirectories: true)
        for path in [option, env, user] { try TestPlugins.write(["EnabledProviders": []], to: path) }
        let environment = ["HOME": folder.path, "XDG_CONFIG_HOME": "\(folder.path)/xdg", "AUTOFILL_CONFIG": env]
        #expect(try ConfigurationFile.locate(option: option, environment: environment).source == .option)
        #expect(try ConfigurationFile.locate(option: nil, environment: environment).path == env)
        var withoutEnv = environment
        withoutEnv["AUTOFILL_CONFIG"] = nil
        #expect(try ConfigurationFile.locate(option: nil, environment: withoutEnv).path == user)
        let embedded = try ConfigurationFile.locate(option: nil, environment: ["HOME": folder.path, "XDG_CONFIG_HOME": "\(folder.path)/none"])
        #expect(embedded.source == .embeddedDefault)
        #expect(embedded.path == "\(Repository.root)/Config/config.plist")
        #expect(embedded.writePath == "\(folder.path)/none/autofill/config.plist")
        #expect(embedded.configuration.enabledProviders == ["org.autofill.vault", "org.autofill.netrc", "org.autofill.authenticator"])
        #expect(embedded.demoStores?.path == "\(folder.path)/.local/share/autofill/demo-stores")
        #expect(try embedded.identityStores(environment: ["HOME": folder.path]).path == "\(folder.path)/.local/share/autofill/demo-stores",
                "the demo never uses the user's stores")
        #expect(embedded.demoNotice?.contains("using the built-in demo") == true)
        #expect(try ConfigurationFile.locate(option: nil, environment: withoutEnv).demoNotice == nil)
    }

    @Test func aNamedConfigurationThatDoesNotExistIsAnError() {
        #expect {
            try ConfigurationFile.locate(option: "\(folder.path)/missing.plist", environment: [:])
        } throws: { error in
            guard let error = error as? AutofillError else { return false }
            return error.code == .notFound && error.message.contains("(from --config)")
        }
    }

    @Test func savingTheBuiltInDemoWritesTheUsersFileWithAbsolutePaths() throws {
        var file = try ConfigurationFile.locate(option: nil, environment: ["HOME": folder.path, "XDG_CONFIG_HOME": "\(folder.path)/xdg"])
        file.configuration.enabledProviders.removeLast()
        try file.save()
        let saved = try ConfigurationFile.locate(option: nil, environment: ["HOME": folder.path, "XDG_CONFIG_HOME": "\(folder.path)/xdg"])
        #expect(saved.source == .user)
        #expect(saved.configuration.pluginSearchPaths == ["\(Repository.root)/.build/plugins"])
        #expect(saved.settings(for: "org.autofill.netrc")["NetrcFile"] == "\(Repository.root)/Config/demo/netrc/netrc")
        #expect(saved.configuration.identityStoreDirectory == "\(folder.path)/.local/share/autofill/demo-stores",
                "the user's copy of the demo keeps the demo's own stores")
        let attributes = try FileManager.default.attributesOfItem(atPath: saved.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func anInvalidConfigurationNamesTheKeyPath() throws {
        let path = "\(folder.path)/config.plist"
        try TestPlugins.write(["EnabledProviders": "org.not.an.array"], to: path)
        #expect {
            try ConfigurationFile.locate(option: path, environment: [:])
        } throws: { error in
            guard let error = error as? AutofillError else { return false }
            return error.code == .configuration && error.message.contains("EnabledProviders")
        }
    }

    @Test(arguments: [
        (["EnabledProvider": ["org.a"]], "EnabledProvider is not a configuration key; did you mean EnabledProviders?"),
        (["identitystoredirectory": "s"], "identitystoredirectory is not a configuration key; did you mean IdentityStoreDirectory?"),
        (["Quarantine": ["FaultCounts": 2]], "Quarantine.FaultCounts is not a key of Quarantine; did you mean Quarantine.FaultCount?"),
        (["ProviderIsolation": ["MemoryLimitMb": 100]], "ProviderIsolation.MemoryLimitMb is not a key of ProviderIsolation; did you mean ProviderIsolation.MemoryLimitMB?"),
        (["UserAuthentication": ["Policy": "none", "PAMServce": "x"]], "UserAuthentication.PAMServce is not a key of UserAuthentication; did you mean UserAuthentication.PAMService?"),
    ] as [([String: any Sendable], String)])
    func aNearMissOfAConfigurationKeyIsAnError(extra: [String: any Sendable], message: String) throws {
        let error = try #require(throws: AutofillError.self) { try configuration(extra: extra) }
        #expect(error.code == .configuration)
        #expect(error.message.contains("is invalid: \(message)"), "\(error.message)")
    }

    @Test func unknownKeysThatAreNoNearMissAreWarningsAndFreeFormDictionariesAreNotChecked() throws {
        let file = try configuration(extra: [
            "Comment": "mine", "ProviderSettings": ["org.a": ["AnyKey": "x"]],
            "ProviderIsolation": ["Providers": ["org.whatever": "inProcess"]],
        ])
        #expect(file.warnings == ["Comment is not a configuration key; ignored (the keys are PluginSearchPaths, EnabledProviders, ProviderSettings, NoUIDeadlineSeconds, UIIdleTimeoutSeconds, IdentityStoreDirectory, UserAuthentication, Quarantine, ProviderIsolation, AgentIdleTimeoutSeconds)"])
    }

    @Test func theNoUIDeadlineDefaultsToThreeSeconds() throws {
        #expect(try configuration().configuration.noUIDeadline == .seconds(3))
        #expect(try configuration(extra: ["NoUIDeadlineSeconds": 0.5]).configuration.noUIDeadline == .milliseconds(500))
        #expect(throws: AutofillError.self) { try configuration(extra: ["NoUIDeadlineSeconds": -1.0]) }
    }

    @Test func providersRunInHelperProcessesUnlessTheConfigurationSaysOtherwise() throws {
        let plain = try configuration().configuration
        #expect(plain.isolation(for: "org.any") == .helperProcess)
        #expect(plain.helperOptions == HelperOptions())
        let mixed = try configuration(extra: ["ProviderIsolation": [
            "Default": "inProcess", "Providers": ["org.untrusted": "helperProcess"], "MemoryLimitMB": 300, "LoadDeadlineSeconds": 2.5,
        ]]).configuration
        #expect(mixed.isolation(for: "org.any") == .inProcess)
        #expect(mixed.isolation(for: "org.untrusted") == .helperProcess)
        #expect(mixed.helperOptions == HelperOptions(memoryLimitMegabytes: 300, loadDeadline: .milliseconds(2500)))
    }

    @Test(arguments: [
        (["Default": "sandbox"], "ProviderIsolation.Default is \"sandbox\"; use helperProcess, inProcess or unsandboxed"),
        (["Providers": ["org.x": "inprocess"]], "ProviderIsolation.Providers.org.x is \"inprocess\"; use helperProcess, inProcess or unsandboxed"),
        (["MemoryLimitMB": 8], "ProviderIsolation.MemoryLimitMB is 8; give a number of megabytes from 64 to 1048576, or 0 for no limit"),
        (["LoadDeadlineSeconds": 0], "ProviderIsolation.LoadDeadlineSeconds is 0.0; give a number of seconds above 0 and at most 600"),
    ] as [([String: any Sendable], String)])
    func anUnknownIsolationValueIsAConfigurationErrorNamingTheKey(isolation: [String: any Sendable], message: String) throws {
        let error = try #require(throws: AutofillError.self) { try configuration(extra: ["ProviderIsolation": isolation]) }
        #expect(error.code == .configuration)
        #expect(error.message.hasSuffix("is invalid: \(message)"), "\(error.message)")
    }

    @Test func enablingKeepsTheIsolationSettings() throws {
        try plugin("org.a")
        var catalog = ProviderCatalog(file: try configuration(extra: ["ProviderIsolation": ["Providers": ["org.a": "inProcess"]]]))
        _ = try catalog.enable(try catalog.resolve("org.a").manifest)
        let saved = try ConfigurationFile.locate(option: "\(folder.path)/config.plist", environment: ["HOME": folder.path])
        #expect(saved.configuration.isolation(for: "org.a") == .inProcess)
    }
}
