internal import AutofillWire
internal import CAutofillHelper
internal import Glibc

/// Whether this system lets autofill make namespaces with bubblewrap: `bwrap` installed, and user
/// namespaces open to unprivileged users (some kernels and configurations close them:
/// `kernel.unprivileged_userns_clone=0`, `user.max_user_namespaces=0`, AppArmor's
/// `restrict_unprivileged_userns`). Found out once per process by running `bwrap` with the options a
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

    private static let probed: Bool = {
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
        var pid: pid_t = 0
        let status = withCStrings([executable] + command.arguments) { argv in
            withCStrings(["PATH=/usr/bin:/bin"]) { envp in afh_spawn_program(executable, argv, envp, null, null, null, -1, &pid) }
        }
        guard status == 0 else { return false }
        var result: Int32 = 0
        while waitpid(pid, &result, 0) < 0 && errno == EINTR {}
        return afh_exited(result) != 0 && afh_exit_status(result) == 0
    }()

    /// The one line `-v` prints of the kind of sandbox a helper got.
    static func kind(namespaces: Bool) -> String {
        namespaces ? "bubblewrap + Landlock + seccomp" : "Landlock + seccomp (no user namespaces)"
    }
}
