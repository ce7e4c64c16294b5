import AutofillCore
@testable import AutofillHost
import Foundation
import Testing

/// A bundle that merely sits in a search folder can never break a command: an Info.plist (or a
/// configuration) nested without end, referring to itself, expanding to billions of values, too
/// large, or not a file at all is reported as a problem at once, never a crash or a hang.
struct PlistGuardTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    func bundle(plist: Data, name: String = "Hostile", library: Bool = true) throws -> String {
        let bundle = try TestPlugins.fixture(in: folder.path, name: name, plist: TestPlugins.plist(id: "org.test.hostile"), defines: library ? [] : nil)
        try plist.write(to: URL(fileURLWithPath: "\(bundle)/Info.plist"))
        return bundle
    }

    func readTimed(_ bundle: String) -> (manifest: PluginManifest?, problems: [PluginProblem], seconds: Double) {
        let start = ContinuousClock.now
        let (manifest, problems) = ManifestReader.read(bundle: bundle)
        let elapsed = ContinuousClock.now - start
        return (manifest, problems, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test(arguments: [4_000, 30_000])
    func aDeeplyNestedInfoPlistIsInvalidNotACrash(depth: Int) throws {
        let path = try bundle(plist: HostilePlists.nestedXML(depth: depth, around: TestPlugins.plist(id: "org.test.deep")))
        let (manifest, problems, _) = readTimed(path)
        #expect(manifest == nil)
        #expect(problems.map(\.code) == [.malformedPlist])
        #expect(problems.first?.message == "refused before reading it: nested more than 64 levels deep, the most autofill reads")
        #expect(problems.first?.fix.contains("64 levels deep") == true)
    }

    @Test func aPlistNestedUpToTheLimitIsRead() throws {
        // <plist> and the top <dict> are two levels, <key>Deep</key> sits in the dict: 62 arrays fit.
        let path = try bundle(plist: HostilePlists.nestedXML(depth: 62, around: TestPlugins.plist(id: "org.test.deep")))
        #expect(ManifestReader.read(bundle: path).manifest?.identifier == "org.test.deep")
        let over = try bundle(plist: HostilePlists.nestedXML(depth: 63, around: TestPlugins.plist(id: "org.test.deep")), name: "Over")
        #expect(ManifestReader.read(bundle: over).problems.map(\.code) == [.malformedPlist])
    }

    @Test func aBinaryPlistWhoseArrayContainsItselfIsInvalidAtOnce() throws {
        #expect(HostilePlists.selfReferencingBinary.count == 43)
        let (manifest, problems, seconds) = readTimed(try bundle(plist: HostilePlists.selfReferencingBinary))
        #expect(manifest == nil)
        #expect(problems.first?.message == "refused before reading it: a binary property list whose object 0 contains itself (a reference cycle)")
        #expect(seconds < 1)
    }

    @Test func aBinaryPlistThatExpandsToBillionsOfValuesIsInvalidAtOnce() throws {
        let (manifest, problems, seconds) = readTimed(try bundle(plist: HostilePlists.expandingBinary(levels: 40)))
        #expect(manifest == nil)
        #expect(problems.first?.message.contains("expands to more than 100000 values") == true)
        #expect(seconds < 2)
    }

    @Test func aDeepBinaryPlistIsInvalid() throws {
        let (manifest, problems, _) = readTimed(try bundle(plist: HostilePlists.deepBinary(depth: 5_000)))
        #expect(manifest == nil)
        #expect(problems.first?.message == "refused before reading it: nested more than 64 levels deep, the most autofill reads")
    }

    @Test func aBinaryPlistWithOffsetsOutsideTheFileIsInvalid() throws {
        var bytes = [UInt8](HostilePlists.selfReferencingBinary)
        bytes[bytes.count - 1] = 0xFF  // the offset table "starts" past the end
        let (manifest, problems, _) = readTimed(try bundle(plist: Data(bytes)))
        #expect(manifest == nil)
        #expect(problems.first?.message.contains("point outside the file") == true)
    }

    @Test func aPlistOverOneMiBIsRefused() throws {
        let padding = "<!-- " + String(repeating: "x", count: 1 << 20) + " -->"
        let valid = try PropertyListSerialization.data(fromPropertyList: TestPlugins.plist(id: "org.test.big"), format: .xml, options: 0)
        let (manifest, problems, _) = readTimed(try bundle(plist: Data(padding.utf8) + valid))
        #expect(manifest == nil)
        #expect(problems.first?.message.contains("over the limit of 1048576 bytes (1 MiB)") == true)
    }

    @Test func anInfoPlistThatIsAFIFOIsRefusedWithoutBlocking() throws {
        let path = try bundle(plist: Data())
        try FileManager.default.removeItem(atPath: "\(path)/Info.plist")
        #expect(mkfifo("\(path)/Info.plist", 0o644) == 0)
        let (manifest, problems, seconds) = readTimed(path)
        #expect(manifest == nil)
        #expect(problems.first?.message == "refused before reading it: is not a regular file")
        #expect(seconds < 1)
    }

    @Test func aLibraryThatIsAFIFOIsNotASharedLibraryAndNothingBlocks() throws {
        let path = try TestPlugins.fixture(in: folder.path, name: "Fifo", plist: TestPlugins.plist(id: "org.test.fifo"), defines: nil)
        #expect(mkfifo("\(path)/libFixture.so", 0o644) == 0)
        let (manifest, problems, seconds) = readTimed(path)
        #expect(manifest == nil)
        #expect(problems.map(\.code) == [.notSharedLibrary])
        #expect(seconds < 1)
    }

    @Test func commentsCDATAAndADocumentTypeDoNotCountAsNesting() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd" [ <!ENTITY x "<y>"> ]>
            <!-- <array><array><array> -->
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string><![CDATA[org.test.cdata]]></string>
            <key>CFBundleDisplayName</key><string attr="a>b">Commented</string>
            <key>CFBundleExecutable</key><string>libFixture.so</string>
            <key>AFProviderABIVersion</key><integer>1</integer>
            <key>AFProviderEntrySymbol</key><string>fixture_provider_entry</string>
            <key>NSExtension</key><dict>
            <key>NSExtensionPointIdentifier</key><string>com.apple.authentication-services-credential-provider-ui</string>
            <key>NSExtensionAttributes</key><dict><key>ASCredentialProviderExtensionCapabilities</key>
            <dict><key>ProvidesPasswords</key><true/></dict></dict></dict>
            </dict></plist>
            """
        #expect(throws: Never.self) { try PlistGuard.check(Data(text.utf8)) }
        let deepComment = "<plist><!--" + String(repeating: "<array>", count: 100) + "--><dict/></plist>"
        #expect(throws: Never.self) { try PlistGuard.check(Data(deepComment.utf8)) }
    }

    @Test func aUTF16PlistIsStillRead() throws {
        let xml = try PropertyListSerialization.data(fromPropertyList: TestPlugins.plist(id: "org.test.utf16"), format: .xml, options: 0)
        let text = String(decoding: xml, as: UTF8.self).replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"UTF-16\"")
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(ManifestReader.read(bundle: try bundle(plist: Data(utf16))).manifest?.identifier == "org.test.utf16")
    }

    @Test func formatsOtherThanXMLAndBinaryAreRefused() throws {
        let (_, problems, _) = readTimed(try bundle(plist: Data("{ CFBundleIdentifier = \"org.test.openstep\"; }".utf8)))
        #expect(problems.first?.message == "refused before reading it: is neither an XML nor a binary property list (the only formats autofill reads)")
    }

    @Test func aHostileConfigurationIsAnErrorNotACrash() throws {
        let path = "\(folder.path)/config.plist"
        try HostilePlists.nestedXML(depth: 30_000, around: ["PluginSearchPaths": ["plugins"], "EnabledProviders": []]).write(to: URL(fileURLWithPath: path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count > 300_000)
        do {
            _ = try ConfigurationFile.read(path: path, source: .option, writePath: path, home: folder.path)
            Issue.record("a configuration nested 30,000 deep was read")
        } catch {
            #expect(error.code == .configuration)
            #expect(error.message == "the configuration \(path) is invalid: nested more than 64 levels deep, the most autofill reads")
        }
        try HostilePlists.selfReferencingBinary.write(to: URL(fileURLWithPath: path))
        #expect(throws: AutofillError.self) { try ConfigurationFile.read(path: path, source: .option, writePath: path, home: folder.path) }
    }
}
