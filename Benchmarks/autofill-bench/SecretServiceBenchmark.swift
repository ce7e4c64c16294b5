internal import Foundation
internal import Glibc

/// The Secret Service provider's figure: `autofill fill` of one login from a keyring of 1,000 items
/// (the collection unlocked), whole process, against `secret-tool lookup` of the same item (libsecret's
/// own command line, the least any program pays to read one secret) and `/bin/true`, in the same run;
/// then `autofill save` against `secret-tool store` of the same entries, new and again.
///
/// Setup, in a temporary folder: a `dbus-daemon` of its own and a real `gnome-keyring-daemon
/// --components=secrets` on it (its keyring unlocked with a password on stdin), 1,000 items stored
/// with `secret-tool store` as git, GNOME Web, Chromium and KeePassXC-style programs write them
/// (a quarter each), the provider enabled with the `none` authentication policy. The fill is measured
/// twice: each command in its own process (`AUTOFILL_AGENT=off`: the provider's helper starts, connects
/// and publishes the 1,000 identities, then answers), and through the agent (the helper and its
/// connection kept, as users run it).
struct SecretServiceBenchmark {
    let autofill: String
    let runs: Int
    static let items = 1000

    func run() throws -> String {
        for program in ["/usr/bin/dbus-daemon", "/usr/bin/gnome-keyring-daemon", "/usr/bin/secret-tool"] where access(program, X_OK) != 0 {
            throw BenchmarkError("\(program) is missing: run Scripts/bootstrap (gnome-keyring, libsecret-tools, dbus)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("autofill-ss-bench-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for sub in ["keyring/data", "keyring/run", "home/run"] {
            try FileManager.default.createDirectory(atPath: "\(folder)/\(sub)", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let bus = "unix:path=\(folder)/bus"
        try """
            <busconfig><type>session</type><listen>\(bus)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
            </busconfig>
            """.write(toFile: "\(folder)/session.conf", atomically: true, encoding: .utf8)
        let keyringEnvironment = ["DBUS_SESSION_BUS_ADDRESS=\(bus)", "HOME=\(folder)/keyring", "XDG_DATA_HOME=\(folder)/keyring/data",
                                  "XDG_RUNTIME_DIR=\(folder)/keyring/run", "PATH=/usr/bin:/bin"]
        let daemon = try Daemon("/usr/bin/dbus-daemon", ["--config-file=\(folder)/session.conf", "--nofork", "--nopidfile", "--nosyslog"],
                                environment: keyringEnvironment)
        defer { daemon.stop() }
        try waitUntil("the bus") { access("\(folder)/bus", F_OK) == 0 }
        let keyring = try Daemon("/usr/bin/gnome-keyring-daemon", ["--foreground", "--unlock", "--components=secrets"],
                                 environment: keyringEnvironment, input: "benchmark keyring")
        defer { keyring.stop() }
        try waitUntil("GNOME Keyring") {
            (try? Subprocess(path: "/usr/bin/dbus-send", arguments: [
                "--bus=\(bus)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.GetNameOwner", "string:org.freedesktop.secrets",
            ], environment: keyringEnvironment).run().status) == 0
        }
        try shell(Self.storeScript, keyringEnvironment)

        let home = "\(folder)/home"
        let config = "\(home)/config.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["\(repositoryRoot)/.build/plugins"], "EnabledProviders": ["org.autofill.secretservice"],
            "UserAuthentication": ["Policy": "none"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        // The user's own configuration allows `none` too: the agent holds the user's policy, and a
        // request's configuration may not weaken it (docs/AGENT.md, "Whose policy").
        try FileManager.default.createDirectory(atPath: "\(home)/.config/autofill", withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: ["UserAuthentication": ["Policy": "none"]], format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: "\(home)/.config/autofill/config.plist"))
        let environment = ["HOME=\(home)", "XDG_CONFIG_HOME=\(home)/.config", "XDG_DATA_HOME=\(home)/.local/share",
                           "XDG_RUNTIME_DIR=\(home)/run", "AUTOFILL_CONFIG=\(config)", "PATH=/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS=\(bus)"]
        try shell("\(autofill) providers trust org.autofill.secretservice && \(autofill) providers sync", environment)
        defer { _ = try? Subprocess(path: autofill, arguments: ["agent", "stop"], environment: environment).run() }

        waitUntilPluginsSettle(in: "\(repositoryRoot)/.build/plugins")
        let arguments = ["fill", "https://site500.example.com", "--user", "user500"]
        let alone = Subprocess(path: autofill, arguments: arguments, environment: environment + ["AUTOFILL_AGENT=off"])
        let agent = Subprocess(path: autofill, arguments: arguments, environment: environment)
        let lookup = Subprocess(path: "/usr/bin/secret-tool", arguments: ["lookup", "server", "site500.example.com", "user", "user500"],
                                environment: keyringEnvironment)
        for (name, program) in [("autofill fill", alone), ("autofill fill (agent)", agent), ("secret-tool lookup", lookup)] {
            let check = try program.run(captureOutput: true, keepStderr: true)
            guard check.status == 0, check.output.hasPrefix("pw-500") else {
                throw BenchmarkError("\(name) did not print the password of item 500 (status \(check.status))")
            }
        }
        let floor = Subprocess(path: "/bin/true", arguments: [], environment: environment)
        var alones: [Duration] = [], agents: [Duration] = [], lookups: [Duration] = [], floors: [Duration] = []
        for _ in 0..<runs {  // interleaved, so drift hits all four alike
            alones.append(try alone.run().elapsed)
            agents.append(try agent.run().elapsed)
            lookups.append(try lookup.run().elapsed)
            floors.append(try floor.run().elapsed)
        }
        let (saving, storing) = try saves(folder: folder, environment: environment, keyringEnvironment: keyringEnvironment)
        let a = Samples(alones), g = Samples(agents), l = Samples(lookups), t = Samples(floors)
        func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
        func ratio(_ value: Double) -> String { String(format: "%.2f", value / l.median) }
        let s = Samples(saving.new), u = Samples(saving.again), n = Samples(storing.new), r = Samples(storing.again)
        return """
            Secret Service: one login from a keyring of \(Self.items) items, unlocked (\(runs) runs each, interleaved)
              autofill fill, in its own process     median \(ms(a.median))  p90 \(ms(a.p90))  (\(ratio(a.median))× secret-tool)
              autofill fill, through the agent      median \(ms(g.median))  p90 \(ms(g.p90))  (\(ratio(g.median))× secret-tool)
              peer: secret-tool lookup              median \(ms(l.median))  p90 \(ms(l.p90))
              peer: /bin/true                       median \(ms(t.median))
            Saving the same entries (\(runs) each, interleaved; the item git's libsecret helper writes)
              autofill save, new, through the agent median \(ms(s.median))  p90 \(ms(s.p90))  (\(String(format: "%.2f", s.median / n.median))× secret-tool)
              autofill save, again (an update)      median \(ms(u.median))  p90 \(ms(u.p90))  (\(String(format: "%.2f", u.median / r.median))× secret-tool)
              peer: secret-tool store, new          median \(ms(n.median))  p90 \(ms(n.p90))
              peer: secret-tool store, again        median \(ms(r.median))  p90 \(ms(r.p90))
            """
    }

    /// `autofill save` through the agent against `secret-tool store` of the same entry shape (a new
    /// login i for each, then the same login again: an update), interleaved.
    private func saves(folder: String, environment: [String], keyringEnvironment: [String]) throws
        -> (autofill: (new: [Duration], again: [Duration]), secretTool: (new: [Duration], again: [Duration]))
    {
        var ours: (new: [Duration], again: [Duration]) = ([], []), theirs: (new: [Duration], again: [Duration]) = ([], [])
        for i in 0..<runs {
            let line = "\(folder)/save-\(i)", bare = "\(folder)/store-\(i)"
            try "saved-\(i)\n".write(toFile: line, atomically: true, encoding: .utf8)
            try "saved-\(i)".write(toFile: bare, atomically: true, encoding: .utf8)
            var save = Subprocess(path: autofill, arguments: ["save", "https://saved\(i).example.com", "--user", "saver"], environment: environment)
            save.input = line
            var store = Subprocess(path: "/usr/bin/secret-tool", arguments: [
                "store", "--label=Git: https://stored\(i).example.com/", "xdg:schema", "org.gnome.keyring.NetworkPassword",
                "protocol", "https", "server", "stored\(i).example.com", "user", "saver",
            ], environment: keyringEnvironment)
            store.input = bare
            for (program, into) in [(save, 0), (store, 1), (save, 2), (store, 3)] {
                let outcome = try program.run()
                guard outcome.status == 0 else { throw BenchmarkError("\(program.path) \(program.arguments[0]) failed (status \(outcome.status))") }
                switch into {
                case 0: ours.new.append(outcome.elapsed)
                case 1: theirs.new.append(outcome.elapsed)
                case 2: ours.again.append(outcome.elapsed)
                default: theirs.again.append(outcome.elapsed)
                }
            }
        }
        return (ours, theirs)
    }

    /// 1,000 items, a quarter each as git, GNOME Web, Chromium and KeePassXC-style items write them;
    /// item i is site<i>.example.com for user<i>, its password pw-<i>.
    static let storeScript = """
        seq \(items) | xargs -P 4 -I{} sh -c 'i=$1; case $((i % 4)) in
          0) set -- xdg:schema org.git.Password protocol https server site$i.example.com user user$i;;
          1) set -- xdg:schema org.epiphany.FormPassword uri https://site$i.example.com username user$i;;
          2) set -- xdg:schema chrome_libsecret_password_schema origin_url https://site$i.example.com/login username_value user$i signon_realm https://site$i.example.com/;;
          *) set -- Title "Entry $i" URL https://site$i.example.com UserName user$i;;
        esac; printf "pw-%s" "$i" | secret-tool store --label="item $i" "$@"' sh {}
        """

    private func shell(_ command: String, _ environment: [String]) throws {
        let outcome = try Subprocess(path: "/bin/sh", arguments: ["-c", command], environment: environment).run(keepStderr: true)
        guard outcome.status == 0 else { throw BenchmarkError("setup failed (\(outcome.status)): \(command)") }
    }

    private func waitUntil(_ what: String, _ ready: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !ready() {
            guard ContinuousClock.now < deadline else { throw BenchmarkError("\(what) did not start") }
            usleep(10_000)
        }
    }
}

/// A program the benchmark starts and ends itself (a bus, a keyring): `input` on its stdin, its output
/// to /dev/null; ``stop()`` kills and reaps it.
private struct Daemon {
    let pid: pid_t

    init(_ path: String, _ arguments: [String], environment: [String], input: String = "") throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw BenchmarkError("pipe failed: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) }, envp = environment.map { strdup($0) }
        defer { (argv + envp).forEach { free($0) } }
        var argvList = argv + [nil], envList = envp + [nil]
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, &argvList, &envList)
        close(ends[0])
        if spawned == 0 { _ = input.withCString { write(ends[1], $0, strlen($0)) } }
        close(ends[1])
        guard spawned == 0 else { throw BenchmarkError("cannot run \(path): \(String(cString: strerror(spawned)))") }
        self.pid = pid
    }

    func stop() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
