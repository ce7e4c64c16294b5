import AutofillTestSupport
import Foundation
import Synchronization
import Testing

/// The agent as users meet it (docs/AGENT.md): started by the first command, private to its user,
/// serving clients concurrently, keeping providers running until locked, idle or stopped, and
/// leaving nothing behind. Each test has a home (and so an agent) of its own. These run once, in
/// the suite's pass through the agent.
@Suite(.enabled(if: CLI.usesAgent))
struct AgentTests {
    let home: TemporaryHome
    let config: String

    /// Two fixture providers: org.t.fast and org.t.slow, each with identities "ok", "hang" (the call
    /// never returns) and "never" (it returns, the request is never completed) on `<name>.test`; the
    /// no-UI deadline is long, so either holds a request for as long as a test wants.
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        for name in ["fast", "slow"] { _ = try home.fixtureProvider(id: "org.t.\(name)") }
        config = "\(home.path)/config.plist"
        let plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.t.fast", "org.t.slow"],
            "ProviderSettings": ["org.t.fast": ["FixtureName": "fast"], "org.t.slow": ["FixtureName": "slow"]],
            "UserAuthentication": ["Policy": "none"], "NoUIDeadlineSeconds": 60,
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.t.fast", "org.t.slow"], config: config)
        for name in ["fast", "slow"] {
            let rows = ["ok", "hang", "never"].map { #"{ "kind": "password", "serviceIdentifier": { "identifier": "\#(name).test", "type": "domain" }, "user": "\#($0)" }"# }
            let file = try home.file("\(name).json", #"{ "identities": [ \#(rows.joined(separator: ", ")) ] }"#)
            let saved = try autofill(["identities", "save", "--provider", "org.t.\(name)", "--file", file])
            #expect(saved.status == 0, "\(saved.stderr)")
        }
    }

    func autofill(_ arguments: [String], environment: [String: String] = [:]) throws -> CLI.Result {
        try CLI.run(arguments + ["--config", config], home: home.path, environment: environment)
    }

    func startFill(_ site: String, user: String) throws -> ChildProcess.Running {
        try ChildProcess.start(CLI.binary, ["fill", site, "--user", user, "--config", config], environment: CLI.environment(home: home.path))
    }

    var socket: String { "\(home.path)/run/autofill/agent/socket" }

    /// `agent status --json`: the agent's pid and the helper pid of each running provider.
    func status() throws -> (pid: Int32, helpers: [String: Int32])? {
        let result = try CLI.run(["agent", "status", "--json"], home: home.path)
        guard result.status == 0 else { return nil }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        var helpers: [String: Int32] = [:]
        for provider in object["providers"] as? [[String: Any]] ?? [] {
            if let id = provider["id"] as? String, let pid = provider["helperPID"] as? Int { helpers[id] = Int32(pid) }
        }
        return (Int32(try #require(object["pid"] as? Int)), helpers)
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test func theFirstCommandStartsAPrivateAgentAndStopEndsItWithItsProviders() throws {
        #expect(try CLI.run(["agent", "status"], home: home.path).status == 3, "no agent before the first command")
        let filled = try autofill(["fill", "fast.test", "--user", "ok"])
        #expect(filled.status == 0 && filled.stdout == "pw-fast\n", "\(filled.stderr)")
        #expect(try mode("\(home.path)/run/autofill/agent") == 0o700)
        #expect(try mode(socket) == 0o600)
        let (agent, helpers) = try #require(try status())
        let helper = try #require(helpers["org.t.fast"], "the provider stays running between commands")
        #expect(ProcessTable.isRunning(helper))
        let limits = try String(contentsOfFile: "/proc/\(agent)/limits", encoding: .utf8)
        #expect(limits.split(separator: "\n").contains { $0.hasPrefix("Max core file size") && $0.contains(" 0 ") }, "no core dumps")
        // The same helper answers the next fill.
        #expect(try autofill(["fill", "fast.test", "--user", "ok"]).stdout == "pw-fast\n")
        #expect(try status()?.helpers["org.t.fast"] == helper)
        let stopped = try CLI.run(["agent", "stop"], home: home.path)
        #expect(stopped.status == 0 && stopped.stdout.contains("Stopped the agent (pid \(agent))"), "\(stopped.stderr)")
        #expect(!ProcessTable.isRunning(agent) && !ProcessTable.isRunning(helper))
        #expect(!FileManager.default.fileExists(atPath: socket))
        #expect(try CLI.run(["agent", "stop"], home: home.path).stdout == "No agent is running.\n")
    }

    @Test func withoutARuntimeFolderThereIsNoAgentAndCommandsRunInProcess() throws {
        let served = try CLI.run(["agent", "serve"], home: home.path, environment: ["XDG_RUNTIME_DIR": ""])
        #expect(served.status == 78 && served.stderr.contains("XDG_RUNTIME_DIR is not set"), "\(served.stderr)")
        let filled = try autofill(["fill", "fast.test", "--user", "ok"], environment: ["XDG_RUNTIME_DIR": ""])
        #expect(filled.status == 0 && filled.stdout == "pw-fast\n", "\(filled.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(home.path)/run/autofill/agent"))
    }

    @Test func aSlowProviderHoldsUpNoOtherFillAndALeavingClientBlocksNoOne() throws {
        let slow = try startFill("slow.test", user: "never")
        #expect(try waitUntil { try status()?.helpers["org.t.slow"] != nil }, "the slow request reached its provider")
        for _ in 0..<3 {
            let fast = try autofill(["fill", "fast.test", "--user", "ok"])
            #expect(fast.status == 0 && fast.stdout == "pw-fast\n", "\(fast.stderr)")
        }
        #expect(slow.isRunning, "the slow fill is still waiting while the others were served")
        // The slow client leaves: it gets nothing, and the next request of the same provider is served.
        kill(slow.pid, SIGKILL)
        let left = slow.wait()
        #expect(left.stdout.isEmpty)
        let again = try autofill(["fill", "slow.test", "--user", "ok"])
        #expect(again.status == 0 && again.stdout == "pw-slow\n", "\(again.stderr)")
    }

    @Test func killingTheAgentMidRequestIsSaidClearlyAndTheNextCommandStartsAnother() throws {
        let slow = try startFill("slow.test", user: "hang")
        #expect(try waitUntil { try status()?.helpers["org.t.slow"] != nil })
        let (agent, helpers) = try #require(try status())
        // Every process of the agent's (the helpers, outside and inside their namespaces, and bubblewrap's).
        let processes = ProcessTable.descendants(of: agent)
        kill(agent, SIGKILL)
        let result = slow.wait()
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("the agent ended before it answered"), "\(result.stderr)")
        #expect(waitUntil { !helpers.values.contains(where: ProcessTable.isRunning) }, "its providers' helpers end with it")
        #expect(waitUntil { !processes.contains(where: ProcessTable.isRunning) }, "and every process it started: \(processes.sorted())")
        let next = try autofill(["fill", "slow.test", "--user", "ok"])
        #expect(next.status == 0 && next.stdout == "pw-slow\n", "\(next.stderr)")
        #expect(try status()?.pid != agent)
    }

    @Test func lockAndSIGHUPEndTheProvidersAndTheAgentCarriesOn() throws {
        #expect(try autofill(["lock"]).stdout == "Nothing is unlocked: no agent is running.\n")
        #expect(try CLI.run(["agent", "status"], home: home.path).status == 3, "lock starts no agent")
        _ = try autofill(["fill", "fast.test", "--user", "ok"])
        _ = try autofill(["fill", "slow.test", "--user", "ok"])
        let (agent, helpers) = try #require(try status())
        let fast = try #require(helpers["org.t.fast"]), slow = try #require(helpers["org.t.slow"])
        let locked = try autofill(["lock", "org.t.fast"])
        #expect(locked.status == 0 && locked.stdout == "Locked org.t.fast.\n", "\(locked.stderr)")
        #expect(!ProcessTable.isRunning(fast) && ProcessTable.isRunning(slow))
        kill(agent, SIGHUP)
        #expect(waitUntil { !ProcessTable.isRunning(slow) }, "SIGHUP locks every provider")
        #expect(ProcessTable.isRunning(agent), "and the agent carries on")
        #expect(try status()?.helpers.isEmpty == true)
        #expect(try autofill(["fill", "fast.test", "--user", "ok"]).stdout == "pw-fast\n")
    }

    @Test func logindsSleepAndSessionLockLockEveryProvider() throws {
        let bus = try PrivateSystemBus()
        defer { bus.stop() }
        try bus.startLogind()
        let onBus = ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "self"]
        #expect(try autofill(["fill", "fast.test", "--user", "ok"], environment: onBus).stdout == "pw-fast\n")
        let described = try CLI.run(["agent", "status"], home: home.path, environment: onBus)
        #expect(described.stdout.contains("locks every provider when the session locks or the system sleeps"), "\(described.stdout)")
        // Its age and its idle timeout in words that do not read as one contradicting the other.
        #expect(described.stdout.contains(" s ago. It exits once ") && described.stdout.contains(" s pass with no request (this status counts as one)."),
                "\(described.stdout)")
        let fast = try #require(try status()?.helpers["org.t.fast"])
        try bus.logindSends("PrepareForSleep", true)
        #expect(waitUntil { !ProcessTable.isRunning(fast) }, "going to sleep locks")
        _ = try autofill(["fill", "slow.test", "--user", "ok"], environment: onBus)
        let slow = try #require(try status()?.helpers["org.t.slow"])
        try bus.logindSends("Lock", path: PrivateSystemBus.ownSession)
        #expect(waitUntil { !ProcessTable.isRunning(slow) }, "locking the session locks")
    }

    @Test func anIdleAgentEndsAndSoDoesOneWhoseSocketIsRemoved() throws {
        // The idle time is the user's configuration's (a request's is ignored: AgentCacheTests).
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"], "AgentIdleTimeoutSeconds": 3])
        _ = try autofill(["fill", "fast.test", "--user", "ok"])
        let (idle, idleHelpers) = try #require(try status())
        #expect(waitUntil { !ProcessTable.isRunning(idle) }, "an idle agent exits")
        #expect(!idleHelpers.values.contains(where: ProcessTable.isRunning))
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        _ = try autofill(["fill", "fast.test", "--user", "ok"])
        let (removed, _) = try #require(try status())
        try FileManager.default.removeItem(atPath: socket)
        #expect(waitUntil { !ProcessTable.isRunning(removed) }, "an agent whose socket was removed exits")
    }

    /// Copies an executable through a close-on-exec descriptor: a copy made with a descriptor other
    /// tests' children inherit cannot be run while they hold it (ETXTBSY).
    static func copyExecutable(_ source: String, to target: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(fd) }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == data.count else { throw CocoaError(.fileWriteUnknown) }
    }

    @Test func anAgentWhoseExecutableWasReplacedEndsSoTheNextCommandRunsTheNewOne() throws {
        let bin = "\(home.path)/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for name in ["autofill", "autofill-cli", "autofill-provider-helper"] {
            try Self.copyExecutable("\(CLI.root)/.build/debug/\(name)", to: "\(bin)/\(name)")
        }
        // Another test's child may hold the copy's descriptor a moment (ETXTBSY): try again briefly.
        var started: CLI.Result?
        for _ in 0..<50 where started == nil {
            do {
                started = try ChildProcess.run("\(bin)/autofill", ["fill", "fast.test", "--user", "ok", "--config", config],
                                               environment: CLI.environment(home: home.path))
            } catch where "\(error)".contains("Text file busy") {
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        let first = try #require(started)
        #expect(first.status == 0 && first.stdout == "pw-fast\n", "\(first.stderr)")
        let (agent, _) = try #require(try status())
        // The build's own client is another installation than the agent's (bin/): it runs the command
        // itself, and says why with -v (naming neither program); `agent status` (above) is served for any installation.
        let other = try autofill(["fill", "fast.test", "--user", "ok", "-v"])
        #expect(other.stdout == "pw-fast\n" && other.stderr.contains("the agent belongs to another installation of autofill than this client\n"), "\(other.stderr)")
        #expect(!other.stderr.contains(bin))
        // An upgrade: the new file is written beside the old and renamed over it (the agent runs autofill-cli).
        try Self.copyExecutable("\(CLI.root)/.build/debug/autofill-cli", to: "\(bin)/autofill-cli.new")
        #expect(rename("\(bin)/autofill-cli.new", "\(bin)/autofill-cli") == 0)
        #expect(waitUntil { !ProcessTable.isRunning(agent) }, "the old agent ends between requests")
        #expect(try autofill(["fill", "fast.test", "--user", "ok"]).stdout == "pw-fast\n")
    }

    /// Including the first requests, which start the agent and launch both providers at once.
    @Test func tenClientsAtOnceAreAllServed() throws {
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 10) { client in
            for _ in 0..<20 {
                let name = client % 2 == 0 ? "fast" : "slow"
                do {
                    let result = try autofill(["fill", "\(name).test", "--user", "ok"])
                    if result.status != 0 || result.stdout != "pw-\(name)\n" { failures.withLock { $0.append("\(result.status): \(result.stderr)") } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
    }

    /// Opens the way to the agent's socket (its folders are 0700 for a reason) so another user can reach it.
    func openTheSocketToOthers() {
        for path in [home.path, "\(home.path)/run", "\(home.path)/run/autofill", "\(home.path)/run/autofill/agent"] { chmod(path, 0o755) }
        chmod(socket, 0o666)
        chmod(config, 0o644)
    }

    static var nobody: UInt32 { getpwnam("nobody")?.pointee.pw_uid ?? 65534 }

    @Test func theAgentServesNoOtherUser() throws {
        _ = try autofill(["fill", "fast.test", "--user", "ok"])
        openTheSocketToOthers()
        // A raw client of another uid, with a well-formed request and its descriptors: SO_PEERCRED
        // refuses it, and it reads nothing at all.
        let client = """
            import socket, struct, sys
            def s(b): return struct.pack("<I", len(b)) + b
            args = [b"fill", b"fast.test", b"--user", b"ok", b"--config", sys.argv[2].encode()]
            body = bytes([0xA1]) + struct.pack("<I", 1) + struct.pack("<I", len(args)) + b"".join(s(a) for a in args) + struct.pack("<I", 0)
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.connect(sys.argv[1])
            try:
                socket.send_fds(c, [struct.pack("<I", len(body)) + body], [0, 1, 2])
            except OSError:
                pass
            try:
                data = c.recv(65536)
            except ConnectionResetError:
                data = b""
            print("received %d bytes" % len(data))
            """
        let result = try ChildProcess.run(
            "/usr/bin/setpriv", ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", "/usr/bin/python3", "-c", client, socket, config],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.stdout == "received 0 bytes\n", "\(result.stdout) \(result.stderr)")
        #expect(!result.stdout.contains("pw-fast"))
    }

    @Test func aClientTalksToNoOtherUsersAgent() throws {
        // Root's agent, reachable by nobody: nobody's autofill refuses to hand it its terminal and output.
        _ = try autofill(["fill", "fast.test", "--user", "ok"])
        openTheSocketToOthers()
        func nobodysFill() throws -> CLI.Result {
            try ChildProcess.run(
                "/usr/bin/setpriv", ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", CLI.binary, "fill", "fast.test", "--user", "ok", "--config", config, "-v"],
                environment: CLI.environment(home: home.path))
        }
        // In runtime folders that are not nobody's, nobody's client does not even connect.
        let elsewhere = try nobodysFill()
        #expect(elsewhere.stderr.contains("running in this process: no agent: the runtime folder (XDG_RUNTIME_DIR) \(home.path)/run belongs to user \(getuid()), not to you"),
                "\(elsewhere.stderr)")
        // In folders that are nobody's own and private, it connects, and SO_PEERCRED says the agent is another uid's.
        for path in ["\(home.path)/run", "\(home.path)/run/autofill", "\(home.path)/run/autofill/agent"] {
            chown(path, Self.nobody, Self.nobody)
            chmod(path, 0o700)
        }
        let result = try nobodysFill()
        #expect(result.status == 77, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("is served by uid \(getuid()), not by you"), "\(result.stderr)")
    }
}
