internal import AutofillWire
internal import AutofillSystem
internal import Glibc

/// bubblewrap making a helper's namespaces and keeping them, while the helper itself is executed
/// outside and enters them (docs/SANDBOX.md, "A helper in namespaces and your other programs").
///
/// Why not run the helper as bubblewrap's command: without privileges bubblewrap's namespaces belong
/// to a user namespace your user owns, and the kernel gives its owner every capability in it. A
/// process executed inside has that namespace as the one the kernel asks about when another process
/// wants to ptrace it or read its memory (mm->user_ns, fixed at execve), so `PR_SET_DUMPABLE 0`
/// would stop none of your other programs. Executed outside, the helper keeps the initial user
/// namespace there for life, and then enters bubblewrap's namespaces (`afs_join_namespaces`).
///
/// bubblewrap's command is `cat`, reading a pipe the host holds (the lifeline) and writing to the
/// helper's standard input: the host writes one byte, and its echo tells the helper the command runs,
/// so every mount is made. Closing the lifeline (or killing bubblewrap's group) ends the namespaces.
enum NamespaceHolder {
    struct Made {
        /// bubblewrap's process, the host's child.
        let bubblewrap: pid_t
        /// The host's end of the command's standard input.
        let lifeline: Int32
        /// The read end of the command's standard output, where its echo comes: the helper's standard input.
        let ready: Int32
    }

    /// Starts bubblewrap for `namespaces` and writes the byte its command will echo; returns at once (the
    /// helper's runtime starts while bubblewrap makes the mounts: the helper waits for the echo itself).
    /// `errorOutput` is the write end of the helper's error log, where bubblewrap's messages go.
    static func start(_ namespaces: HelperNamespaces, busFolder: String?, environment: [String], errorOutput: Int32)
        throws(AutofillError) -> Made {
        guard let bubblewrap = BubblewrapSupport.executable else {
            throw AutofillError(.notFound, "bubblewrap (bwrap), which gives \(namespaces.named) namespaces of its own, is not installed; install it (Debian: apt install bubblewrap)")
        }
        guard let waiter = SandboxContext.resolveProgram("cat") else {
            throw AutofillError(.notFound, "cat, which keeps the namespaces of \(namespaces.named), is not installed in /usr/bin or /bin; install coreutils")
        }
        let trace = getenv("LD_DEBUG_OUTPUT").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? SandboxContext.parent(of: $0) : nil }
        let command = BubblewrapCommand(policy: namespaces.policy, helper: waiter, helperArguments: [], busFolder: busFolder,
                                        loaderTrace: trace)
        let input: (read: Int32, write: Int32), ready: (read: Int32, write: Int32)
        do throws(SystemError) {
            input = try Descriptors.pipe()
        } catch {
            throw failure("pipe", error, namespaces)
        }
        do throws(SystemError) {
            ready = try Descriptors.pipe()
        } catch {
            close(input.read)
            close(input.write)
            throw failure("pipe", error, namespaces)
        }
        let spawned = Result { () throws(SystemError) in
            try Spawn.holder(bubblewrap, arguments: [bubblewrap] + command.arguments, environment: environment, input: input.read,
                             output: ready.write, error: errorOutput)
        }
        close(input.read)
        close(ready.write)
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error):
            close(input.write)
            close(ready.read)
            throw AutofillError(.internal, "cannot start bubblewrap for \(namespaces.named): posix_spawn failed (\(error.reason))")
        }
        var byte: UInt8 = 0x0a
        guard write(input.write, &byte, 1) == 1 else {
            let error = failure("write", SystemError("write", code: errno), namespaces)
            close(input.write)
            close(ready.read)
            try? Processes.killGroup(pid)
            Processes.reap(pid)
            throw error
        }
        return Made(bubblewrap: pid, lifeline: input.write, ready: ready.read)
    }

    private static func failure(_ what: String, _ error: SystemError, _ namespaces: HelperNamespaces) -> AutofillError {
        AutofillError(.internal, "cannot start bubblewrap for \(namespaces.named): \(what) failed (\(error.reason))")
    }

    /// The children of `pid` (the kernel's list, in /proc), empty when it cannot be read.
    static func children(of pid: pid_t) -> [pid_t] {
        guard let file = fopen("/proc/\(pid)/task/\(pid)/children", "r") else { return [] }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return [] }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t(String($0)) }
    }
}
