import AutofillTestSupport
import Foundation
import Testing

/// The host's own hardening (docs/SANDBOX.md): a running `autofill` and its sandboxed helper are not
/// dumpable, so another process of the same user cannot read their memory through /proc (the kernel
/// shows it in who owns /proc/PID: root, not the process's user; run as an unprivileged user, since
/// root owns everything under /proc of a root process anyway), nor ptrace autofill or a helper in
/// bubblewrap's namespaces (docs/SANDBOX.md, "A helper in namespaces and your other programs"); and a
/// helper starts with none of the host's other environment variables.
struct HostHardeningTests {
    static let nobody: uid_t = 65534

    /// A running `autofill providers sync` (run as `nobody` with `asNobody`) whose helper hangs in its
    /// plugin's entry function, with `extra` in its environment. Ends both with SIGKILL afterwards.
    final class StuckHost {
        let folder: TemporaryFolder
        let host: ChildProcess.Running
        let helper: Int32

        /// Synchronous on purpose: the host gives up on the stuck plugin after its load deadline (600 s
        /// at most), and under load an async test can resume from an await later than that (its task
        /// waits for a thread of the test run's pool); this holds its thread until the helper is found.
        init(asNobody: Bool, extra: [String: String] = [:]) throws {
            folder = try TemporaryFolder()
            chmod(folder.path, 0o755)
            let home = "\(folder.path)/home", plugins = "\(folder.path)/plugins"
            try FileManager.default.createDirectory(atPath: "\(home)/run", withIntermediateDirectories: true)
            try FixturePlugin.bundle(in: plugins, name: "Stuck", plist: FixturePlugin.plist(id: "org.test.stuck", name: "Stuck"),
                                     defines: ["FIXTURE_HANG_IN_ENTRY"])
            let config = "\(home)/config.plist"
            try PropertyListSerialization.data(fromPropertyList: [
                "PluginSearchPaths": [plugins], "EnabledProviders": ["org.test.stuck"], "IdentityStoreDirectory": "stores",
                // The longest load deadline there is (the test ends the host sooner).
                "ProviderIsolation": ["LoadDeadlineSeconds": 600],
            ] as [String: Any], format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
            if asNobody { for path in [home, "\(home)/run", config] { chown(path, HostHardeningTests.nobody, HostHardeningTests.nobody) } }
            chmod(home, 0o700)
            chmod("\(home)/run", 0o700)
            let environment = ["HOME": home, "XDG_RUNTIME_DIR": "\(home)/run", "PATH": "/usr/bin:/bin"].merging(extra) { $1 }
            // setpriv execs autofill: the same pid.
            let (program, prefix) = asNobody
                ? ("/usr/bin/setpriv", ["--reuid=\(HostHardeningTests.nobody)", "--regid=\(HostHardeningTests.nobody)", "--clear-groups", CLI.binary])
                : (CLI.binary, [])
            let approved = try ChildProcess.run(program, prefix + ["providers", "trust", "org.test.stuck", "--config", config], environment: environment)
            #expect(approved.status == 0, "\(approved.stderr)")
            host = try ChildProcess.start(program, prefix + ["providers", "sync", "--config", config], environment: environment)
            // The helper is executed by autofill (beside bubblewrap, which holds its namespaces); in
            // namespaces it serves from its one child, which it forked there.
            func helperChild(of parent: Int32) -> Int32? {
                ProcessTable.children(of: parent).first { ProcessTable.name(of: $0)?.hasPrefix("autofill-provid") == true }
            }
            var helper: Int32?
            let deadline = ContinuousClock.now + .seconds(300)
            repeat {
                helper = helperChild(of: host.pid)
                if helper == nil { usleep(20_000) }
            } while helper == nil && host.isRunning && ContinuousClock.now < deadline
            guard let helper else {
                kill(host.pid, SIGKILL)
                let ended = host.wait()
                throw ChildProcessError("no helper started (autofill exited \(ended.status): \(ended.stderr))")
            }
            var found = helper
            if NamespaceSandboxTests.userNamespaces {
                var inner: Int32?
                repeat {
                    inner = helperChild(of: helper)
                    if inner == nil { usleep(20_000) }
                } while inner == nil && host.isRunning && ContinuousClock.now < deadline
                guard let inner else { throw ChildProcessError("no helper forked in the namespaces by \(helper)") }
                found = inner
            }
            self.helper = found
            usleep(300_000)  // into the plugin's entry function
        }

        deinit {
            kill(host.pid, SIGKILL)
            _ = host.wait()
        }
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "needs root to run autofill as another user"))
    func theHostAndItsHelperAreNotDumpableSoTheUsersOtherProcessesCannotReadThem() throws {
        let running = try StuckHost(asNobody: true)
        for (what, pid) in [("autofill", running.host.pid), ("its helper", running.helper)] {
            #expect(Self.realUser(of: pid) == Self.nobody, "\(what) runs as nobody")
            #expect(Self.owner(of: "/proc/\(pid)/mem") == 0, "\(what)'s /proc entries belong to root: it is not dumpable")
        }
    }

    /// What another program of the user's tries on a process (Python's ctypes, run as nobody):
    /// PTRACE_ATTACH and process_vm_readv of the first mapping it can name (any address for a process
    /// whose maps it cannot read: the refusal comes before the address is looked at). Prints
    /// "attach=<errno> read=<errno>", 0 for success.
    static let attacker = """
        import ctypes, os, sys
        libc = ctypes.CDLL(None, use_errno=True)
        pid = int(sys.argv[1])
        libc.ptrace.restype = ctypes.c_long
        libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
        attach = 0 if libc.ptrace(16, pid, None, None) == 0 else ctypes.get_errno()
        if attach == 0:
            os.waitpid(pid, 0x40000000)
            libc.ptrace(17, pid, None, None)
        try:
            address = int(open("/proc/%d/maps" % pid).readline().split("-")[0], 16)
        except OSError:
            address = 0x10000
        class IOVec(ctypes.Structure):
            _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]
        buffer = ctypes.create_string_buffer(16)
        local, remote = IOVec(ctypes.addressof(buffer), 16), IOVec(address, 16)
        libc.process_vm_readv.restype = ctypes.c_ssize_t
        read = 0 if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) == 16 else ctypes.get_errno()
        print("attach=%d read=%d" % (attach, read))
        """

    /// Runs ``attacker`` as nobody on `pid`: its line.
    static func attack(_ pid: Int32) throws -> String {
        let run = try ChildProcess.run("/usr/bin/setpriv", ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups",
                                                            "/usr/bin/python3", "-c", attacker, "\(pid)"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") && NamespaceSandboxTests.userNamespaces,
                   "needs root to run autofill as another user, python3, and user namespaces"))
    func anotherProgramOfTheUserCannotAttachToAHelperInNamespacesNorReadItsMemory() throws {
        // bubblewrap's user namespace belongs to the user, who has every capability in it: a helper
        // executed inside could be attached to by any program of the user's. Executed outside, it
        // cannot (the kernel asks the initial user namespace about a process that is not dumpable).
        let running = try StuckHost(asNobody: true)
        #expect(Self.realUser(of: running.helper) == Self.nobody)
        let inside = try String(contentsOfFile: "/proc/\(running.helper)/status", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("NSpid:") }
        #expect(inside?.split(whereSeparator: { $0 == " " || $0 == "\t" }).count == 3, "the helper is in a pid namespace of its own: \(inside ?? "")")
        #expect(try Self.attack(running.helper) == "attach=\(EPERM) read=\(EPERM)")
        // The control: the same program on a process of nobody's that is dumpable.
        let own = try ChildProcess.start("/usr/bin/setpriv", ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups",
                                                              "/usr/bin/sleep", "60"])
        defer {
            kill(own.pid, SIGKILL)
            _ = own.wait()
        }
        // Once setpriv has executed sleep (it is not dumpable between its change of user and that).
        let started = ContinuousClock.now
        while ProcessTable.name(of: own.pid) != "sleep" && ContinuousClock.now - started < .seconds(60) { usleep(20_000) }
        #expect(try Self.attack(own.pid) == "attach=0 read=0")
    }

    @Test func aHelperStartsWithNoneOfTheHostsOtherEnvironmentVariables() throws {
        // The kernel keeps a process's first environment for its whole life: a variable passed at
        // spawn could be read back by the plugin even after the sandbox cleared it.
        let running = try StuckHost(asNobody: false, extra: ["SECRET_TOKEN": "decoy-7f3a", "SSH_AUTH_SOCK": "/tmp/ssh-decoy/agent.1"])
        let first = try #require(FileManager.default.contents(atPath: "/proc/\(running.helper)/environ"))
        let names = first.split(separator: 0).map { String(decoding: $0.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self) }
        #expect(!names.contains("SECRET_TOKEN") && !names.contains("SSH_AUTH_SOCK"), "\(names)")
        #expect(!String(decoding: first, as: UTF8.self).contains("decoy"))
        #expect(names.contains("HOME"))
    }

    static func owner(of path: String) -> uid_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_uid : nil
    }

    static func realUser(of pid: Int32) -> uid_t? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") })
        else { return nil }
        return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { uid_t($0) }
    }
}
