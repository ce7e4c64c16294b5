import AutofillCore
@testable import AutofillHost
import Foundation
import Testing

/// The loader loads exactly the bytes the user approved (issue M): each library is hashed through the
/// descriptor it is loaded from and compared with the approved digests, in process and in the helper,
/// also when a helper is started again after a fault while its files were swapped.
struct PinnedLibraryTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    func faultBundle(_ name: String) throws -> String {
        try TestPlugins.fixture(in: folder.path, name: name,
                                plist: TestPlugins.plist(id: "org.test.\(name)", name: name.capitalized, entry: "fixture_faults_entry"))
    }

    func pins(_ bundle: String) throws -> [String: String] {
        let (manifest, problems) = ManifestReader.read(bundle: bundle)
        let read = try #require(manifest, "\(problems)")
        return try #require(try PluginFingerprint(of: read).files)
    }

    /// Replaces the bundle's library with a new file (a new inode) of other bytes.
    func swapLibrary(_ bundle: String) throws {
        let library = "\(bundle)/libFixture.so"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: library))
        bytes.append(0)
        try bytes.write(to: URL(fileURLWithPath: "\(library).new"))
        #expect(rename("\(library).new", library) == 0)
    }

    @Test func inProcessALibraryThatIsNotTheApprovedOneIsRefused() throws {
        let bundle = try faultBundle("inproc")
        var approved = try pins(bundle)
        approved["libFixture.so"] = String(repeating: "0", count: 64)
        let services = ProviderServices(store: InMemoryIdentityStore(), settings: ["FixtureName": "inproc"], logger: log.logger)
        let error = try #require(throws: AutofillError.self) { try PluginLoader.load(bundle: bundle, services: services, pins: approved) }
        #expect(error.problems.map(\.message) == ["is not the file you approved: its SHA-256 changed after autofill checked the bundle"])
        // Control: the approved digests load it.
        let other = try faultBundle("inproc2")
        #expect(throws: Never.self) { try PluginLoader.load(bundle: other, services: services, pins: try pins(other)) }
    }

    @Test func aHelperStartedAgainAfterAFaultLoadsOnlyTheApprovedBytes() async throws {
        let bundle = try faultBundle("alpha")
        let approved = try pins(bundle)
        let services = ProviderServices(store: InMemoryIdentityStore(), settings: ["FixtureName": "alpha", "FixtureFault": "crash"],
                                        logger: log.logger)
        let connection = try HelperConnection.launch(bundle: bundle, services: services, beforeLoading: { () throws(AutofillError) in approved })
        let request = ProviderRequest.credentialWithoutUserInteraction(.password(PasswordCredentialIdentity(
            serviceIdentifier: ServiceIdentifier(identifier: "example.com", type: .domain), user: "ok")))
        // The first helper crashes answering; the library is swapped while no helper runs it.
        var outcome = await connection.send(request, deadline: .seconds(20))
        #expect(outcome == .failed(ProviderFailure(.transport, "Alpha crashed (SIGSEGV) while answering provideCredentialWithoutUserInteraction(for:)")))
        try swapLibrary(bundle)
        outcome = await connection.send(request, deadline: .seconds(20))
        guard case .failed(let failure) = outcome else {
            Issue.record("the swapped library was run: \(outcome)")
            return
        }
        #expect(failure.message == "Alpha could not be started again: is not the file you approved: its SHA-256 changed after autofill checked the bundle")
    }
}
