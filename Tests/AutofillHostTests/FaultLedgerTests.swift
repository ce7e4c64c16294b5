import AutofillHost
import AutofillStore
import Foundation
import Synchronization
import Testing

/// The fault ledger: window arithmetic on an injected clock, stickiness, fingerprints, persistence.
struct FaultLedgerTests {
    let folder: TemporaryFolder
    let clock = TestClock()
    let files = PluginFingerprint(library: String(repeating: "a", count: 64), plist: String(repeating: "b", count: 64))
    let newFiles = PluginFingerprint(library: String(repeating: "c", count: 64), plist: String(repeating: "b", count: 64))
    static let bundle = "/plugins/P.afprovider"

    init() throws {
        folder = try TemporaryFolder()
    }

    func ledger(faults: Int = 3, minutes: Double = 10) -> FaultLedger {
        FaultLedger(folder: HostRecords(path: "\(folder.path)/stores"),
                    policy: QuarantinePolicy(faultCount: faults, windowSeconds: minutes * 60), now: clock.now)
    }

    /// Records a crash at `minutes` after the clock's start.
    @discardableResult
    func crash(at minutes: Double, _ ledger: FaultLedger, fingerprint: PluginFingerprint? = nil, id: String = "org.t.p") throws -> ProviderQuarantine? {
        clock.set(minutes: minutes)
        return try ledger.record(fault: .crashed, message: "SIGSEGV at \(minutes) min", fingerprint: fingerprint ?? files, for: id, bundle: Self.bundle)
    }

    @Test func threeFaultsWithinTenMinutesQuarantineFromTheThird() throws {
        let ledger = ledger()
        #expect(try crash(at: 0, ledger) == nil)
        #expect(try crash(at: 4, ledger) == nil)
        let quarantine = try #require(try crash(at: 9.5, ledger))
        #expect(quarantine.since == clock.start.addingTimeInterval(9.5 * 60))
        #expect(quarantine.reason == "it crashed or was killed 3 times within 10 minutes; the last time it crashed: SIGSEGV at 9.5 min")
        #expect(try ledger.quarantine(for: "org.t.p", bundle: Self.bundle, fingerprint: files) == quarantine)
        #expect(try ledger.quarantine(for: "org.t.other", bundle: Self.bundle, fingerprint: files) == nil)
    }

    @Test(arguments: [
        ([0.0, 6, 12], false),  // at 12 only 6 and 12 are within ten minutes
        ([0.0, 5, 10], false),  // a fault exactly ten minutes old no longer counts
        ([0.0, 5, 9.99], true),
        ([0.0, 11, 12, 13], true),
        ([0.0, 30, 60, 90, 120], false),
    ])
    func faultsCountOnlyWithinTheWindow(minutes: [Double], quarantined: Bool) throws {
        let ledger = ledger()
        for minute in minutes { try crash(at: minute, ledger) }
        #expect((try ledger.quarantine(for: "org.t.p", bundle: Self.bundle, fingerprint: files) != nil) == quarantined)
    }

    @Test func aQuarantineOutlastsItsWindowUntilCleared() throws {
        let ledger = ledger()
        for minute in [0.0, 1, 2] { try crash(at: minute, ledger) }
        clock.set(minutes: 60 * 24 * 30)
        #expect(try ledger.quarantine(for: "org.t.p", bundle: Self.bundle, fingerprint: files) != nil)
        #expect(try ledger.clear("org.t.p", bundle: Self.bundle) != nil)
        #expect(try ledger.quarantine(for: "org.t.p", bundle: Self.bundle, fingerprint: files) == nil)
        #expect(try ledger.faults(for: "org.t.p", bundle: Self.bundle).isEmpty)
        #expect(try crash(at: 60 * 24 * 30, ledger) == nil, "cleared faults do not count again")
    }

    @Test func otherFilesLiftTheQuarantineAndStartAFreshCount() throws {
        let ledger = ledger()
        for minute in [0.0, 1, 2] { try crash(at: minute, ledger) }
        #expect(try ledger.quarantine(for: "org.t.p", bundle: Self.bundle, fingerprint: newFiles) == nil, "changed files are not quarantined")
        #expect(try crash(at: 3, ledger, fingerprint: newFiles) == nil, "earlier faults were of other files")
        #expect(try ledger.faults(for: "org.t.p", bundle: Self.bundle).map(\.fingerprint) == [newFiles])
        #expect(try ledger.quarantine(for: "org.t.p", bundle: Self.bundle, fingerprint: files) == nil, "the old quarantine went with the old files")
    }

    @Test func aFaultOfAnotherBundleWithTheSameIdLeavesTheQuarantineAlone() throws {
        let ledger = ledger()
        for minute in [0.0, 1, 2] { try crash(at: minute, ledger) }
        clock.set(minutes: 3)
        // Another configuration's bundle declaring the same id (other files) crashes: its own entry.
        #expect(try ledger.record(fault: .crashed, message: "elsewhere", fingerprint: newFiles, for: "org.t.p", bundle: "/elsewhere/P.afprovider") == nil)
        #expect(try ledger.quarantine(for: "org.t.p", bundle: Self.bundle, fingerprint: files) != nil, "still quarantined")
        #expect(try ledger.faults(for: "org.t.p", bundle: "/elsewhere/P.afprovider").count == 1)
    }

    @Test func aPolicyOfOneQuarantinesOnTheFirstFault() throws {
        let ledger = ledger(faults: 1, minutes: 0.5)
        clock.set(minutes: 0)
        let quarantine = try ledger.record(fault: .killedAfterDeadline, message: "no answer in 3 s", fingerprint: files, for: "org.t.p", bundle: Self.bundle)
        #expect(quarantine?.reason == "it crashed or was killed once; the last time it was killed after missing its deadline: no answer in 3 s")
    }

    @Test func theLedgerIsKeptOnDiskPerFolderWithMode0600() throws {
        for minute in [0.0, 1] { try crash(at: minute, ledger()) }
        let reopened = ledger()
        #expect(try reopened.faults(for: "org.t.p", bundle: Self.bundle).map(\.message) == ["SIGSEGV at 0.0 min", "SIGSEGV at 1.0 min"])
        let attributes = try FileManager.default.attributesOfItem(atPath: reopened.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(reopened.path == "\(folder.path)/stores/faults.json")
        let elsewhere = FaultLedger(folder: HostRecords(path: "\(folder.path)/other"))
        #expect(try elsewhere.faults(for: "org.t.p", bundle: Self.bundle).isEmpty)
    }

    @Test func concurrentFaultsFromManyThreadsAreAllKept() async throws {
        let ledger = FaultLedger(folder: HostRecords(path: "\(folder.path)/stores"),
                                 policy: QuarantinePolicy(faultCount: 1000, windowSeconds: 3600))
        let files = files
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    _ = try? ledger.record(fault: .crashed, message: "fault \(index)", fingerprint: files, for: "org.t.p", bundle: Self.bundle)
                }
            }
        }
        #expect(try ledger.faults(for: "org.t.p", bundle: Self.bundle).count == 24)
    }

    @Test func aDamagedLedgerIsAnErrorNamingTheFile() throws {
        let ledger = ledger()
        try crash(at: 0, ledger)
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: ledger.path))
        #expect {
            try ledger.faults(for: "org.t.p", bundle: Self.bundle)
        } throws: { error in
            let error = error as! AutofillError
            return error.code == .io && error.message.contains(ledger.path) && error.message.contains("delete it")
        }
    }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let current: Mutex<Date>

    init() {
        current = Mutex(start)
    }

    func set(minutes: Double) {
        current.withLock { $0 = start.addingTimeInterval(minutes * 60) }
    }

    var now: @Sendable () -> Date { { self.current.withLock { $0 } } }
}
