import AutofillCore
import AutofillHost
import Foundation
import Testing

/// Broken and valid Info.plists: each problem is reported with its file, key path and fix,
/// and nothing of the plugin runs while the plist is read.
struct ManifestReaderTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    func bundle(_ plist: [String: Any], binary: Bool = false, library: Bool = true) throws -> String {
        try TestPlugins.fixture(in: folder.path, plist: plist, defines: library ? [] : nil, binary: binary)
    }

    @Test func aValidPlistGivesTheManifest() throws {
        let path = try bundle(TestPlugins.plist(id: "org.test.valid", capabilities: ["ProvidesPasswords": true, "ProvidesTextToInsert": true]))
        let (manifest, problems) = ManifestReader.read(bundle: path)
        #expect(problems.isEmpty)
        #expect(manifest?.identifier == "org.test.valid")
        #expect(manifest?.displayName == "Fixture")
        #expect(manifest?.capabilities == [.init(.providesPasswords), .init(.providesTextToInsert)])
        #expect(manifest?.entrySymbol == "fixture_provider_entry")
    }

    @Test func aBinaryPlistReadsLikeAnXMLOne() throws {
        let path = try bundle(TestPlugins.plist(id: "org.test.binary"), binary: true)
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(path)/Info.plist"))
        #expect(data.starts(with: Array("bplist".utf8)))
        #expect(ManifestReader.read(bundle: path).manifest?.identifier == "org.test.binary")
    }

    @Test func aBundleWithoutAPlistIsReported() throws {
        let path = "\(folder.path)/Empty.afprovider"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let (manifest, problems) = ManifestReader.read(bundle: path)
        #expect(manifest == nil)
        #expect(problems.map(\.code) == [.missingPlist])
        #expect(problems[0].file == "\(path)/Info.plist")
    }

    @Test func aMissingBundleIsReported() {
        let (_, problems) = ManifestReader.read(bundle: "\(folder.path)/Nowhere.afprovider")
        #expect(problems.map(\.code) == [.bundleNotFound])
    }

    @Test func aMalformedPlistIsReportedWithHowToFindTheError() throws {
        let path = "\(folder.path)/Malformed.afprovider"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("<?xml version=\"1.0\"?><plist><dict><key>CFBundleIdentifier</key>".utf8)
            .write(to: URL(fileURLWithPath: "\(path)/Info.plist"))
        let (manifest, problems) = ManifestReader.read(bundle: path)
        #expect(manifest == nil)
        #expect(problems.map(\.code) == [.malformedPlist])
        #expect(problems[0].fix.contains("plistlib.load"))
    }

    @Test func wrongValueTypesNameTheKeyPathAndTheExpectedType() throws {
        var plist = TestPlugins.plist(id: "org.test.types")
        plist["CFBundleDisplayName"] = 42
        plist["NSExtension"] = [
            "NSExtensionPointIdentifier": PluginManifest.extensionPointIdentifier,
            "NSExtensionAttributes": ["ASCredentialProviderExtensionCapabilities": ["ProvidesPasswords": 1, "ProvidesTextToInsert": true]],
        ]
        let (manifest, problems) = ManifestReader.read(bundle: try bundle(plist))
        #expect(manifest == nil)
        let byPath = Dictionary(uniqueKeysWithValues: problems.map { ($0.keyPath ?? "", $0) })
        let capability = try #require(byPath["NSExtension.NSExtensionAttributes.ASCredentialProviderExtensionCapabilities.ProvidesPasswords"])
        #expect(capability.code == .wrongType)
        #expect(capability.message == "expected a Boolean, found a Number (integer)")
        #expect(capability.fix == "write <true/> or <false/>")
        #expect(byPath["CFBundleDisplayName"]?.message == "expected a String, found a Number (integer)")
    }

    @Test func everyMissingKeyIsReportedAtOnce() throws {
        let (manifest, problems) = ManifestReader.read(bundle: try bundle(["CFBundleIdentifier": "org.test.sparse"], library: false))
        #expect(manifest == nil)
        let missing = Set(problems.filter { $0.code == .missingKey }.compactMap(\.keyPath))
        #expect(missing == ["CFBundleDisplayName", "CFBundleExecutable", "NSExtension", "AFProviderABIVersion", "AFProviderEntrySymbol"])
    }

    @Test func anUnknownExtensionPointIsRefused() throws {
        var plist = TestPlugins.plist(id: "org.test.point")
        plist["NSExtension"] = [
            "NSExtensionPointIdentifier": "com.apple.share-services",
            "NSExtensionAttributes": ["ASCredentialProviderExtensionCapabilities": ["ProvidesPasswords": true]],
        ]
        let (manifest, problems) = ManifestReader.read(bundle: try bundle(plist))
        #expect(manifest == nil)
        let problem = try #require(problems.first { $0.code == .unknownExtensionPoint })
        #expect(problem.keyPath == "NSExtension.NSExtensionPointIdentifier")
        #expect(problem.message.contains("com.apple.share-services"))
        #expect(problem.fix.contains(PluginManifest.extensionPointIdentifier))
    }

    @Test func aWrongABIVersionIsRefusedBeforeAnyCodeRuns() throws {
        var plist = TestPlugins.plist(id: "org.test.abi")
        plist["AFProviderABIVersion"] = 2
        let path = try TestPlugins.fixture(in: folder.path, plist: plist, defines: ["FIXTURE_ENTRY_RETURNS_NULL"])
        let log = LogCapture()
        let validation = PluginLoader.validate(
            bundle: path, services: ProviderServices(store: .disabledForTests, logger: log.logger))
        #expect(!validation.isValid)
        #expect(validation.entryPoints == nil)
        let problem = try #require(validation.problems.first)
        #expect(problem.code == .abiVersionMismatch)
        #expect(problem.message == "the plugin was built for provider ABI version 2, this host speaks version 1")
        #expect(!log.contains("refusing to load"), "the entry function must not have run")
    }

    @Test func theLegacyConfigurationKeyIsHonoured() throws {
        var plist = TestPlugins.plist(id: "org.test.legacy")
        plist["NSExtension"] = [
            "NSExtensionPointIdentifier": PluginManifest.extensionPointIdentifier,
            "NSExtensionAttributes": [
                "ASCredentialProviderExtensionCapabilities": ["ProvidesPasswords": true],
                "ASCredentialProviderExtensionShowsConfigurationUI": true,
            ],
        ]
        let manifest = try #require(ManifestReader.read(bundle: try bundle(plist)).manifest)
        #expect(manifest.capabilities.contains(.showsConfigurationUI))
    }

    @Test func unknownCapabilityKeysAreWarningsAndTheIOS26KeysAreCapabilities() throws {
        let path = try bundle(TestPlugins.plist(
            id: "org.test.keys", capabilities: ["ProvidesPasswords": true, "ProvidesTeleportation": true, "SupportsCredentialUpdate": true]))
        let (manifest, problems) = ManifestReader.read(bundle: path)
        #expect(manifest?.capabilities.contains(.supportsCredentialUpdate) == true)
        #expect(problems.count == 1)
        #expect(problems.allSatisfy { $0.severity == .warning && $0.code == .unknownKey })
        #expect(problems.contains { $0.fix.contains("check the spelling") })
    }

    @Test(arguments: ["ProvidesPassword", "providesOneTimeCodes", "ShowConfigurationUI"])
    func aMisspelledCapabilityKeyIsAnError(key: String) throws {
        let (manifest, problems) = ManifestReader.read(bundle: try bundle(TestPlugins.plist(
            id: "org.test.typo", capabilities: ["ProvidesTextToInsert": true, key: true])))
        #expect(manifest == nil)
        let problem = try #require(problems.first)
        #expect(problem.severity == .error)
        #expect(problem.message.contains("did you mean"))
    }

    @Test(arguments: [
        (["ProvidesPasswords": false] as [String: Bool], "declares nothing to provide"),
        (["SupportsConditionalPasskeyRegistration": true, "ProvidesPasswords": true], "conditional passkey registration needs ProvidesPasskeys"),
    ])
    func capabilityCombinationsThatCannotWorkAreRefused(capabilities: [String: Bool], message: String) throws {
        let (manifest, problems) = ManifestReader.read(bundle: try bundle(TestPlugins.plist(id: "org.test.combo", capabilities: capabilities)))
        #expect(manifest == nil)
        #expect(problems.contains { $0.code == .invalidValue && $0.message == message })
    }

    @Test func aLibraryThatIsNotThereIsReported() throws {
        let (manifest, problems) = ManifestReader.read(bundle: try bundle(TestPlugins.plist(id: "org.test.nolib"), library: false))
        #expect(manifest == nil)
        #expect(problems.map(\.code) == [.libraryNotFound])
        #expect(problems[0].message.contains("libFixture.so"))
    }

    @Test func aFileThatIsNotASharedLibraryIsRefusedWithoutLoadingIt() throws {
        let path = try bundle(TestPlugins.plist(id: "org.test.notso"), library: false)
        try Data("#!/bin/sh\necho not a library\n".utf8).write(to: URL(fileURLWithPath: "\(path)/libFixture.so"))
        let (manifest, problems) = ManifestReader.read(bundle: path)
        #expect(manifest == nil)
        #expect(problems.map(\.code) == [.notSharedLibrary])
        #expect(problems[0].fix.contains("cc -shared -fPIC"))
    }

    @Test(arguments: ["", "noDots", "bad..dots", "has space.x", "ünï.code"])
    func malformedProviderIdsAreRefused(id: String) throws {
        let (manifest, problems) = ManifestReader.read(bundle: try bundle(TestPlugins.plist(id: id)))
        #expect(manifest == nil)
        #expect(problems.contains { $0.keyPath == "CFBundleIdentifier" })
    }
}

extension CredentialIdentityStore where Self == InMemoryIdentityStore {
    /// A store that refuses writes, as during validation.
    static var disabledForTests: InMemoryIdentityStore { InMemoryIdentityStore(isEnabled: false) }
}
