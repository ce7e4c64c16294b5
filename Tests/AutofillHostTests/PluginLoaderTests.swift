import AutofillCore
import AutofillHost
import Foundation
import Testing

/// Loading real `.so` files: the three samples, and C fixtures broken on purpose.
struct PluginLoaderTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    var services: ProviderServices { ProviderServices(store: .disabledForTests, logger: log.logger) }

    @Test(arguments: [
        ("VaultProvider", "org.autofill.vault", EntryPoints.all),
        ("AuthenticatorProvider", "org.autofill.authenticator",
         EntryPoints([.prepareOneTimeCodeList, .provideCredentialWithoutUserInteraction, .prepareInterfaceToProvideCredential])),
        ("NetrcProvider", "org.autofill.netrc",
         EntryPoints([.prepareCredentialList, .provideCredentialWithoutUserInteraction, .prepareInterfaceToProvideCredential,
                      .prepareInterfaceForExtensionConfiguration])),
    ])
    func theSamplePluginsLoadThroughTheABI(sample: String, id: String, entryPoints: EntryPoints) throws {
        let bundle = try TestPlugins.copyOfSample(sample, into: folder.path)
        let validation = PluginLoader.validate(bundle: bundle, services: services)
        #expect(validation.isValid, "\(validation.problems)")
        #expect(validation.manifest?.identifier == id)
        #expect(validation.entryPoints == entryPoints)
    }

    @Test func theCSampleNeedsNothingButLibc() throws {
        let library = "\(Repository.builtBundles)/NetrcProvider.afprovider/libNetrcProvider.so"
        let (status, output) = try TestPlugins.run("/usr/bin/ldd", [library])
        #expect(status == 0)
        #expect(!output.contains("swift"))
        let needed = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("linux-vdso") && !$0.contains("ld-linux") }
        #expect(needed.count == 1 && needed[0].hasPrefix("libc.so.6"), "\(needed)")
    }

    @Test func aMissingEntrySymbolIsReportedWithHowToListExports() throws {
        let bundle = try TestPlugins.fixture(in: folder.path, plist: TestPlugins.plist(id: "org.test.symbol", entry: "no_such_entry"))
        let validation = PluginLoader.validate(bundle: bundle, services: services)
        let problem = try #require(validation.problems.first)
        #expect(validation.problems.count == 1)
        #expect(problem.code == .missingEntrySymbol)
        #expect(problem.message == "the library exports no function named no_such_entry")
        #expect(problem.fix.contains("nm -D --defined-only"))
    }

    @Test func aDeclaredCapabilityWithoutItsEntryPointsIsRefusedListingWhatIsMissing() throws {
        let bundle = try TestPlugins.fixture(
            in: folder.path, plist: TestPlugins.plist(id: "org.test.passkeys", capabilities: ["ProvidesPasswords": true, "ProvidesPasskeys": true]))
        let validation = PluginLoader.validate(bundle: bundle, services: services)
        #expect(!validation.isValid)
        let problem = try #require(validation.problems.first { $0.code == .missingEntryPoints })
        #expect(problem.message.contains("prepare_credential_list_for_passkey (for ProvidesPasskeys)"))
        #expect(problem.message.contains("prepare_interface_for_passkey_registration (for ProvidesPasskeys)"))
        #expect(!problem.message.contains("prepare_credential_list (for"))
        #expect(problem.fix.contains("stop declaring ProvidesPasskeys"))
    }

    @Test func aTableWithNoEntryPointsIsRefused() throws {
        let bundle = try TestPlugins.fixture(
            in: folder.path, plist: TestPlugins.plist(id: "org.test.empty"), defines: ["FIXTURE_NO_ENTRY_POINTS"])
        let validation = PluginLoader.validate(bundle: bundle, services: services)
        let problem = try #require(validation.problems.first { $0.code == .missingEntryPoints })
        #expect(problem.message.contains("prepare_credential_list (for ProvidesPasswords)"))
        #expect(validation.entryPoints == [])
    }

    @Test func aTableOfAnotherABIVersionIsRefusedNamingBothVersions() throws {
        let bundle = try TestPlugins.fixture(
            in: folder.path, plist: TestPlugins.plist(id: "org.test.table"), defines: ["FIXTURE_TABLE_VERSION=7"])
        let problems = PluginLoader.validate(bundle: bundle, services: services).problems
        #expect(problems.map(\.code) == [.tableVersionMismatch])
        #expect(problems[0].message == "the provider table says ABI version 7, this host speaks version 1")
    }

    @Test func aTableSmallerThanVersionOneIsRefused() throws {
        let bundle = try TestPlugins.fixture(
            in: folder.path, plist: TestPlugins.plist(id: "org.test.small"), defines: ["FIXTURE_TABLE_SIZE=16"])
        #expect(PluginLoader.validate(bundle: bundle, services: services).problems.map(\.code) == [.tableTooSmall])
    }

    @Test func anEntryFunctionThatRefusesIsReported() throws {
        let bundle = try TestPlugins.fixture(
            in: folder.path, plist: TestPlugins.plist(id: "org.test.refuse"), defines: ["FIXTURE_ENTRY_RETURNS_NULL"])
        let problems = PluginLoader.validate(bundle: bundle, services: services).problems
        #expect(problems.map(\.code) == [.entryRefused])
        #expect(log.contains("refusing to load"))
    }

    @Test func loadThrowsAnInvalidPluginErrorListingTheProblems() throws {
        let bundle = try TestPlugins.fixture(in: folder.path, plist: TestPlugins.plist(id: "org.test.throw", entry: "missing_entry"))
        do {
            _ = try PluginLoader.load(bundle: bundle, services: services)
            Issue.record("load should have thrown")
        } catch {
            #expect(error.code == .invalidPlugin)
            #expect(error.exitStatus == 65)
            #expect(error.problems.map(\.code) == [.missingEntrySymbol])
            #expect(error.description.contains("org.test.throw"))
        }
    }

    @Test func loadingTheSameLibraryTwiceRunsItsEntryOnce() throws {
        let bundle = try TestPlugins.fixture(in: folder.path, plist: TestPlugins.plist(id: "org.test.once"))
        let first = try PluginLoader.load(bundle: bundle, services: services)
        let second = try PluginLoader.load(bundle: bundle, services: services)
        #expect(first === second)
        #expect(log.all.filter { $0.contains("store_save status") }.count == 1)
    }
}
