internal import AutofillWire
internal import AutofillSystem

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
        let bubblewrap: Int32
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
        let trace = Processes.variable("LD_DEBUG_OUTPUT").flatMap { $0.hasPrefix("/") ? SandboxContext.parent(of: $0) : nil }
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
            Descriptors.closeQuietly(input.read)
            Descriptors.closeQuietly(input.write)
            throw failure("pipe", error, namespaces)
        }
        let spawned = Result { () throws(SystemError) in
            try Spawn.holder(bubblewrap, arguments: [bubblewrap] + command.arguments, environment: environment, input: input.read,
                             output: ready.write, error: errorOutput)
        }
        Descriptors.closeQuietly(input.read)
        Descriptors.closeQuietly(ready.write)
        let pid: Int32
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error):
            Descriptors.closeQuietly(input.write)
            Descriptors.closeQuietly(ready.read)
            throw AutofillError(.internal, "cannot start bubblewrap for \(namespaces.named): posix_spawn failed (\(error.reason))")
        }
        do throws(SystemError) {
            try Descriptors.write(input.write, [0x0a])
        } catch {
            let error = failure("write", error, namespaces)
            Descriptors.closeQuietly(input.write)
            Descriptors.closeQuietly(ready.read)
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
    static func children(of pid: Int32) -> [Int32] {
        guard let file = try? Descriptors.open("/proc/\(pid)/task/\(pid)/children") else { return [] }
        defer { Descriptors.closeQuietly(file) }
        var buffer = [UInt8](repeating: 0, count: 255)
        guard let count = try? buffer.withUnsafeMutableBytes({ raw in try Descriptors.read(file, into: raw) }), count > 0 else { return [] }
        let line = buffer[0..<count].prefix { $0 != 0x0A }
        return String(decoding: line, as: UTF8.self).split(separator: " ").compactMap { Int32(String($0)) }
    }
}
