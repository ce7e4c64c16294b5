@testable import AutofillHost
import Foundation
import Testing

/// What the sandbox learns about this machine and process.
struct SandboxSupportTests {
    @Test func theSwiftRuntimeFolderIsFoundWhereverItsLineIsInTheMaps() throws {
        // This test process maps far more than one page of /proc/self/maps before libswiftCore's lines.
        #expect(SandboxSupport.mappedFiles().joined(separator: "\n").utf8.count > 4096)
        let folder = try #require(SandboxSupport.swiftRuntimeFolder)
        #expect(FileManager.default.fileExists(atPath: "\(folder)/libswiftCore.so"))
        #expect(FileManager.default.fileExists(atPath: "\(folder)/libFoundation.so"))
    }
}
