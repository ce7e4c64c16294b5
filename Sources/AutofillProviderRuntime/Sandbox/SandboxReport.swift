/// What a helper's sandbox turned out to be, as the helper found it before the plugin's library was
/// opened: shown with `-v`, and the proof a test checks.
public struct SandboxReport: Hashable, Sendable {
    /// The Landlock ABI used (the kernel's, capped at what autofill knows); 0 without Landlock.
    public var landlockABI: Int
    /// The Landlock ABI the kernel offers.
    public var kernelLandlockABI: Int
    /// Rules in the seccomp filter.
    public var seccompRules: Int
    /// Path rules given to Landlock, and how many of them were skipped because the path did not exist.
    public var pathRules: Int
    public var skippedPathRules: Int
    /// How long entering the sandbox took in the helper (environment, Landlock, seccomp), in microseconds.
    public var microseconds: Int

    public init(landlockABI: Int, kernelLandlockABI: Int, seccompRules: Int, pathRules: Int, skippedPathRules: Int, microseconds: Int = 0) {
        self.landlockABI = landlockABI
        self.kernelLandlockABI = kernelLandlockABI
        self.seccompRules = seccompRules
        self.pathRules = pathRules
        self.skippedPathRules = skippedPathRules
        self.microseconds = microseconds
    }

    /// One line for `-v`.
    public var summary: String { summary(kind: nil) }

    /// One line for `-v`, naming the `kind` of sandbox ("bubblewrap + Landlock + seccomp").
    public func summary(kind: String?) -> String {
        let landlock = landlockABI > 0 ? "Landlock ABI \(landlockABI) (the kernel offers \(kernelLandlockABI))" : "no Landlock"
        let skipped = skippedPathRules > 0 ? ", \(skippedPathRules) of them absent" : ""
        return "sandboxed\(kind.map { " (\($0))" } ?? ""): \(landlock), \(pathRules) path rules\(skipped), a seccomp filter of \(seccompRules) rules (entered in \(microseconds) µs)"
    }
}
