import AutofillCore
@testable import AutofillHost
import Foundation
import Logging
import Testing

/// A prompt headed `[Vault]` names exactly one provider, never the host; an id belongs to the bundle
/// the user approved. Display names are checked when a plist is read and when a provider is enabled;
/// a configuration that already breaks the rule is settled with a warning, not refused.
struct ProviderNamesTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: "\(folder.path)/plugins", withIntermediateDirectories: true)
    }

    func configuration(enabled: [String] = [], searchPaths: [String] = ["plugins"]) throws -> ConfigurationFile {
        let path = "\(folder.path)/config.plist"
        try TestPlugins.write(["PluginSearchPaths": searchPaths, "EnabledProviders": enabled, "IdentityStoreDirectory": "stores"], to: path)
        return try ConfigurationFile.locate(option: path, environment: ["HOME": folder.path])
    }

    @discardableResult
    func plugin(_ id: String, name: String, in subfolder: String = "plugins", bundleName: String? = nil, defines: [String] = []) throws -> String {
        try FileManager.default.createDirectory(atPath: "\(folder.path)/\(subfolder)", withIntermediateDirectories: true)
        return try TestPlugins.fixture(in: "\(folder.path)/\(subfolder)", name: bundleName ?? id, plist: TestPlugins.plist(id: id, name: name), defines: defines)
    }

    func setup(_ file: ConfigurationFile) throws -> ProviderSetup {
        ProviderSetup(catalog: ProviderCatalog(file: file), stores: try file.identityStores(environment: [:]),
                      records: HostRecords(path: "\(folder.path)/records"), logger: Logger(label: "test"))
    }

    @Test(arguments: [
        ("Vault", "vault"), ("V a u l t", "vault"), ("Vau1t", "vault"), ("VauIt", "vault"), ("Vаult", "vault"),  // Cyrillic а
        ("Ｖａｕｌｔ", "vault"), ("Vâúlt", "vault"), ("Vault\u{200B}", "vault"), ("Vault.", "vault"), ("Corn", "com"),
        ("𝐕𝐚𝐮𝐥𝐭", "vault"), ("Bitwarden", "bltwarden"), ("1Password", "lpassword"),
    ])
    func namesAreComparedAsTheyReadAtAGlance(name: String, skeleton: String) {
        #expect(ProviderDisplayName.skeleton(name) == skeleton)
    }

    @Test(arguments: ["autofill", "AutoFill", "auto fill", "Auto-Fill", "Аutofill", "autofi11", "AUTOFILL."])
    func aProviderCannotCallItselfAutofill(name: String) throws {
        let (manifest, problems) = ManifestReader.read(bundle: try plugin("org.test.host", name: name))
        #expect(manifest == nil)
        #expect(problems.map(\.keyPath) == ["CFBundleDisplayName"])
        #expect(problems.first?.message.contains("reads as \"autofill\", the name of the host's own prompts") == true)
    }

    @Test(arguments: [
        ("Va\u{1b}[31mult", #""Va\u{1b}[31mult" holds control characters, escape sequences or bidi controls"#),
        ("Vault\n[autofill]", #""Vault\n[autofill]" holds control characters, escape sequences or bidi controls"#),
        ("\u{202e}tluaV", #""\u{202e}tluaV" holds control characters, escape sequences or bidi controls"#),
        (String(repeating: "V", count: 65), "is 65 characters long, over the limit of 64"),
        ("...", #""..." has no letters or digits"#),
    ])
    func aDisplayNameMustBePlainShortText(name: String, message: String) throws {
        let (manifest, problems) = ManifestReader.read(bundle: try plugin("org.test.name", name: name))
        #expect(manifest == nil)
        #expect(problems.first?.message.contains(message) == true, "\(problems)")
        #expect(!problems.description.contains("\u{1b}"))
    }

    @Test func enablingAProviderNamedLikeAnEnabledOneIsRefused() throws {
        try plugin("org.real.vault", name: "Vault")
        let impostor = try plugin("org.evil.vault", name: "Vau1t")
        var catalog = ProviderCatalog(file: try configuration(enabled: ["org.real.vault"]))
        for attempt in ["org.evil.vault", impostor] {
            do {
                _ = try catalog.resolve(attempt)
                Issue.record("\(attempt) was accepted")
            } catch {
                #expect(error.code == .configuration)
                #expect(error.message.contains(
                    "cannot enable Vau1t (org.evil.vault): its display name looks like that of the enabled provider Vault (org.real.vault)"))
            }
        }
        #expect(throws: AutofillError.self) { try catalog.enable(try catalog.manifest(for: "org.evil.vault")) }
        #expect(catalog.enabledIDs == ["org.real.vault"])
        #expect(try catalog.resolve("org.real.vault").manifest.displayName == "Vault", "an enabled provider is not its own rival")
    }

    @Test func aConfigurationEnablingTwoLookAlikesNamesBothByID() throws {
        try plugin("org.real.vault", name: "Vault")
        try plugin("org.evil.vault", name: "VAULT")
        try plugin("org.other.netrc", name: "Netrc")
        let catalog = ProviderCatalog(file: try configuration(enabled: ["org.real.vault", "org.evil.vault", "org.other.netrc"]))
        #expect(try catalog.manifest(for: "org.real.vault").displayName == "Vault (org.real.vault)")
        #expect(try catalog.manifest(for: "org.evil.vault").displayName == "VAULT (org.evil.vault)")
        #expect(try catalog.manifest(for: "org.other.netrc").displayName == "Netrc")
        #expect(catalog.warnings == [
            "the enabled providers Vault (org.real.vault) and VAULT (org.evil.vault) have display names that look alike; autofill names them with their ids until you disable one (`autofill providers disable ID`)",
        ])
    }

    @Test func anEnabledIDGoesToTheBundleWhoseFilesTheUserApproved() throws {
        let real = try plugin("org.test.netrc", name: "Netrc", bundleName: "Netrc")
        let file = try configuration(enabled: ["org.test.netrc"], searchPaths: ["plugins", "elsewhere"])
        let approved = try setup(file)
        let manifest = try approved.catalog.manifest(for: "org.test.netrc")
        try approved.trustRecords.save(
            TrustRecord(fingerprint: try PluginFingerprint(of: manifest), bundle: real, executable: manifest.executable,
                        recorded: Date(), origin: .enabled),
            for: "org.test.netrc")
        // An impostor arrives in another search folder, declaring the same id.
        let impostor = try plugin("org.test.netrc", name: "Netrc", in: "elsewhere", bundleName: "AAA", defines: ["FIXTURE_PRINT_AT_LOAD"])
        let later = try setup(try configuration(enabled: ["org.test.netrc"], searchPaths: ["plugins", "elsewhere"]))
        #expect(try later.catalog.manifest(for: "org.test.netrc").bundlePath == real)
        #expect(later.catalog.warnings == [
            "ignoring \(impostor): it declares org.test.netrc, the id of the enabled provider at \(real), whose files are the ones you approved; remove it",
        ])
        #expect(later.catalog.plugins.first { $0.bundlePath == impostor }?.ignoredBecause != nil)
    }

    @Test func withoutAnApprovedBundleADuplicatedIDStaysAmbiguousAndSaysSo() throws {
        let one = try plugin("org.test.dup", name: "Dup", bundleName: "One")
        let two = try plugin("org.test.dup", name: "Dup", bundleName: "Two")
        let setup = try setup(try configuration(enabled: ["org.test.dup"]))
        #expect(setup.catalog.warnings.first?.contains("autofill cannot tell which one you approved") == true)
        do {
            _ = try setup.catalog.manifest(for: "org.test.dup")
            Issue.record("an ambiguous id was resolved")
        } catch {
            #expect(error.message == "provider id org.test.dup is declared by 2 bundles: \(one), \(two), and the files of none (or of more than one) of them are the ones you approved; remove all but the one you mean")
        }
    }
}
