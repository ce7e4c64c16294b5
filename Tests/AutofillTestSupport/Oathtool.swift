import Foundation

/// The real `oathtool` (Debian package oathtool), the independent check for one-time codes.
public enum Oathtool {
    /// A failed run, with what oathtool said.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs oathtool with `arguments`, giving it the key on standard input (never on its command line).
    public static func run(_ arguments: [String], key: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/oathtool")
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data((key + "\n").utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else { throw Failure(description: "oathtool \(arguments) failed: \(text)") }
        return text
    }
}
