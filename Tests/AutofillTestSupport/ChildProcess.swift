import Dispatch
import Foundation
import Synchronization

/// Runs a program the way the tests need it: standard input given, standard output and error read
/// separately and **at the same time**, so a program that fills one pipe (64 KiB) while the test
/// waits on the other can never block forever.
public enum ChildProcess {
    /// How a run ended.
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// Runs `executable` with `arguments`, `environment` (nil: this process's) and `input` on stdin.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           input: String = "") throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let errorData = Mutex(Data())
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) {
            let data = stderr.fileHandleForReading.readDataToEndOfFile()
            errorData.withLock { $0 = data }
        }
        DispatchQueue.global().async(group: done) {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
                      stderr: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
    }
}
