internal import AutofillSystem
internal import Glibc

/// What the small `autofill` client needs of its own process, without Foundation.
package enum ClientProcess {
    /// This process's environment.
    package static func environment() -> [String: String] {
        var result: [String: String] = [:]
        for text in Processes.environment() {
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
        }
        return result
    }

    /// The folder of this process's executable (`/proc/self/exe`), where `autofill-cli` is installed.
    package static func folder() -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { readlink("/proc/self/exe", $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count - 1) }
        guard count > 0 else { return "." }
        let path = String(decoding: buffer[0..<count], as: UTF8.self)
        return String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    /// Replaces this process with `executable arguments` (argv[0] "autofill"), or exits 70 saying why.
    package static func replace(with executable: String, arguments: [String]) -> Never {
        _ = withCStrings(["autofill"] + arguments) { argv in execv(executable, argv) }
        writeError("autofill: cannot run \(executable): \(String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer(strerror(errno)!).assumingMemoryBound(to: UInt8.self), count: strlen(strerror(errno))), as: UTF8.self)); reinstall autofill (autofill-cli belongs next to autofill)\n")
        exit(ExitStatus.software.rawValue)
    }

    /// Writes `text` to stderr.
    package static func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
