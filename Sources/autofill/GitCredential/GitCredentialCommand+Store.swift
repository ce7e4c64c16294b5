import AutofillWire
import Glibc

/// `store` and `erase`: what git learned about a password, handed to `autofill save` and `autofill
/// report unused-password` (the save-password and credential-update entry points), quietly.
extension GitCredentialCommand {
    func hand(_ operation: String) {
        guard let (description, site) = readSite() else { return }
        guard let user = description.username, !user.isEmpty else {
            return note("git names no user name; nothing to \(operation)")
        }
        guard !user.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return note("git's user name holds control characters; nothing to \(operation)")
        }
        var arguments: [String]
        var input: [UInt8] = []
        if operation == "store" {
            guard let password = description.password, !password.isEmpty else { return note("git gave no password; nothing to store") }
            guard !description.expires && !description.ephemeral else {
                return note("git's password is a short-lived token (password_expiry_utc or ephemeral); not saved")
            }
            guard !password.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else {
                return note("git's password holds a line break; not saved")
            }
            arguments = ["save", site, "--user=\(user)"]
            input = Array((password + "\n").utf8)
        } else {
            arguments = ["report", "unused-password", site, "--user=\(user)"]
        }
        if let config = global.config { arguments.append("--config=\(config)") }
        if global.verbose { arguments.append("--verbose") }
        switch Self.runAutofill(arguments, input: input, showErrors: global.verbose) {
        case .success(let status): note("autofill \(arguments[0]) for \(site) exited with status \(status)")
        case .failure(let reason): note(reason.description)
        }
    }

    struct RunFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `autofill arguments` (the client beside this program) with `input` on its stdin, its
    /// stdout on /dev/null (git reads nothing from store and erase) and its stderr on ours only when
    /// `showErrors`; its exit status. `input` goes into the pipe before the program starts: it is one
    /// line of git's, shorter than a pipe holds, so nothing waits on the other.
    static func runAutofill(_ arguments: [String], input: [UInt8], showErrors: Bool) -> Result<Int32, RunFailure> {
        let executable = ClientProcess.folder() + "/autofill"
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return .failure(RunFailure(description: "pipe: \(String(cString: strerror(errno)))")) }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var written = 0
        while written < input.count {
            let count = input[written...].withUnsafeBytes { write(pipeEnds[1], $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            written += count
        }
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        if !showErrors { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        var pid: pid_t = 0
        let status = withCStrings(["autofill"] + arguments) { argv in
            posix_spawn(&pid, executable, &actions, nil, argv, environ)
        }
        guard status == 0 else { return .failure(RunFailure(description: "cannot run \(executable): \(String(cString: strerror(status)))")) }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        return .success((raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f))
    }
}
