import AutofillTestSupport
import Foundation
import Testing

/// The host's own hardening (docs/SANDBOX.md): a running `autofill` and its sandboxed helper are not
/// dumpable, so another process of the same user cannot read their memory through /proc (the kernel
/// shows it in who owns /proc/PID: root, not the process's user; run as an unprivileged user, since
/// root owns everything under /proc of a root process anyway), nor ptrace autofill (a helper in
/// bubblewrap's user namespace can be attached to by its owner without Yama: docs/SANDBOX.md); and a
/// helper starts with none of the host's other environment variables.
struct HostHardeningTests {
    static let nobody: uid_t = 65534

    /// A running `autofill providers sync` (run as `nobody` with `asNobody`) whose helper hangs in its
    /// plugin's entry function, with `extra` in its environment. Ends both with SIGKILL afterwards.
    final class StuckHost {
        let folder: TemporaryFolder
        let host: ChildProcess.Running
        let helper: Int32

        init(asNobody: Bool, extra: [String: String] = [:]) async throws {
            folder = try TemporaryFolder()
            chmod(folder.path, 0o755)
            let home = "\(folder.path)/home", plugins = "\(folder.path)/plugins"
            try FileManager.default.createDirectory(atPath: "\(home)/run", withIntermediateDirectories: true)
            try FixturePlugin.bundle(in: plugins, name: "Stuck", plist: FixturePlugin.plist(id: "org.test.stuck", name: "Stuck"),
                                     defines: ["FIXTURE_HANG_IN_ENTRY"])
            let config = "\(home)/config.plist"
            try PropertyListSerialization.data(fromPropertyList: [
                "PluginSearchPaths": [plugins], "EnabledProviders": ["org.test.stuck"], "IdentityStoreDirectory": "stores",
                // The longest load deadline there is: the helper stays stuck however long a busy run
                // keeps this task from looking for it (the test ends it).
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
            var helper: Int32?
            let deadline = ContinuousClock.now + .seconds(300)
            // Looked for once more after the deadline: this task may have waited long for a thread of
            // a busy run's pool, and the helper started meanwhile.
            repeat {
                helper = HostHardeningTests.children(of: host.pid).first
                if helper == nil { try await Task.sleep(for: .milliseconds(20)) }
            } while helper == nil && host.isRunning && ContinuousClock.now < deadline
            helper = helper ?? HostHardeningTests.children(of: host.pid).first
            guard let helper else {
                kill(host.pid, SIGKILL)
                let ended = host.wait()
                throw ChildProcessError("no helper started (autofill exited \(ended.status): \(ended.stderr))")
            }
            // In namespaces of its own, the host's child is bubblewrap: the helper is below its init.
            var found = helper
            while HostHardeningTests.name(of: found) == "bwrap" {
                var next: Int32?
                repeat {
                    next = HostHardeningTests.children(of: found).first
                    if next == nil { try await Task.sleep(for: .milliseconds(20)) }
                } while next == nil && host.isRunning && ContinuousClock.now < deadline
                guard let next else { throw ChildProcessError("no helper under bubblewrap \(found)") }
                found = next
            }
            self.helper = found
            try await Task.sleep(for: .milliseconds(300))  // into the plugin's entry function
        }

        deinit {
            kill(host.pid, SIGKILL)
            _ = host.wait()
        }
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "needs root to run autofill as another user"))
    func theHostAndItsHelperAreNotDumpableSoTheUsersOtherProcessesCannotReadThem() async throws {
        let running = try await StuckHost(asNobody: true)
        for (what, pid) in [("autofill", running.host.pid), ("its helper", running.helper)] {
            #expect(Self.realUser(of: pid) == Self.nobody, "\(what) runs as nobody")
            #expect(Self.owner(of: "/proc/\(pid)/mem") == 0, "\(what)'s /proc entries belong to root: it is not dumpable")
        }
    }

    @Test func aHelperStartsWithNoneOfTheHostsOtherEnvironmentVariables() async throws {
        // The kernel keeps a process's first environment for its whole life: a variable passed at
        // spawn could be read back by the plugin even after the sandbox cleared it.
        let running = try await StuckHost(asNobody: false, extra: ["SECRET_TOKEN": "decoy-7f3a", "SSH_AUTH_SOCK": "/tmp/ssh-decoy/agent.1"])
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

    /// The process's name (its executable's, 15 characters at most).
    static func name(of pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func children(of parent: Int32) -> [Int32] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return all.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
                return false
            }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent
        }
    }
}
