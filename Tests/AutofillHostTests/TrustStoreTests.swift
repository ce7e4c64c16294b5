import AutofillHost
import AutofillStore
import Foundation
import Glibc
import Testing

/// The trust records and the digests they hold.
struct TrustStoreTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    static let bundle = "/b/X.afprovider"

    func record(_ library: String, origin: TrustRecord.Origin = .enabled, bundle: String = Self.bundle) -> TrustRecord {
        TrustRecord(fingerprint: PluginFingerprint(library: library, plist: "p"), bundle: bundle, executable: "libX.so",
                    recorded: Date(timeIntervalSince1970: 1_800_000_000), origin: origin)
    }

    @Test func recordsArePerProviderAndBundleAndPerFolder() throws {
        let store = TrustStore(folder: HostRecords(path: "\(folder.path)/records"))
        #expect(try store.record(for: "org.t.a", bundle: Self.bundle) == nil)
        try store.save(record("1"), for: "org.t.a")
        try store.save(record("2"), for: "org.t.b")
        #expect(try store.record(for: "org.t.a", bundle: Self.bundle) == record("1"))
        #expect(try store.record(for: "org.t.a", bundle: "/elsewhere/X.afprovider") == nil, "another bundle declaring the id has no record")
        #expect(try TrustStore(folder: HostRecords(path: "\(folder.path)/records")).record(for: "org.t.b", bundle: Self.bundle) == record("2"))
        #expect(try TrustStore(folder: HostRecords(path: "\(folder.path)/elsewhere")).record(for: "org.t.a", bundle: Self.bundle) == nil)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try store.remove("org.t.a", bundle: Self.bundle) == record("1"))
        #expect(try store.record(for: "org.t.a", bundle: Self.bundle) == nil)
        #expect(try store.record(for: "org.t.b", bundle: Self.bundle) == record("2"))
    }

    @Test func saveIfAbsentKeepsTheFirstRecordOfABundle() throws {
        let store = TrustStore(folder: HostRecords(path: folder.path))
        #expect(try store.saveIfAbsent(record("1", origin: .confirmed), for: "org.t.a") == record("1", origin: .confirmed))
        #expect(try store.saveIfAbsent(record("2", origin: .confirmed), for: "org.t.a") == record("1", origin: .confirmed))
        let other = record("3", origin: .confirmed, bundle: "/other/X.afprovider")
        #expect(try store.saveIfAbsent(other, for: "org.t.a") == other)
    }

    @Test func theRecordsFolderIsTheUsersWhateverTheConfiguration() {
        #expect(HostRecords(environment: ["HOME": "/home/u", "XDG_STATE_HOME": "/state"]).path == "/state/autofill")
        #expect(HostRecords(environment: ["HOME": "/home/u"]).path == "/home/u/.local/state/autofill")
        #expect(HostRecords(environment: ["HOME": "/home/u", "XDG_STATE_HOME": "relative"]).path == "/home/u/.local/state/autofill",
                "a relative XDG_STATE_HOME is ignored, as the XDG specification says")
    }

    @Test func recordsOthersCouldChangeAreRefusedNamingTheFix() throws {
        let records = HostRecords(path: "\(folder.path)/records")
        let store = TrustStore(folder: records)
        try store.save(record("1"), for: "org.t.a")
        for (path, mode) in [(store.path, mode_t(0o666)), (records.path, mode_t(0o777))] {
            chmod(path, mode)
            let error = try #require(throws: AutofillError.self) { try store.record(for: "org.t.a", bundle: Self.bundle) }
            #expect(error.code == .refused)
            #expect(error.message == "autofill does not use the trust records \(store.path): users other than you could change them:")
            #expect(error.problems.map(\.file) == [path])
            #expect(error.description.contains("fix: `chmod go-w \(path)`"))
            #expect(throws: AutofillError.self) { try store.save(self.record("2"), for: "org.t.a") }
            chmod(path, path == records.path ? 0o700 : 0o600)
        }
        #expect(try store.record(for: "org.t.a", bundle: Self.bundle) == record("1"), "nothing was written while refused")
    }

    @Test func theFingerprintIsTheSHA256OfBothFiles() throws {
        let bundle = "\(folder.path)/X.afprovider"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try Data("abc".utf8).write(to: URL(fileURLWithPath: "\(bundle)/libX.so"))
        try Data().write(to: URL(fileURLWithPath: "\(bundle)/Info.plist"))
        let manifest = PluginManifest(bundlePath: bundle, identifier: "org.t.x", displayName: "X", executable: "libX.so",
                                      capabilities: [], abiVersion: 1, entrySymbol: "x")
        let fingerprint = try PluginFingerprint(of: manifest)
        // FIPS 180-2 test vector "abc", and the digest of nothing.
        #expect(fingerprint.library == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(fingerprint.plist == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(bundle)/libX.so"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let changed = try PluginFingerprint(of: manifest)
        #expect(changed.changedFiles(since: fingerprint, executable: "libX.so") == ["libX.so"])
        #expect(fingerprint.changedFiles(since: fingerprint, executable: "libX.so").isEmpty)
    }

    @Test func aMissingLibraryIsAnIOErrorNamingIt() throws {
        let manifest = PluginManifest(bundlePath: folder.path, identifier: "org.t.x", displayName: "X", executable: "libNope.so",
                                      capabilities: [], abiVersion: 1, entrySymbol: "x")
        #expect {
            try PluginFingerprint(of: manifest)
        } throws: { error in
            (error as? AutofillError)?.message.contains("\(folder.path)/libNope.so") == true
        }
    }
}
