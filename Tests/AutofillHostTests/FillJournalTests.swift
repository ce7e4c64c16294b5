@testable import AutofillHost
import AutofillTestSupport
import Foundation
import Glibc
import Testing

/// The recent fills' journal (`fills.log`): one line appended per record, compacted past a size, a
/// torn last line ignored and never joined to the next record, no record lost between processes.
@Suite struct FillJournalTests {
    let folder: TemporaryFolder
    let records: HostRecords

    init() throws {
        folder = try TemporaryFolder("fills")
        records = HostRecords(path: "\(folder.path)/state")
    }

    var journalPath: String { "\(records.path)/\(RecentFills.fileName)" }

    func fills(at time: Double) -> RecentFills {
        RecentFills(folder: records, now: { time })
    }

    static func tag(_ number: Int) -> String {
        String(repeating: "0", count: 64 - String(number, radix: 16).count) + String(number, radix: 16)
    }

    @Test func aFillAppendsALineAndIsFoundByItsSiteAndParentDomains() throws {
        try fills(at: 1_000).record(providerID: "org.t.p", user: "alice", host: "login.example.com")
        let lines = try String(contentsOfFile: journalPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2, "login.example.com and example.com")
        #expect(lines.allSatisfy { $0.hasPrefix("1000.000 ") && $0.count == 9 + 64 })
        #expect(!(try String(contentsOfFile: journalPath, encoding: .utf8)).contains("alice"), "no user name in the file")
        #expect(try mode(journalPath) == 0o600)
        try fills(at: 1_001).record(providerID: "org.t.p", user: "bob", host: "example.org")
        #expect(try String(contentsOfFile: journalPath, encoding: .utf8).split(separator: "\n").count == 3, "appended, not rewritten")
        #expect(fills(at: 1_100).contains(providerID: "org.t.p", user: "alice", relyingParty: "example.com"))
        #expect(fills(at: 1_100).contains(providerID: "org.t.p", user: "alice", relyingParty: "login.example.com"))
        #expect(!fills(at: 1_100).contains(providerID: "org.t.p", user: "alice", relyingParty: "example.org"))
        #expect(!fills(at: 1_100).contains(providerID: "org.t.other", user: "alice", relyingParty: "example.com"))
        #expect(!fills(at: 1_000 + RecentFills.window + 1).contains(providerID: "org.t.p", user: "alice", relyingParty: "example.com"), "too old")
    }

    @Test func aTornLastLineIsIgnoredAndTheNextRecordStartsALineOfItsOwn() throws {
        try fills(at: 2_000).record(providerID: "org.t.p", user: "alice", host: "example.com")
        // A crash mid-append: half a line, no newline.
        let handle = try #require(FileHandle(forWritingAtPath: journalPath))
        handle.seekToEndOfFile()
        handle.write(Data("2000.500 0123456789abcdef".utf8))
        try handle.close()
        #expect(try FillJournal(path: journalPath).records().count == 1, "the torn line is not a record")
        #expect(fills(at: 2_001).contains(providerID: "org.t.p", user: "alice", relyingParty: "example.com"))
        try fills(at: 2_002).record(providerID: "org.t.p", user: "bob", host: "example.com")
        #expect(fills(at: 2_003).contains(providerID: "org.t.p", user: "bob", relyingParty: "example.com"), "the record after the torn line counts")
        let text = try String(contentsOfFile: journalPath, encoding: .utf8)
        #expect(text.contains("0123456789abcdef\n2002.000 "), "the torn line stays a line of its own: \(text)")
        #expect(try FillJournal(path: journalPath).records().count == 2)
    }

    @Test func garbageLinesAreSkippedNotFatal() throws {
        try FileManager.default.createDirectory(atPath: records.path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let garbage = "not a record\n\n1e309 \(Self.tag(1))\n-5.000 \(Self.tag(2))\n3000.000 \(Self.tag(0xabc).uppercased())\n3000.000 \(Self.tag(4))\n"
        #expect(FileManager.default.createFile(atPath: journalPath, contents: Data(garbage.utf8), attributes: [.posixPermissions: 0o600]))
        #expect(try FillJournal(path: journalPath).records() == [FillJournal.Record(tag: Self.tag(4), time: 3000)])
    }

    @Test func aJournalOverItsSizeIsCompactedToTheRecordsStillWanted() throws {
        // 1,000 fills, one second apart: the journal is compacted whenever it passes its size.
        for second in 0..<1_000 {
            try fills(at: 10_000 + Double(second)).record(providerID: "org.t.p", user: "u\(second)", host: "site.test")
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: journalPath)[.size] as? Int)
        #expect(size <= FillJournal.compactionBytes + 200, "compacted: \(size) bytes")
        let kept = try FillJournal(path: journalPath).records()
        #expect(kept.count >= RecentFills.maximumRecords && kept.count <= RecentFills.maximumRecords + FillJournal.compactionBytes / 80)
        #expect(fills(at: 11_000).contains(providerID: "org.t.p", user: "u999", relyingParty: "site.test"), "the newest is kept")
        #expect(!fills(at: 11_000).contains(providerID: "org.t.p", user: "u0", relyingParty: "site.test"), "the oldest is gone")
        #expect(try mode(journalPath) == 0o600)
    }

    @Test func concurrentWritersLoseNoRecordAcrossCompactions() throws {
        // Eight writers, each with descriptors of its own (flock excludes them as it does processes),
        // 150 records each, past the compaction size several times; compaction here keeps everything.
        let writers = 8, each = 150
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            let journal = FillJournal(path: journalPath)
            for index in 0..<each {
                try? journal.append([FillJournal.Record(tag: Self.tag(writer * 1_000 + index), time: 5_000)], keep: { $0 })
            }
        }
        let tags = Set(try FillJournal(path: journalPath).records().map(\.tag))
        let expected = Set((0..<writers).flatMap { writer in (0..<each).map { Self.tag(writer * 1_000 + $0) } })
        #expect(tags == expected, "\(expected.subtracting(tags).count) records lost")
        #expect(writers * each * 80 > FillJournal.compactionBytes, "the run crossed the compaction size")
    }

    @Test func aJournalOthersCouldChangeIsRefused() throws {
        try fills(at: 1_000).record(providerID: "org.t.p", user: "alice", host: "example.com")
        chmod(records.path, 0o777)
        defer { chmod(records.path, 0o700) }
        #expect(throws: AutofillError.self) { try fills(at: 1_001).record(providerID: "org.t.p", user: "bob", host: "example.com") }
        #expect(!fills(at: 1_002).contains(providerID: "org.t.p", user: "alice", relyingParty: "example.com"))
        // The control: the same journal in a private folder is used.
        chmod(records.path, 0o700)
        #expect(fills(at: 1_002).contains(providerID: "org.t.p", user: "alice", relyingParty: "example.com"))
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }
}
