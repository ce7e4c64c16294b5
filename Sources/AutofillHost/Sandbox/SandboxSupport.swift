internal import AutofillSystem
internal import CAutofillSandbox
internal import FoundationEssentials

/// What this kernel offers the sandbox.
public enum SandboxSupport {
    /// The kernel's Landlock ABI (0: none). `AUTOFILL_TEST_NO_LANDLOCK=1` makes the host believe there
    /// is none, so tests can check the refusal; it can only make autofill refuse more, never less
    /// (the helper itself always requires Landlock when it is given a sandbox).
    public static var kernelLandlockABI: Int {
        if Processes.variable("AUTOFILL_TEST_NO_LANDLOCK") == "1" { return 0 }
        return Int(afs_landlock_abi())
    }

    /// The folder of the Swift runtime this process loaded (read from /proc/self/maps): a sandboxed
    /// Swift plugin needs to read the same one (for the runtime libraries the helper has not loaded
    /// itself, such as Foundation and FoundationXML). Nil when none is loaded.
    public static let swiftRuntimeFolder: String? = {
        for line in mappedFiles() {
            guard let slash = line.firstIndex(of: "/"), line.hasSuffix("/libswiftCore.so") else { continue }
            let path = line[slash...]
            return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        }
        return nil
    }()

    /// The lines of /proc/self/maps, read to the end line by line: a /proc file has no size, and
    /// reading it as one file stopped after its first page, before the Swift runtime's lines.
    static func mappedFiles() -> [String] {
        guard let file = try? Descriptors.open("/proc/self/maps") else { return [] }
        defer { Descriptors.closeQuietly(file) }
        guard let bytes = try? Descriptors.readAll(file) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The highest Landlock ABI autofill uses.
    public static var supportedLandlockABI: Int { Int(afs_landlock_abi_supported()) }
}
