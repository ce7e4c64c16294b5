internal import AutofillSystem
internal import AutofillWire
internal import Glibc

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
    static let executable: String? = candidates.first { access($0, X_OK) == 0 }

    /// Whether helpers get namespaces. `AUTOFILL_TEST_NO_USER_NAMESPACES=1` makes the host believe
    /// they are closed, so tests can check what happens then; it can only take namespaces away.
    public static var available: Bool {
        if let value = getenv("AUTOFILL_TEST_NO_USER_NAMESPACES"), String(cString: value) == "1" { return false }
        return probed
    }

    /// The probe's answer, remembered for this boot in `$XDG_RUNTIME_DIR/autofill/user-namespaces`
    /// (a folder of autofill's own, a tmpfs gone at the next boot), so a command pays the probe's
    /// `bwrap` run once per boot rather than once per process.
    private static let probed: Bool = {
        let boot = readText("/proc/sys/kernel/random/boot_id") ?? "?"
        let runtime = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil }
        let cache = runtime.map { "\($0)/autofill/user-namespaces" }
        if let cache, let text = readText(cache) {
            if text == "\(boot) yes" { return true }
            if text == "\(boot) no" { return false }
        }
        let answer = probe()
        if let runtime, let cache {
            mkdir("\(runtime)/autofill", 0o700)
            _ = try? AtomicFile.write(Array("\(boot) \(answer ? "yes" : "no")".utf8), to: cache, mode: 0o600)
        }
        return answer
    }()

    /// A small file's text, without its trailing newline; nil when it cannot be read.
    private static func readText(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
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
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { return false }
        defer { close(null) }
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
