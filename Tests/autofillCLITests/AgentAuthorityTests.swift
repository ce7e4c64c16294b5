import AutofillTestSupport
import Foundation
import Synchronization
import Testing

/// Who may drive the agent, and with what (docs/AGENT.md, "Who may talk to it"): only a person's
/// client, only the commands a client routes, whatever its PATH or locale, and nothing a client sends
/// crashes or starves it. Through the real agent, with raw clients on its socket (python) and a
/// sandboxed attacker among the providers.
struct AgentAuthorityTests {
    /// The agent tests' home: org.t.fast and org.t.slow with identities "ok", "hang" and "never".
    let agent: AgentTests
    var home: TemporaryHome { agent.home }
    var config: String { agent.config }

    init() throws {
        agent = try AgentTests()
    }

    /// A raw client of the agent protocol (AgentProtocol.swift, version 3), in python:
    ///   requests SOCKET REQUESTS_JSON ENVIRONMENT_JSON   each request `{"args": [...], "program": "..."}`
    ///        sent on a connection of its own with descriptors 0-2; prints `reply: <what came back>`
    ///   confined …         the same from a child, after no_new_privs (setpriv) and a seccomp filter
    ///   named NAME …       the same from a child of a process named NAME
    static let rawClient = #"""
        import ctypes, json, os, socket, struct, subprocess, sys
        def s(b): return struct.pack("<I", len(b)) + b
        def frame(args, env, program):
            body = bytes([0xA1]) + struct.pack("<I", 3) + s(program.encode())
            body += struct.pack("<I", len(args)) + b"".join(s(a.encode()) for a in args)
            items = sorted(env.items())
            body += struct.pack("<I", len(items)) + b"".join(s(k.encode()) + s(v.encode()) for k, v in items)
            return struct.pack("<I", len(body)) + body
        def describe(data):
            if len(data) < 5: return "closed"
            if data[4] == 0xA2: return "exit %d" % struct.unpack("<i", data[5:9])[0]
            n = struct.unpack("<I", data[5:9])[0]
            return {0xA3: "runHere", 0xA4: "busy"}.get(data[4], "?") + ": " + data[9:9 + n].decode()
        def send(path, args, env, program):
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.connect(path)
            try: socket.send_fds(c, [frame(args, env, program)], [0, 1, 2])
            except OSError: pass
            data = b""
            while True:
                try: chunk = c.recv(65536)
                except ConnectionResetError: break
                if not chunk: break
                data += chunk
            return describe(data)
        mode = sys.argv[1]
        if mode == "confined":
            libc = ctypes.CDLL(None, use_errno=True)
            allow = ctypes.create_string_buffer(struct.pack("<HBBI", 0x06, 0, 0, 0x7FFF0000))  # BPF_RET|BPF_K SECCOMP_RET_ALLOW
            class Program(ctypes.Structure): _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
            program = Program(1, ctypes.cast(allow, ctypes.c_void_p))
            assert libc.prctl(22, 2, ctypes.byref(program), 0, 0) == 0, "PR_SET_SECCOMP"  # needs no_new_privs: setpriv
        if mode == "named":
            ctypes.CDLL(None).prctl(15, sys.argv[2].encode(), 0, 0, 0)  # PR_SET_NAME
            del sys.argv[2]
        if mode in ("confined", "named"):
            sys.stdout.flush()
            sys.exit(subprocess.run([sys.executable, "-c", os.environ["RAW_CLIENT"], "requests"] + sys.argv[2:]).returncode)
        env = json.loads(sys.argv[4])
        for request in json.loads(sys.argv[3]):
            sys.stdout.flush()
            print("reply: " + send(sys.argv[2], request["args"], env, request.get("program", "")), flush=True)
        """#

    /// Runs ``rawClient`` in `mode` (with `prefix` before python: setpriv) sending `requests`.
    func raw(_ requests: [[String: Any]], mode: [String] = ["requests"], prefix: [String] = [],
             environment: [String: String]? = nil) throws -> CLI.Result {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: requests), as: UTF8.self)
        let clientEnvironment = String(decoding: try JSONSerialization.data(withJSONObject: environment ?? CLI.environment(home: home.path)), as: UTF8.self)
        let command = prefix + ["/usr/bin/python3", "-c", Self.rawClient] + mode + [agent.socket, json, clientEnvironment]
        return try ChildProcess.run(command[0], Array(command.dropFirst()), environment: ["PATH": "/usr/bin:/bin", "RAW_CLIENT": Self.rawClient])
    }

    /// The program a client of this build names (its `autofill-cli`, links resolved).
    static var program: String { URL(fileURLWithPath: "\(CLI.root)/.build/debug/autofill-cli").resolvingSymlinksInPath().path }

    var fill: [String: Any] { ["args": ["fill", "fast.test", "--user", "ok", "--config", config], "program": Self.program] }

    @Test(.enabled(if: CLI.usesAgent)) func aRawClientRunsOnlyTheCommandsAClientRoutes() throws {
        #expect(try agent.autofill(["fill", "fast.test", "--user", "ok"]).stdout == "pw-fast\n")
        let (pid, _) = try #require(try agent.status())
        let before = try Data(contentsOf: URL(fileURLWithPath: config))
        let refused: [[String]] = [
            ["providers", "set", "org.t.fast", "FixtureName", "slow"], ["init"], ["providers", "trust", "org.t.fast"],
            ["providers", "disable", "org.t.slow"], ["clipboard-clearer", "--tool", "xclip", "--seconds", "1e300"],
            ["agent", "serve"], ["agent", "stop"], ["identities", "list"], ["plugin", "validate", "\(home.path)/plugins/org.t.fast.afprovider"],
            ["fill", "fast.test", "--user", "ok", "--help"],
        ]
        let result = try raw(refused.map { ["args": $0 + ["--config", config], "program": Self.program] } + [fill])
        let replies = result.stdout.split(separator: "\n").filter { $0.hasPrefix("reply: ") }
        #expect(replies.count == refused.count + 1, "\(result.stdout) \(result.stderr)")
        for (command, reply) in zip(refused, replies) {
            #expect(reply == "reply: runHere: the agent does not run this command; it runs in the client's own process", "\(command): \(reply)")
        }
        // Control: the same raw client's fill is served, to its own stdout.
        #expect(replies.last == "reply: exit 0" && result.stdout.contains("pw-fast\n"), "\(result.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: config)) == before, "no configuration command ran")
        #expect(try agent.status()?.pid == pid, "the agent runs on, uncrashed")
        // The clearer's own range check, where it runs: in the caller's process.
        let clearer = try agent.autofill(["clipboard-clearer", "--tool", "xclip", "--seconds", "1e300"])
        #expect(clearer.status == 64 && clearer.stderr.contains("--seconds takes a number of seconds from 0.1 to 3600"), "\(clearer.stderr)")
    }

    @Test(.enabled(if: CLI.usesAgent)) func aConfinedProcessOrOneUnderAHelperIsRefusedAndLearnsNothing() throws {
        #expect(try agent.autofill(["fill", "fast.test", "--user", "ok"]).stdout == "pw-fast\n")
        let refusal = "reply: runHere: the agent serves only a person's own commands, not a provider's helper nor anything running under one, nor a process that runs confined (no_new_privs and a seccomp filter); the command runs in this process"
        let lock: [String: Any] = ["args": ["lock", "--config", config], "program": Self.program]
        // Under no_new_privs and a (trivial) seccomp filter, as everything under a helper runs.
        let confined = try raw([fill, lock], mode: ["confined"], prefix: ["/usr/bin/setpriv", "--no-new-privs"])
        #expect(confined.stdout == "\(refusal)\n\(refusal)\n", "\(confined.stdout) \(confined.stderr)")
        // A child of a process named as the helper is (the kernel's 15 characters of autofill-provider-helper).
        let named = try raw([fill, lock], mode: ["named", "autofill-provider-helper"])
        #expect(named.stdout == "\(refusal)\n\(refusal)\n", "\(named.stdout) \(named.stderr)")
        for result in [confined, named] {
            #expect(!result.stdout.contains(home.path) && !result.stdout.contains(CLI.root), "nothing of the agent's paths")
        }
        #expect(try agent.status()?.helpers["org.t.fast"] != nil, "nothing was locked")
        // Controls: a child of a process with another name, and setpriv without no_new_privs, are served.
        let control = try raw([fill], mode: ["named", "python-parent"])
        #expect(control.stdout == "pw-fast\nreply: exit 0\n", "\(control.stdout) \(control.stderr)")
        let plain = try raw([fill], prefix: ["/usr/bin/setpriv", "--inh-caps=-all"])
        #expect(plain.stdout == "pw-fast\nreply: exit 0\n", "\(plain.stdout) \(plain.stderr)")
    }

    @Test(.enabled(if: CLI.usesAgent), arguments: ["agent-lock", "agent-lock-child"])
    func aSandboxedProviderThatConnectsToTheAgentGetsNothing(attack: String) throws {
        let attacks = try SandboxAttackTests()
        let socket = "\(attacks.home.path)/run/autofill/agent/socket"
        // Executables lets it make Unix sockets (a program it runs may need them), so it reaches the socket.
        let (outcome, result) = try attacks.attack(attack, target: socket, sandbox: ["Executables": ["true"]])
        #expect(result.status == 0, "\(result.stderr)")
        // Refused with the one sentence every refused peer gets (or, in a sandbox that hides the socket, not even that far).
        let refusal = "ok reply A3 the agent serves only a person's own commands, not a provider's helper nor anything running under one, nor a process that runs confined (no_new_privs and a seccomp filter); the command runs in this process"
        #expect(outcome == refusal || outcome.hasPrefix("denied "), "\(outcome) \(result.stderr)")
        #expect(!outcome.contains(attacks.home.path) && !outcome.contains(CLI.root))
        let status = try CLI.run(["agent", "status", "--json"], home: attacks.home.path)
        #expect(status.stdout.contains("\"org.t.attacker\""), "its request to lock everything did not run: \(status.stdout)")
    }

    /// docs/SANDBOX.md, "Its environment": the first environment (readable for the process's life)
    /// holds locale, time zone, the user's folders and the loader's diagnostics; after the sandbox,
    /// XDG_RUNTIME_DIR is the provider's own runtime folder, not the one holding the agent's socket.
    @Test func theHelpersFirstEnvironmentHoldsWhatTheSandboxDocumentSays() throws {
        let attacks = try SandboxAttackTests()
        let (outcome, result) = try attacks.attack("environ", environment: ["LANG": "C.UTF-8", "TZ": "UTC", "SOME_TOKEN": "t0ken"])
        #expect(result.status == 0, "\(result.stderr)")
        let parts = outcome.split(separator: " ")
        #expect(parts.count == 5 && parts[0] == "ok" && parts[1] == "first", "\(outcome)")
        let names = Set(parts.count > 2 ? parts[2].split(separator: ",").map(String.init) : [])
        let allowed: Set = ["HOME", "PWD", "LANG", "LANGUAGE", "TZ", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
                            "LD_DEBUG", "LD_DEBUG_OUTPUT", "SWIFT_BACKTRACE"]
        #expect(names.subtracting(allowed).filter { !$0.hasPrefix("LC_") }.isEmpty, "\(names)")
        #expect(names.contains("LANG") && names.contains("HOME"))
        #expect(parts.last == "XDG_RUNTIME_DIR=\(attacks.home.path)/run/autofill/providers/org.t.attacker", "\(outcome)")
    }

    @Test(.enabled(if: CLI.usesAgent)) func aClientWithAnotherPATHLocaleOrTerminalReachesTheWarmAgent() throws {
        #expect(try agent.autofill(["fill", "fast.test", "--user", "ok"]).stdout == "pw-fast\n")
        let helper = try #require(try agent.status()?.helpers["org.t.fast"])
        let other = ["PATH": "/opt/elsewhere/bin:/usr/local/bin:/usr/bin:/bin", "LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8",
                     "TERM": "dumb", "TZ": "Europe/Berlin"]
        let filled = try agent.autofill(["fill", "fast.test", "--user", "ok", "-v"], environment: other)
        #expect(filled.stdout == "pw-fast\n" && !filled.stderr.contains("running in this process"), "\(filled.stderr)")
        #expect(try agent.status()?.helpers["org.t.fast"] == helper, "the same warm helper answered")
        // Control: another user folder is another agent's business: that client runs in its own process.
        let elsewhere = try agent.autofill(["fill", "fast.test", "--user", "ok", "-v"], environment: ["XDG_CACHE_HOME": "\(home.path)/other-cache"])
        #expect(elsewhere.stdout == "pw-fast\n" && elsewhere.stderr.contains("running in this process: the agent serves other user folders"), "\(elsewhere.stderr)")
    }

    /// The Vault unlocked through one client answers another whose PATH, locale and terminal differ,
    /// without a prompt; the same command in its own process meets a locked Vault.
    @Test(.enabled(if: CLI.usesAgent)) func theUnlockedVaultAnswersAClientWithAnotherPATHWithoutAPrompt() throws {
        _ = try home.sample("VaultProvider", as: "org.autofill.vault")
        let vaultConfig = "\(home.path)/vault.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.vault"],
            "ProviderSettings": ["org.autofill.vault": ["VaultFile": try home.demoVault()]], "UserAuthentication": try home.permitPolicy(),
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: vaultConfig))
        try home.trust(["org.autofill.vault"], config: vaultConfig)
        let script = try home.file("unlock.ui", "secret correct horse battery staple\n")
        let unlocked = try CLI.run(["unlock", "org.autofill.vault", "--ui-script", script, "--config", vaultConfig], home: home.path)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let other = ["PATH": "/usr/libexec/git-core:/opt/ide/bin:/usr/bin:/bin", "LANG": "fr_FR.UTF-8", "TERM": "xterm-256color", "COLUMNS": "40"]
        let fill = ["fill", "example.com", "--user", "alice", "--config", vaultConfig]
        let warm = try CLI.run(fill, home: home.path, environment: other)
        #expect(warm.status == 0 && warm.stdout == "alice-demo-password\n", "\(warm.stderr)")
        let alone = try CLI.run(fill + ["--no-agent"], home: home.path, environment: other)
        #expect(alone.status != 0 && alone.stdout.isEmpty, "in its own process the Vault is locked: \(alone.stderr)")
    }

    /// The pass provider declares GNUPGHOME and PASSWORD_STORE_DIR (Environment): through the agent,
    /// the request's values reach it, and a request with others relaunches it with those.
    @Test(.enabled(if: CLI.usesAgent)) func aProvidersDeclaredVariablesComeFromTheRequest() throws {
        let pass = try PasswordStore()
        try pass.insert("github.com/octocat", "s3cret-pass\n")
        _ = try home.sample("PassProvider", as: "org.autofill.pass")
        let passConfig = "\(home.path)/pass.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.pass"],
            "UserAuthentication": ["Policy": "pam", "PAMService": "autofill-permit", "PAMConfigurationDirectory": try home.pamFolder()],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: passConfig))
        let variables = ["GNUPGHOME": pass.gnupgHome, "PASSWORD_STORE_DIR": pass.path]
        for command in [["providers", "trust", "org.autofill.pass"], ["providers", "sync"]] {
            let done = try CLI.run(command + ["--config", passConfig], home: home.path, environment: variables)
            #expect(done.status == 0, "\(command): \(done.stderr)")
        }
        let script = try home.file("passphrase.ui", "secret \(PasswordStore.passphrase)\n")
        let filled = try CLI.run(["fill", "github.com", "--ui-script", script, "--config", passConfig], home: home.path, environment: variables)
        #expect(filled.status == 0 && filled.stdout == "s3cret-pass\n", "\(filled.stderr)")
        let helper = try #require(try agent.status()?.helpers["org.autofill.pass"], "it ran in the agent")
        // Without them, pass would look in ~/.password-store and ~/.gnupg: the helper launched with the
        // request's values never answers it. Those files were never approved, so the request is refused
        // before any launch (a new approval, issue L); had they been, a helper is launched for them.
        let without = try CLI.run(["fill", "github.com", "--config", passConfig], home: home.path)
        #expect(without.stdout.isEmpty, "\(without.stdout)")
        #expect(try agent.status()?.helpers["org.autofill.pass"] != helper || without.stderr.contains("asks for more than you approved"),
                "\(without.status): \(without.stderr)")
    }

    @Test(.enabled(if: CLI.usesAgent)) func aThousandStalledConnectionsDoNotStopAFill() throws {
        #expect(try agent.autofill(["suggest", "fast.test"]).status == 0)
        let stall = #"""
            import os, resource, socket, subprocess, sys, time, json
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
            command, env = json.loads(sys.argv[2]), json.loads(sys.argv[3])
            def timed():
                start = time.monotonic()
                result = subprocess.run(command, env=env, capture_output=True, text=True)
                return time.monotonic() - start, result
            quiet, before = timed()
            stalled = []
            for index in range(1000):
                c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                c.connect(sys.argv[1])
                if index % 2 == 0: c.send(b"\x40")  # the first byte of a length, then nothing
                stalled.append(c)
            busy, result = timed()
            print("status %d same %s stderr %r" % (result.returncode, result.stdout == before.stdout and result.stdout != "", result.stderr))
            print("delay quiet %.1f ms, with 1000 stalled %.1f ms" % (quiet * 1000, busy * 1000))
            deadline = time.monotonic() + 60
            dropped = 0
            for c in stalled:
                c.settimeout(max(0.1, deadline - time.monotonic()))
                try:
                    if c.recv(1) == b"": dropped += 1
                except (socket.timeout, ConnectionResetError):
                    pass
            print("dropped %d" % dropped)
            """#
        let command = [CLI.binary, "suggest", "fast.test", "--config", config]
        let environment = CLI.environment(home: home.path)
        let encoded = { (value: Any) in String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self) }
        let result = try ChildProcess.run("/usr/bin/python3", ["-c", stall, agent.socket, try encoded(command), try encoded(environment)],
                                          environment: ["PATH": "/usr/bin:/bin"])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("status 0 same True") == true, "the suggest is served as without them: \(result.stdout) \(result.stderr)")
        #expect(lines.last == "dropped 1000", "the agent drops every stalled connection: \(result.stdout)")
        print("AgentAuthorityTests: a suggest's whole time, \(lines.dropFirst().first ?? "?")")
        #expect(try agent.autofill(["fill", "fast.test", "--user", "ok"]).stdout == "pw-fast\n")
    }

    @Test(.enabled(if: CLI.usesAgent)) func aClientStalledHalfwayThroughItsRequestDelaysNoOtherClient() throws {
        // One thread accepts, reads and watches every connection: a client that sent half its request
        // and waits must not hold up a whole one behind it, and is itself served once it sends the rest.
        #expect(try agent.autofill(["fill", "fast.test", "--user", "ok"]).stdout == "pw-fast\n")
        let halfway = #"""
            import json, os, socket, subprocess, sys
            exec(os.environ["RAW_CLIENT_FUNCTIONS"])
            request = frame(json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4])
            stalled = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            stalled.connect(sys.argv[1])
            socket.send_fds(stalled, [request[:len(request) // 2]], [0, 1, 2])
            other = subprocess.run(json.loads(sys.argv[5]), env=json.loads(sys.argv[3]), capture_output=True, text=True)
            print("other: %d %r %r" % (other.returncode, other.stdout, other.stderr), flush=True)
            stalled.sendall(request[len(request) // 2:])
            data = b""
            while True:
                chunk = stalled.recv(65536)
                if not chunk: break
                data += chunk
            print("stalled: " + describe(data), flush=True)
            """#
        let functions = Self.rawClient.components(separatedBy: "mode = sys.argv[1]").first ?? ""
        let encoded = { (value: Any) in String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self) }
        let suggest = ["suggest", "fast.test", "--config", config]
        let result = try ChildProcess.run(
            "/usr/bin/python3",
            ["-c", halfway, agent.socket, try encoded(suggest), try encoded(CLI.environment(home: home.path)), Self.program,
             try encoded([CLI.binary, "fill", "fast.test", "--user", "ok", "--config", config])],
            environment: ["PATH": "/usr/bin:/bin", "RAW_CLIENT_FUNCTIONS": functions])
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix(#"other: 0 'pw-fast\n'"#) == true, "the whole request is served while the other waits halfway: \(result.stdout) \(result.stderr)")
        #expect(lines.last == "stalled: exit 0", "the stalled one is served once whole: \(result.stdout) \(result.stderr)")
    }

    @Test(.enabled(if: CLI.usesAgent)) func aFullAgentSaysItIsBusyAndServesAgainOnceRequestsEnd() throws {
        #expect(try agent.autofill(["fill", "fast.test", "--user", "ok"]).stdout == "pw-fast\n")
        // 128 requests held open by one raw client: each `passkey get` waits for its options on a
        // standard input (a pipe) the client never writes to, until the client ends.
        let hold = #"""
            import json, os, resource, socket, struct, sys, time
            exec(os.environ["RAW_CLIENT_FUNCTIONS"])
            held = []
            quiet, keep = os.pipe()  # the write end stays open: each request waits on its stdin
            for _ in range(128):
                c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                c.connect(sys.argv[1])
                socket.send_fds(c, [frame(json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4])], [quiet, 1, 2])
                held.append(c)
            print("held", flush=True)
            time.sleep(600)
            """#
        let functions = Self.rawClient.components(separatedBy: "mode = sys.argv[1]").first ?? ""
        let never = ["passkey", "get", "--origin", "https://example.com", "--config", config]
        let encoded = { (value: Any) in String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self) }
        let holder = try ChildProcess.start(
            "/usr/bin/python3", ["-c", hold, agent.socket, try encoded(never), try encoded(CLI.environment(home: home.path)), Self.program],
            environment: ["PATH": "/usr/bin:/bin", "RAW_CLIENT_FUNCTIONS": functions])
        defer { kill(holder.pid, SIGKILL); _ = holder.wait() }
        let full = Self.within(.seconds(60)) { (try? agent.autofill(["fill", "fast.test", "--user", "ok"]).status) == 75 }
        #expect(full, "\((try? CLI.run(["agent", "status"], home: home.path).stdout) ?? "")")
        if !full {
            kill(holder.pid, SIGKILL)
            let held = holder.wait()
            Issue.record("the holder: \(held.stdout) \(held.stderr)")
        }
        let busy = try agent.autofill(["fill", "fast.test", "--user", "ok"])
        #expect(busy.status == 75 && busy.stderr == "autofill: the agent is busy: 128 requests are being served; try again\n", "\(busy.status) \(busy.stderr)")
        kill(holder.pid, SIGKILL)
        _ = holder.wait()
        #expect(Self.within(.seconds(60)) { (try? agent.autofill(["fill", "fast.test", "--user", "ok"]).stdout) == "pw-fast\n" })
    }

    /// Whether `condition` holds within `bound` (checked every 100 ms).
    static func within(_ bound: Duration, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + bound
        while ContinuousClock.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return condition()
    }

    @Test(.enabled(if: CLI.usesAgent), arguments: ["run", "run/autofill"])
    func aRuntimeFolderOpenToOthersHasNoAgent(folder: String) throws {
        let path = "\(home.path)/\(folder)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o755)
        let served = try CLI.run(["agent", "serve"], home: home.path)
        #expect(served.status == 77 && served.stderr.contains("\(path) is open to other users (mode 755); it must be 0700: chmod 700 \(path)"), "\(served.stderr)")
        let filled = try agent.autofill(["fill", "fast.test", "--user", "ok", "-v"])
        #expect(filled.stdout == "pw-fast\n", "\(filled.stderr)")
        #expect(filled.stderr.contains("autofill: running in this process: no agent: ") && filled.stderr.contains("\(path) is open to other users"), "\(filled.stderr)")
        #expect(!FileManager.default.fileExists(atPath: agent.socket))
        // Control: closed again, the next command starts the agent.
        chmod(path, 0o700)
        #expect(try agent.autofill(["fill", "fast.test", "--user", "ok"]).stdout == "pw-fast\n")
        #expect(try agent.status() != nil)
    }
}
