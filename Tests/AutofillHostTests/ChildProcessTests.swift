import AutofillTestSupport
import Foundation
import Glibc
import Testing

/// The tests' own way of running programs (AutofillTestSupport's ChildProcess): a child gets its
/// three standard descriptors and nothing else of the test process, whatever other threads hold open
/// at that moment (a daemon that inherited a file being copied kept a copied program from running).
struct ChildProcessTests {
    @Test func aChildHoldsOnlyItsStandardDescriptors() throws {
        let folder = try TemporaryFolder()
        let file = try folder.file("open", "")
        let stray = open(file, O_RDWR)  // not close-on-exec, as another thread's copy may hold one
        try #require(stray >= 0)
        defer { close(stray) }
        let child = try ChildProcess.start("/bin/sleep", ["10"])
        defer {
            kill(child.pid, SIGKILL)
            _ = child.wait()
        }
        let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.pid)/fd").sorted()
        #expect(held == ["0", "1", "2"])
    }
}
