import AutofillHost
import AutofillStore
import Foundation
import Testing

/// The trust records and the digests they hold.
struct TrustStoreTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    func record(_ library: String, origin: TrustRecord.Origin = .enabled) -> TrustRecord {
        TrustRecord(fingerprint: PluginFingerprint(library: library, plist: "p"), bundle: "/b/X.afprovider", executable: "libX.so",
                    recorded: Date(timeIntervalSince1970: 1_800_000_000), origin: origin)
    }

    @Test func recordsArePerProviderAndPerFolder() throws {
        let store = TrustStore(folder: IdentityStoreDirectory(path: "\(folder.path)/stores"))
        #expect(try store.record(for: "org.t.a") == nil)
        try store.save(record("1"), for: "org.t.a")
        try store.save(record("2"), for: "org.t.b")
        #expect(try store.record(for: "org.t.a") == record("1"))
        #expect(try TrustStore(folder: IdentityStoreDirectory(path: "\(folder.path)/stores")).record(for: "org.t.b") == record("2"))
        #expect(try TrustStore(folder: IdentityStoreDirectory(path: "\(folder.path)/elsewhere")).record(for: "org.t.a") == nil)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try store.remove("org.t.a") == record("1"))
        #expect(try store.record(for: "org.t.a") == nil)
        #expect(try store.record(for: "org.t.b") == record("2"))
    }

    @Test func saveIfAbsentKeepsTheFirstRecord() throws {
        let store = TrustStore(folder: IdentityStoreDirectory(path: folder.path))
        #expect(try store.saveIfAbsent(record("1", origin: .firstUse), for: "org.t.a") == record("1", origin: .firstUse))
        #expect(try store.saveIfAbsent(record("2", origin: .firstUse), for: "org.t.a") == record("1", origin: .firstUse))
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
