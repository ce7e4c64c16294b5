import AutofillCore
@testable import AutofillHost
@testable import AutofillProviderRuntime
import Foundation
import Testing

/// The host's own reading of a library's dynamic symbols (`plugin validate` and `providers enable`
/// check the entry symbol with it, before any code of the plugin runs): it finds what `dlsym` finds,
/// from the file alone, and a damaged file is a problem, never a crash or a hang.
struct ELFDynamicSymbolsTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    /// Compiles C `source` into a shared library with `flags` and returns its path.
    func library(_ source: String, flags: [String] = [], name: String = "lib.so") throws -> String {
        let file = try folder.file("\(name).c", source)
        let output = "\(folder.path)/\(name)"
        let (status, text) = try TestPlugins.run("/usr/bin/cc", ["-shared", "-fPIC", "-o", output, file] + flags)
        guard status == 0 else { throw TestFailure("cc failed: \(text)") }
        return output
    }

    static let source = """
        __attribute__((visibility("default"))) int exported_variable = 1;
        __attribute__((visibility("default"))) void exported_function(void) {}
        __attribute__((visibility("hidden"))) void hidden_function(void) {}
        static void local_function(void) {}
        __attribute__((weak, visibility("default"))) void weak_function(void) { local_function(); }
        extern void *malloc(unsigned long);
        __attribute__((visibility("default"))) void *uses_an_import(void) { return malloc(1); }
        """

    @Test(arguments: ["sysv", "gnu", "both"])
    func aNameIsFoundAsTheDynamicLoaderFindsIt(hashStyle: String) throws {
        let path = try library(Self.source, flags: ["-Wl,--hash-style=\(hashStyle)"])
        #expect(try ELFDynamicSymbols.lookup("exported_function", inLibrary: path) == .function)
        #expect(try ELFDynamicSymbols.lookup("weak_function", inLibrary: path) == .function)
        #expect(try ELFDynamicSymbols.lookup("exported_variable", inLibrary: path) == .notFunction)
        for absent in ["hidden_function", "local_function", "malloc", "exported", "exported_function_", "", "no_such_name"] {
            #expect(try ELFDynamicSymbols.lookup(absent, inLibrary: path) == .absent, "\(absent)")
        }
        // dlsym agrees, name by name.
        let handle = try #require(dlopen(path, RTLD_NOW | RTLD_LOCAL))
        for name in ["exported_function", "weak_function", "hidden_function", "local_function", "no_such_name"] {
            let found = try ELFDynamicSymbols.lookup(name, inLibrary: path) == .function
            #expect((dlsym(handle, name) != nil) == found, "\(name)")
        }
    }

    @Test func theSamplePluginsAndTheFixtureExportTheirEntryFunctions() throws {
        for sample in ["VaultProvider", "NetrcProvider", "AuthenticatorProvider"] {
            let bundle = try TestPlugins.copyOfSample(sample, into: folder.path)
            let manifest = try #require(ManifestReader.read(bundle: bundle).manifest)
            #expect(PluginProblem.entrySymbolCheck(manifest) == nil, "\(sample)")
        }
        let fixture = try TestPlugins.fixture(in: folder.path, plist: TestPlugins.plist(id: "org.test.fixture", entry: "no_such_entry"))
        let manifest = try #require(ManifestReader.read(bundle: fixture).manifest)
        let problem = try #require(PluginProblem.entrySymbolCheck(manifest))
        #expect(problem.code == .missingEntrySymbol)
        #expect(problem.message == "the library exports no function named no_such_entry")
    }

    @Test func aLibraryWithoutSectionHeadersIsReadFromItsDynamicSegment() throws {
        // The dynamic loader never reads section headers; neither does the host.
        let path = try library(Self.source)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        for offset in 40..<48 { bytes[offset] = 0 }  // e_shoff
        for offset in 60..<64 { bytes[offset] = 0 }  // e_shnum, e_shstrndx
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try ELFDynamicSymbols.lookup("exported_function", inLibrary: path) == .function)
        #expect(dlopen(path, RTLD_NOW | RTLD_LOCAL) != nil, "control: the loader still loads it")
    }

    @Test func filesThatAreNoSharedLibraryAreProblemsNamingWhy() throws {
        let text = try folder.file("text.so", "not a library\n")
        #expect(throws: ELFDynamicSymbols.Failure.self) { try ELFDynamicSymbols.lookup("x", inLibrary: text) }
        #expect(throws: ELFDynamicSymbols.Failure.self) { try ELFDynamicSymbols.lookup("x", inLibrary: "\(folder.path)/missing.so") }
        let path = try library(Self.source)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = "\(folder.path)/cut.so"
        try whole.prefix(200).write(to: URL(fileURLWithPath: cut))
        let error = try #require(throws: ELFDynamicSymbols.Failure.self) { try ELFDynamicSymbols.lookup("exported_function", inLibrary: cut) }
        #expect(error.message.contains("past its end"), "\(error.message)")

        let manifest = PluginManifest.testManifest(library: text)
        let problem = try #require(PluginProblem.entrySymbolCheck(manifest))
        #expect(problem.code == .notSharedLibrary)
        #expect(problem.message == "its dynamic symbol table cannot be read: the file has no ELF header (it is 14 bytes long)")
    }

    @Test func aDamagedLibraryNeverCrashesOrHangsTheReader() throws {
        // 300 copies with bytes changed in the headers and tables the reader follows: each is read to an
        // answer or an error, quickly.
        let path = try library(Self.source, flags: ["-Wl,--hash-style=both"])
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var random = SplitMix64(seed: 10)
        let damaged = "\(folder.path)/damaged.so"
        let start = ContinuousClock.now
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<8 {
                let offset = Int(random.next() % UInt64(min(bytes.count, 16 << 10)))
                bytes[offset] = UInt8(truncatingIfNeeded: random.next())
            }
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            _ = try? ELFDynamicSymbols.lookup("exported_function", inLibrary: damaged)
        }
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    @Test func validateChecksTheEntrySymbolItselfWhateverThePluginsCodeSays() throws {
        // The library forges a `loaded` frame (no problems, every entry point) from a constructor, and
        // lacks the entry symbol its plist names.
        let bundle = try TestPlugins.fixture(
            in: folder.path, plist: TestPlugins.plist(id: "org.test.forger", entry: "missing_entry"), defines: ["FIXTURE_FORGE_LOADED"])
        let validation = HelperConnection.validate(
            bundle: bundle, services: ProviderServices(store: InMemoryIdentityStore(), logger: log.logger))
        #expect(!validation.isValid)
        #expect(validation.problems.map(\.code) == [.missingEntrySymbol])
        #expect(validation.entryPoints == nil)
    }
}

extension PluginManifest {
    /// A manifest whose library is `library` and entry symbol `entry`, for checks of the library alone.
    static func testManifest(library: String, entry: String = "fixture_provider_entry") -> PluginManifest {
        let folder = (library as NSString).deletingLastPathComponent
        return PluginManifest(
            bundlePath: folder, identifier: "org.test.elf", displayName: "ELF", executable: (library as NSString).lastPathComponent,
            capabilities: Capabilities(.providesPasswords), abiVersion: 1, entrySymbol: entry)
    }
}
