internal import AutofillWire
internal import CAutofillHelper
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
/// bubblewrap's command is `cat`, reading a pipe the host holds (the lifeline) and writing to one the
/// host reads: the host writes one byte, and its echo says the command runs, so every mount is
/// made. Closing the lifeline (or killing bubblewrap's group) ends the namespaces.
enum NamespaceHolder {
    struct Made {
        /// bubblewrap's process, the host's child.
        let bubblewrap: pid_t
        /// bubblewrap's command, in the namespaces and root the helper enters.
        let member: pid_t
        /// The host's end of the command's standard input.
        let lifeline: Int32
    }

    /// How long bubblewrap may take to make the namespaces (a loaded machine is slow; it takes milliseconds).
    static let readyTimeoutMilliseconds: Int32 = 60_000

    /// Starts bubblewrap for `namespaces` and waits until its command runs. `errorOutput` is the write
    /// end of the helper's error log (bubblewrap's messages go there), `errorLog` its read end (read
    /// into the error if bubblewrap fails).
    static func start(_ namespaces: HelperNamespaces, busFolder: String?, environment: [String], errorOutput: Int32,
                      errorLog: Int32) throws(AutofillError) -> Made {
        guard let bubblewrap = BubblewrapSupport.executable else {
            throw AutofillError(.notFound, "bubblewrap (bwrap), which gives \(namespaces.named) namespaces of its own, is not installed; install it (Debian: apt install bubblewrap)")
        }
        guard let waiter = SandboxContext.resolveProgram("cat") else {
            throw AutofillError(.notFound, "cat, which keeps the namespaces of \(namespaces.named), is not installed in /usr/bin or /bin; install coreutils")
        }
        let trace = getenv("LD_DEBUG_OUTPUT").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? SandboxContext.parent(of: $0) : nil }
        let command = BubblewrapCommand(policy: namespaces.policy, helper: waiter, helperArguments: [], busFolder: busFolder,
                                        loaderTrace: trace)
        var input: [Int32] = [-1, -1], ready: [Int32] = [-1, -1]
        guard afh_pipe(&input, 0) == 0 else { throw failure("pipe", namespaces) }
        guard afh_pipe(&ready, 0) == 0 else {
            let error = failure("pipe", namespaces)
            input.forEach { close($0) }
            throw error
        }
        var pid: pid_t = 0
        let status = withCStrings([bubblewrap] + command.arguments) { argv in
            withCStrings(environment) { envp in afh_spawn_holder(bubblewrap, argv, envp, input[0], ready[1], errorOutput, &pid) }
        }
        close(input[0])
        close(ready[1])
        guard status == 0 else {
            close(input[1])
            close(ready[0])
            throw AutofillError(.internal, "cannot start bubblewrap for \(namespaces.named): posix_spawn failed (\(String(cString: strerror(status))))")
        }
        defer { close(ready[0]) }
        var byte: UInt8 = 0x0a
        var echoed = write(input[1], &byte, 1) == 1 && waitReadable(ready[0]) && read(ready[0], &byte, 1) == 1
        let member = echoed ? children(of: pid).first.flatMap { children(of: $0).first } : nil
        echoed = echoed && member != nil
        guard echoed, let member else {
            close(input[1])
            afh_kill_group(pid)
            var ended: Int32 = 0
            while waitpid(pid, &ended, 0) < 0 && errno == EINTR {}
            let said = readAvailable(errorLog)
            throw AutofillError(.internal, "bubblewrap could not make the namespaces of \(namespaces.named)\(said.isEmpty ? "" : ": \(said)")")
        }
        return Made(bubblewrap: pid, member: member, lifeline: input[1])
    }

    private static func failure(_ what: String, _ namespaces: HelperNamespaces) -> AutofillError {
        AutofillError(.internal, "cannot start bubblewrap for \(namespaces.named): \(what) failed (\(String(cString: strerror(errno))))")
    }

    /// Waits until `descriptor` is readable (or at its end), up to ``readyTimeoutMilliseconds``.
    private static func waitReadable(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let count = poll(&entry, 1, readyTimeoutMilliseconds)
            if count < 0 && errno == EINTR { continue }
            return count > 0
        }
    }

    /// What bubblewrap wrote to the error log so far (its own messages), one line, at most 512 bytes.
    private static func readAvailable(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return "" }
        return String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n").joined(separator: "; ")
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
