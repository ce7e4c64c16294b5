internal import AutofillSystem
internal import AutofillWire

/// Starts the user's gpg-agent for a GnuPG home, as `gpg` and `pass` do when it is not running: a
/// provider that declares `GPGAgent` (docs/SANDBOX.md) needs it, and its sandbox cannot start a daemon
/// (one started there would be confined and end with the helper). autofill runs
/// `gpgconf --homedir HOME --launch gpg-agent`, outside the sandbox, before it runs the provider;
/// gpgconf does nothing when the agent runs already.
enum GPGAgentLauncher {
    /// Where gpgconf is looked for (the helpers' PATH).
    static let folders = ["/usr/local/bin", "/usr/bin", "/bin"]

    /// Launches gpg-agent for `home` (an absolute folder) and waits for gpgconf; the problem, or nil.
    /// `environment` is the user's (the client's, through the agent): gpg-agent keeps what it needs of it
    /// (the display and terminal for pinentry).
    static func launch(home: String, environment: [String: String]) -> String? {
        if let refusal = refusal(home: home) { return refusal }
        let candidates: [String] = folders.map { folder in folder + "/gpgconf" }
        guard let gpgconf = candidates.first(where: Paths.isExecutable) else {
            return "gpgconf is not installed (Debian: gnupg)"
        }
        var passed = ["PATH=/usr/local/bin:/usr/bin:/bin"]
        for name in ["HOME", "USER", "LOGNAME", "LANG", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS",
                     "XDG_RUNTIME_DIR", "GPG_TTY", "TERM"] {
            if let value = environment[name] { passed.append("\(name)=\(value)") }
        }
        let arguments = [gpgconf, "--homedir", home, "--launch", "gpg-agent"]
        let pid: Int32
        do {
            let null = try Descriptors.open("/dev/null", .readWrite)
            defer { Descriptors.closeQuietly(null) }
            pid = try Spawn.program(gpgconf, arguments: arguments, environment: passed, input: null, output: null, error: null)
        } catch {
            return "cannot run \(gpgconf): \(error.reason)"
        }
        let ended = Processes.reap(pid)
        let code = ended.exited ? ended.exitStatus : -1
        return code == 0 ? nil : "`gpgconf --homedir \(home) --launch gpg-agent` failed (status \(code))"
    }

    /// The folders a program gpg-agent runs may be in: the system's, which no user can change.
    static let systemFolders = ["/usr/", "/bin/", "/sbin/", "/lib/"]

    /// Why gpg-agent must not be started for `home`, or nil. No provider may change a GnuPG home (its grant
    /// is read only: ``SandboxContext/checkGnuPG``), but something else of the user's might have written
    /// its gpg-agent.conf: an agent started outside the sandbox would run whatever program it names
    /// (`pinentry-program`, `scdaemon-program`, …) outside it too. autofill starts one only when every
    /// program option names a file in a system folder.
    static func refusal(home: String) -> String? {
        let path = home + "/gpg-agent.conf"
        guard let fd = try? Descriptors.open(path) else { return nil }  // no configuration: gpg-agent's defaults
        defer { Descriptors.closeQuietly(fd) }
        let bytes: [UInt8]
        do {
            guard let all = try Descriptors.readAll(fd, limit: 16 << 20) else { return "\(path) is too long to check" }
            bytes = all
        } catch {
            return nil  // unreadable (a folder): gpg-agent cannot read it either
        }
        var lines = 0
        for text in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            lines += 1
            guard lines <= 10_000 else { return "\(path) is too long to check" }
            let line = String(text).trimmed
            let option = line.prefix { !$0.isWhitespace }
            guard option.hasSuffix("-program") else { continue }
            let value = String(line.dropFirst(option.count)).trimmed
            let plain = value.hasPrefix("/") && !value.split(separator: "/").contains("..")
            guard plain, systemFolders.contains(where: { value.hasPrefix($0) }) else {
                return "\(path) sets \(option) to a program outside the system's folders, which gpg-agent would run outside the provider's sandbox; autofill does not start gpg-agent with it (check that file; start gpg-agent yourself if you wrote it)"
            }
        }
        return nil
    }
}
