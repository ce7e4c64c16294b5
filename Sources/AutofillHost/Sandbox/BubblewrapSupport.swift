internal import AutofillSystem
internal import AutofillWire

/// Whether this system lets autofill make namespaces with bubblewrap: `bwrap` installed, and user
/// namespaces open to unprivileged users (some kernels and configurations close them:
/// `kernel.unprivileged_userns_clone=0`, `user.max_user_namespaces=0`, AppArmor's
/// `restrict_unprivileged_userns`). Found out once per boot by running `bwrap` with the options a
/// helper gets, on `true`.
public enum BubblewrapSupport {
    /// Where autofill looks for bubblewrap (a fixed list, not `$PATH`: the sandbox's maker is not
    /// something the environment chooses).
    static let candidates = ["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"]

    /// The `bwrap` executable, nil when none is installed.
    static let executable: String? = candidates.first(where: Paths.isExecutable)

    /// Whether helpers get namespaces. `AUTOFILL_TEST_NO_USER_NAMESPACES=1` makes the host believe
    /// they are closed, so tests can check what happens then; it can only take namespaces away.
    public static var available: Bool {
        if Processes.variable("AUTOFILL_TEST_NO_USER_NAMESPACES") == "1" { return false }
        return probed
    }

    /// The probe's answer, remembered for this boot in `$XDG_RUNTIME_DIR/autofill/user-namespaces`
    /// (a folder of autofill's own, a tmpfs gone at the next boot), so a command pays the probe's
    /// `bwrap` run once per boot rather than once per process.
    private static let probed: Bool = {
        let boot = readText("/proc/sys/kernel/random/boot_id") ?? "?"
        let runtime = Processes.variable("XDG_RUNTIME_DIR").flatMap { $0.hasPrefix("/") ? $0 : nil }
        let cache = runtime.map { "\($0)/autofill/user-namespaces" }
        if let cache, let text = readText(cache) {
            if text == "\(boot) yes" { return true }
            if text == "\(boot) no" { return false }
        }
        let answer = probe()
        if let runtime, let cache {
            try? Paths.makeFolder("\(runtime)/autofill", mode: 0o700)
            _ = try? AtomicFile.write(Array("\(boot) \(answer ? "yes" : "no")".utf8), to: cache, mode: 0o600)
        }
        return answer
    }()

    /// A small file's text, without its trailing newline; nil when it cannot be read.
    private static func readText(_ path: String) -> String? {
        guard let descriptor = try? Descriptors.open(path, .noFollow) else { return nil }
        defer { Descriptors.closeQuietly(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        guard let count = try? buffer.withUnsafeMutableBytes({ raw in try Descriptors.read(descriptor, into: raw) }), count > 0 else { return nil }
        var text = String(decoding: buffer[0..<count], as: UTF8.self)
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Runs `bwrap` with a helper's options on `true`: whether it succeeds.
    private static func probe() -> Bool {
        guard let executable, let truth = SandboxContext.resolveProgram("true") else { return false }
        let command = BubblewrapCommand(
            policy: SandboxPolicy(rules: [.init(path: "/usr", access: .read, reason: "the system"),
                                          .init(path: "/lib64", access: .read, reason: "the system"),
                                          .init(path: "/lib", access: .read, reason: "the system")],
                                  dataFolder: "/"),
            helper: truth, helperArguments: [], busFolder: nil)
        guard let null = try? Descriptors.open("/dev/null", .readWrite) else { return false }
        defer { Descriptors.closeQuietly(null) }
        guard let pid = try? Spawn.program(executable, arguments: [executable] + command.arguments, environment: ["PATH=/usr/bin:/bin"],
                                           input: null, output: null, error: null) else { return false }
        let ended = Processes.reap(pid)
        return ended.exited && ended.exitStatus == 0
    }

    /// The one line `-v` prints of the kind of sandbox a helper got.
    static func kind(namespaces: Bool) -> String {
        namespaces ? "bubblewrap + Landlock + seccomp" : "Landlock + seccomp (no user namespaces)"
    }
}
