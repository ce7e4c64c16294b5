import AutofillTestSupport
import Foundation
import Testing

/// `autofill --version`: what plugin authors need to build against this autofill.
struct VersionTests {
    @Test func versionNamesAutofillTheProviderABIAndTheSwiftCompilerThatBuiltIt() throws {
        let home = try TemporaryHome()
        // Through the small client, which hands --version to autofill-cli.
        let result = try CLI.run(["--version"], home: home.path)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(result.stdout)")
        #expect(lines.first?.hasPrefix("autofill ") == true)
        // The ABI version is the header's, not a copy of it.
        let header = try String(contentsOfFile: "\(CLI.root)/Sources/CAutofillProvider/include/autofill_provider.h", encoding: .utf8)
        let abi = try #require(header.firstMatch(of: /#define AF_ABI_VERSION (\d+)u/)?.1)
        #expect(lines.contains("provider ABI version \(abi) (AF_ABI_VERSION)"))
        // The compiler is the one `swift --version` names: the toolchain that built this suite.
        let swift = try ChildProcess.run("/usr/bin/env", ["swift", "--version"], environment: ProcessInfo.processInfo.environment)
        let compiler = try #require((swift.stdout + swift.stderr).firstMatch(of: /Swift version (\d+\.\d+(\.\d+)?)/)?.1)
        #expect(lines.contains("built with Swift \(compiler)"), "\(result.stdout) vs \(swift.stdout)")
    }
}
