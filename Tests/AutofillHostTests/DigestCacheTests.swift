@testable import AutofillHost
import AutofillStore
import AutofillTestSupport
import Foundation
import Glibc
import Testing

/// Plugin digests remembered by stat stamp: reused only while the file is unchanged.
@Suite struct DigestCacheTests {
    let folder: TemporaryFolder
    let file: String

    init() throws {
        folder = try TemporaryFolder("digests")
        file = try folder.file("libPlugin.so", String(repeating: "x", count: 100_000))
    }

    func cache(settled: Bool = true) -> DigestCache {
        DigestCache(folder: HostRecords(path: "\(folder.path)/stores"), settleTime: settled ? 0 : DigestCache.settleTime)
    }

    @Test func anUnchangedFileIsNotHashedAgain() throws {
        let digest = try cache().sha256(ofFileAt: file)
        #expect(digest == (try PluginFingerprint.sha256(ofFileAt: file)))
        let entry = try #require(cache().entry(for: file))
        // Proof that the stamp, not the content, answers: a forged digest under the same stamp is returned.
        try cache().remember(DigestCache.Entry(stamp: entry.stamp, sha256: "forged"), for: file)
        #expect(try cache().sha256(ofFileAt: file) == "forged")
    }

    @Test func aChangeOfContentIsSeenEvenWithTheSameSizeAndAForgedModificationTime() throws {
        let digest = try cache().sha256(ofFileAt: file)
        let before = try #require(DigestCache.Stamp(path: file))
        // Same size, same mtime (set back with utimensat): only ctime tells, and the kernel sets it.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.write(contentsOf: Data("y".utf8))
        try handle.close()
        var times = [timespec(tv_sec: Int(before.modified / 1_000_000_000), tv_nsec: Int(before.modified % 1_000_000_000)),
                     timespec(tv_sec: Int(before.modified / 1_000_000_000), tv_nsec: Int(before.modified % 1_000_000_000))]
        #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
        let after = try #require(DigestCache.Stamp(path: file))
        #expect(after.size == before.size && after.modified == before.modified && after.changed != before.changed)
        let changed = try cache().sha256(ofFileAt: file)
        #expect(changed != digest)
        #expect(changed == (try PluginFingerprint.sha256(ofFileAt: file)))
    }

    @Test func aFileReplacedByRenameIsANewFile() throws {
        _ = try cache().sha256(ofFileAt: file)
        let replacement = try folder.file("new.so", String(repeating: "z", count: 100_000))
        #expect(rename(replacement, file) == 0)
        #expect(try cache().sha256(ofFileAt: file) == (try PluginFingerprint.sha256(ofFileAt: file)))
    }

    @Test func aFileChangedMomentsAgoIsNotRemembered() throws {
        _ = try cache(settled: false).sha256(ofFileAt: file)
        #expect(cache().entry(for: file) == nil, "a change within the same clock tick could keep its ctime")
    }
}
