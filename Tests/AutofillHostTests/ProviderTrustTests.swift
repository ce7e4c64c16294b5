import AutofillCore
import AutofillHost
import AutofillMatching
import AutofillStore
import Foundation
import Glibc
import Synchronization
import Testing

/// Trust, permissions and quarantine through `ProviderSetup`, with real C plugins: a refused provider's
/// library is never mapped into the process.
struct ProviderTrustTests {
    let folder: TemporaryFolder
    let log = LogCapture()
    let notes = Notes()

    init() throws {
        folder = try TemporaryFolder()
    }

    /// A fresh fixture bundle (a new library file, so a new load) and a setup enabling `enabled`.
    func setup(_ name: String, enabled: Bool, extra: [String: Any] = [:]) throws -> ProviderSetup {
        try TestPlugins.fixture(in: "\(folder.path)/plugins", name: name, plist: TestPlugins.plist(id: "org.trust.\(name)", name: name))
        return try configured(name, enabled: enabled, extra: extra)
    }

    /// A setup over the bundles as they are, enabling `name` or not.
    func configured(_ name: String, enabled: Bool, extra: [String: Any] = [:]) throws -> ProviderSetup {
        var plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": enabled ? ["org.trust.\(name)"] : [], "IdentityStoreDirectory": "stores",
            "ProviderSettings": ["org.trust.\(name)": ["FixtureName": name]],
            // In process, so that whether a library was mapped can be read in /proc/self/maps.
            "ProviderIsolation": ["Default": "inProcess"],
        ]
        plist.merge(extra) { $1 }
        try TestPlugins.write(plist, to: "\(folder.path)/config.plist")
        let file = try ConfigurationFile.locate(option: "\(folder.path)/config.plist", environment: ["HOME": folder.path])
        var setup = ProviderSetup(catalog: ProviderCatalog(file: file), stores: try file.identityStores(environment: [:]),
                                  records: records, logger: log.logger)
        setup.notify = { [notes] text in notes.append(text) }
        return setup
    }

    /// The user's trust and fault records in these tests.
    var records: HostRecords { HostRecords(path: "\(folder.path)/records") }

    func bundle(_ name: String) -> String { "\(folder.path)/plugins/\(name).afprovider" }
    func library(_ name: String) -> String { "\(bundle(name))/libFixture.so" }

    /// Whether this process has mapped `path` (the dynamic loader's view, not ours).
    static func isMapped(_ path: String) throws -> Bool {
        // /proc files report size 0: read them to the end rather than by their size.
        let maps = try #require(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile()
        return String(decoding: maps, as: UTF8.self).contains(path)
    }

    static func append(_ byte: UInt8, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([byte]))
        try handle.close()
    }

    func launch(_ setup: ProviderSetup, _ name: String) throws -> any ProviderConnection {
        let manifest = try setup.catalog.manifest(for: "org.trust.\(name)")
        return try setup.launch(manifest, store: try #require(try setup.store(for: manifest.identifier)))
    }

    @Test func enablingRecordsTheFilesAndAChangedLibraryIsRefusedUntilTrusted() throws {
        var setup = try setup("copy", enabled: false)
        _ = try setup.enable("org.trust.copy")
        let record = try #require(try setup.trustRecords.record(for: "org.trust.copy", bundle: bundle("copy")))
        #expect(record.origin == .enabled)
        #expect(record.executable == "libFixture.so")
        try Self.append(0, to: library("copy"))
        #expect {
            try launch(setup, "copy")
        } throws: { error in
            let error = error as! AutofillError
            return error.code == .refused && error.exitStatus == 77
                && error.message == "copy (org.trust.copy) changed since you enabled it: libFixture.so differs; run `autofill providers trust org.trust.copy` after checking it"
        }
        #expect(setup.trustState(of: try setup.catalog.manifest(for: "org.trust.copy")).name == "changed")
        let change = try setup.trust("org.trust.copy")
        #expect(change.changedFiles == ["libFixture.so"])
        #expect(change.previous?.origin == .enabled)
        #expect(change.current.origin == .trusted)
        _ = try launch(setup, "copy")
        #expect(try Self.isMapped(library("copy")), "control: a launched provider's library is mapped")
    }

    @Test func nothingOfARefusedProviderIsLoaded() throws {
        // Record the files without loading them (trust), then change the plist.
        _ = try setup("untouched", enabled: true).trust("org.trust.untouched")
        try TestPlugins.write(TestPlugins.plist(id: "org.trust.untouched", name: "Renamed"), to: "\(folder.path)/plugins/untouched.afprovider/Info.plist")
        let changed = try configured("untouched", enabled: true)
        #expect(throws: AutofillError.self) { try launch(changed, "untouched") }
        #expect(try !Self.isMapped(library("untouched")), "a refused provider's library must not be loaded")
        #expect(try changed.store(for: "org.trust.untouched")?.count() == 0, "its entry function never ran")
    }

    @Test func aProviderListedByHandIsRefusedNamingTheCommandUntilApproved() throws {
        let setup = try setup("handmade", enabled: true)
        let manifest = try setup.catalog.manifest(for: "org.trust.handmade")
        #expect(setup.trustState(of: manifest) == .notRecorded)
        #expect(setup.unapprovedProviders == .refuse, "a library user gets no question unless it asks for one")
        #expect {
            try launch(setup, "handmade")
        } throws: { error in
            let error = error as! AutofillError
            return error.code == .refused && error.exitStatus == 77
                && error.message == "handmade (org.trust.handmade) is enabled, but you have not approved its files (\(bundle("handmade"))): run `autofill providers trust org.trust.handmade` to see their SHA-256 and approve them, or run autofill in a terminal to be asked"
        }
        #expect(try !Self.isMapped(library("handmade")), "nothing of a provider nobody approved is loaded")
        #expect(try setup.trustRecords.record(for: "org.trust.handmade", bundle: bundle("handmade")) == nil, "and nothing is recorded")
        #expect(try setup.trust("org.trust.handmade").current.origin == .trusted)
        _ = try launch(setup, "handmade")
        #expect(try Self.isMapped(library("handmade")))
    }

    @Test func theRecordsAreTheUsersWhateverStoreFolderTheConfigurationNames() throws {
        var setup = try setup("moved", enabled: false)
        _ = try setup.enable("org.trust.moved")
        try Self.append(0, to: library("moved"))
        // The same plugin, through a configuration with a fresh identity-store folder.
        let fresh = try configured("moved", enabled: true, extra: ["IdentityStoreDirectory": "fresh-stores"])
        #expect(fresh.stores.path == "\(folder.path)/fresh-stores")
        #expect(fresh.trustState(of: try fresh.catalog.manifest(for: "org.trust.moved")).name == "changed")
        let refusal = try #require(throws: AutofillError.self) { try launch(fresh, "moved") }
        #expect(refusal.message.hasPrefix("moved (org.trust.moved) changed since you enabled it: libFixture.so differs"))
    }

    @Test func anotherBundleDeclaringAnApprovedIdIsNotApproved() throws {
        var setup = try setup("original", enabled: false)
        _ = try setup.enable("org.trust.original")
        // A copy of the approved bundle, same id and same files, in another folder a configuration names.
        try FileManager.default.createDirectory(atPath: "\(folder.path)/other", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: bundle("original"), toPath: "\(folder.path)/other/original.afprovider")
        try TestPlugins.write([
            "PluginSearchPaths": ["other"], "EnabledProviders": ["org.trust.original"], "IdentityStoreDirectory": "stores",
            "ProviderIsolation": ["Default": "inProcess"],
        ], to: "\(folder.path)/other.plist")
        let file = try ConfigurationFile.locate(option: "\(folder.path)/other.plist", environment: ["HOME": folder.path])
        let other = ProviderSetup(catalog: ProviderCatalog(file: file), stores: try file.identityStores(environment: [:]), records: records, logger: log.logger)
        #expect(other.trustState(of: try other.catalog.manifest(for: "org.trust.original")) == .notRecorded)
    }

    @Test func anUnsafeBundleIsRefusedNamingThePathAndTheFix() throws {
        let setup = try setup("open", enabled: true)
        chmod(library("open"), 0o666)
        #expect {
            try launch(setup, "open")
        } throws: { error in
            let error = error as! AutofillError
            return error.code == .refused && error.message == "open (org.trust.open) is not loaded: users other than you could change its files:"
                && error.problems.map(\.file) == [library("open")] && error.description.contains("fix: `chmod go-w \(library("open"))`")
        }
        #expect(try !Self.isMapped(library("open")))
        #expect(try setup.trustRecords.record(for: "org.trust.open", bundle: bundle("open")) == nil, "nothing is recorded for an unsafe bundle")
    }

    @Test func repeatedFaultsQuarantineUntilReEnabled() throws {
        var setup = try setup("faulty", enabled: false, extra: ["Quarantine": ["FaultCount": 2, "WindowMinutes": 1.5]])
        _ = try setup.enable("org.trust.faulty")
        let manifest = try setup.catalog.manifest(for: "org.trust.faulty")
        #expect(setup.faultLedger.policy == QuarantinePolicy(faultCount: 2, windowSeconds: 90))
        #expect(setup.recordFault(manifest, kind: .crashed, message: "SIGSEGV") == nil)
        let quarantine = try #require(setup.recordFault(manifest, kind: .killedAfterDeadline, message: "no answer within 3 s"))
        #expect(quarantine.reason == "it crashed or was killed 2 times within 1.5 minutes; the last time it was killed after missing its deadline: no answer within 3 s")
        #expect(setup.trustState(of: manifest) == .quarantined(quarantine))
        #expect {
            try setup.launch(manifest, store: try #require(try setup.store(for: manifest.identifier)))
        } throws: { error in
            let error = error as! AutofillError
            return error.code == .refused && error.message.hasPrefix("faulty (org.trust.faulty) is quarantined since ")
                && error.message.contains("run `autofill providers enable org.trust.faulty` to lift the quarantine")
        }
        _ = try setup.enable("org.trust.faulty")
        #expect(setup.trustState(of: manifest).name == "trusted")
    }

    @Test func trustLiftsAQuarantineAndAChangedPluginIsNoLongerQuarantined() throws {
        var setup = try setup("lifted", enabled: false, extra: ["Quarantine": ["FaultCount": 1]])
        _ = try setup.enable("org.trust.lifted")
        let manifest = try setup.catalog.manifest(for: "org.trust.lifted")
        #expect(setup.recordFault(manifest, kind: .exceededResourceLimit, message: "memory ceiling") != nil)
        try Self.append(1, to: library("lifted"))
        #expect(setup.trustState(of: manifest).name == "changed", "new files lift the quarantine; the trust check applies")
        let change = try setup.trust("org.trust.lifted")
        #expect(change.liftedQuarantine == nil, "the quarantine was of the old files")
        #expect(setup.recordFault(manifest, kind: .crashed, message: "again") != nil)
        #expect(try setup.trust("org.trust.lifted").liftedQuarantine != nil)
        #expect(setup.trustState(of: manifest).name == "trusted")
    }

    @Test func disablingKeepsTheUsersRecordsAndEnablingRecordsAfresh() throws {
        var setup = try setup("kept", enabled: false, extra: ["Quarantine": ["FaultCount": 1]])
        _ = try setup.enable("org.trust.kept")
        let manifest = try setup.catalog.manifest(for: "org.trust.kept")
        #expect(setup.recordFault(manifest, kind: .crashed, message: "x") != nil)
        try setup.disable("org.trust.kept")
        // Another configuration may list the same bundle: its approval and its quarantine stay.
        #expect(try setup.trustRecords.record(for: "org.trust.kept", bundle: bundle("kept"))?.origin == .enabled)
        #expect(try setup.faultLedger.quarantine(for: "org.trust.kept", bundle: bundle("kept"), fingerprint: PluginFingerprint(of: manifest)) != nil)
        #expect {
            try setup.trust("org.trust.kept")
        } throws: { error in
            (error as? AutofillError)?.code == .usage
        }
        _ = try setup.enable("org.trust.kept")
        #expect(setup.trustState(of: manifest).name == "trusted", "enabling lifts the quarantine")
    }

    @Test func quarantineSettingsAreChecked() throws {
        #expect {
            _ = try setup("bad", enabled: false, extra: ["Quarantine": ["FaultCount": 0, "WindowMinutes": -1]])
        } throws: { error in
            let message = (error as? AutofillError)?.message ?? ""
            return message.contains("Quarantine.FaultCount is 0; give a number of faults from 1 to 1000")
                && message.contains("Quarantine.WindowMinutes is -1.0; give a number of minutes above 0")
        }
    }

    @Test func theRouterFallsBackPastARefusedProviderAndSaysWhy() async throws {
        var setup = try setup("first", enabled: false)
        _ = try setup.enable("org.trust.first")
        try TestPlugins.fixture(in: "\(folder.path)/plugins", name: "second", plist: TestPlugins.plist(id: "org.trust.second", name: "second"))
        try TestPlugins.write([
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.trust.first", "org.trust.second"], "IdentityStoreDirectory": "stores",
            "UserAuthentication": ["Policy": "none"],
        ], to: "\(folder.path)/config.plist")
        try Self.append(0, to: library("first"))
        let file = try ConfigurationFile.locate(option: "\(folder.path)/config.plist", environment: ["HOME": folder.path])
        let both = ProviderSetup(catalog: ProviderCatalog(file: file), stores: try file.identityStores(environment: [:]), records: records, logger: log.logger)
        _ = try both.trust("org.trust.second")  // listed by hand: approved as `providers trust` does
        for id in ["org.trust.first", "org.trust.second"] {
            try #require(try both.store(for: id)).save([.password(.init(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: "ok"))])
        }
        let query = try ServiceQuery("example.com")
        let candidates = try SuggestionEngine(catalog: both.catalog, directory: both.stores).suggestions(for: query, kinds: [.password])
        let router = FillRouter(setup: both, ui: UnavailableUserInterface(), authenticator: NoUserAuthentication(), deadline: .seconds(3), notify: { _ in })
        do {
            _ = try await router.fill(candidates, for: query, pick: .position(1), fallback: false)
            Issue.record("a changed provider was used")
        } catch {
            guard case .providersRefused(let messages) = error else { Issue.record("got \(error)"); return }
            #expect(messages.first?.hasPrefix("first (org.trust.first) changed since you enabled it") == true)
        }
        let result = try await router.fill(candidates, for: query, pick: .position(1), fallback: true)
        #expect(result.providerID == "org.trust.second")
    }
}

/// Notices a setup printed.
final class Notes: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }
}
