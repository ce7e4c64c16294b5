internal import CAutofillSandbox
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

    /// The highest Landlock ABI autofill uses.
    public static var supportedLandlockABI: Int { Int(afs_landlock_abi_supported()) }
}
