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
        var setup = ProviderSetup(catalog: ProviderCatalog(file: file), stores: file.identityStores(environment: [:]), logger: log.logger)
        setup.notify = { [notes] text in notes.append(text) }
        return setup
    }

    func library(_ name: String) -> String { "\(folder.path)/plugins/\(name).afprovider/libFixture.so" }

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
        let record = try #require(try setup.trustRecords.record(for: "org.trust.copy"))
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

    @Test func aProviderEnabledByHandIsTrustedOnFirstUseWithANotice() throws {
        let setup = try setup("handmade", enabled: true)
        #expect(setup.trustState(of: try setup.catalog.manifest(for: "org.trust.handmade")) == .notRecorded)
        _ = try launch(setup, "handmade")
        #expect(try setup.trustRecords.record(for: "org.trust.handmade")?.origin == .firstUse)
        #expect(notes.all.count == 1)
        #expect(notes.all.first?.hasPrefix("trusting handmade (org.trust.handmade) as it is now: it was enabled without `autofill providers enable`") == true)
        _ = try launch(setup, "handmade")
        #expect(notes.all.count == 1, "the notice comes once")
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
        #expect(try setup.trustRecords.record(for: "org.trust.open") == nil, "nothing is recorded for an unsafe bundle")
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

    @Test func disablingForgetsTheRecordAndTheFaults() throws {
        var setup = try setup("forgotten", enabled: false)
        _ = try setup.enable("org.trust.forgotten")
        setup.recordFault(try setup.catalog.manifest(for: "org.trust.forgotten"), kind: .crashed, message: "x")
        try setup.disable("org.trust.forgotten")
        #expect(try setup.trustRecords.record(for: "org.trust.forgotten") == nil)
        #expect(try setup.faultLedger.faults(for: "org.trust.forgotten").isEmpty)
        #expect {
            try setup.trust("org.trust.forgotten")
        } throws: { error in
            (error as? AutofillError)?.code == .usage
        }
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
        let both = ProviderSetup(catalog: ProviderCatalog(file: file), stores: file.identityStores(environment: [:]), logger: log.logger)
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
