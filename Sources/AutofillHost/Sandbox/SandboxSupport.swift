internal import CAutofillSandbox
internal import FoundationEssentials
internal import Glibc

/// What this kernel offers the sandbox.
public enum SandboxSupport {
    /// The kernel's Landlock ABI (0: none). `AUTOFILL_TEST_NO_LANDLOCK=1` makes the host believe there
    /// is none, so tests can check the refusal; it can only make autofill refuse more, never less
    /// (the helper itself always requires Landlock when it is given a sandbox).
    public static var kernelLandlockABI: Int {
        if let value = getenv("AUTOFILL_TEST_NO_LANDLOCK"), String(cString: value) == "1" { return 0 }
        return Int(afs_landlock_abi())
    }

    /// The folder of the Swift runtime this process loaded (read from /proc/self/maps): a sandboxed
    /// Swift plugin needs to read the same one. Nil when none is loaded.
    public static let swiftRuntimeFolder: String? = {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return nil }
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/"), line.hasSuffix("/libswiftCore.so") else { continue }
            let path = line[slash...]
            return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        }
        return nil
    }()

    /// The highest Landlock ABI autofill uses.
    public static var supportedLandlockABI: Int { Int(afs_landlock_abi_supported()) }
}
