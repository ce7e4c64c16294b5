import AutofillTestSupport
import Foundation
import Testing

/// The namespaces bubblewrap gives each helper, and the session bus through its filter
/// (docs/SANDBOX.md), against the attacking provider of ``SandboxAttackTests`` through the real
/// `autofill`: what the provider may not reach is not there at all, each with a control that works
/// (the permission declared, or the same provider named `unsandboxed`).
struct NamespaceSandboxTests {
    let attacks: SandboxAttackTests
    var home: TemporaryHome { attacks.home }

    init() throws {
        attacks = try SandboxAttackTests()
    }

    /// Whether this machine lets users make namespaces with bubblewrap (as autofill finds out).
    static let userNamespaces: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap") else { return false }
        return (try? ChildProcess.run("/usr/bin/bwrap", ["--unshare-all", "--unshare-user", "--disable-userns", "--ro-bind", "/usr", "/usr",
                                                          "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/lib", "/lib", "--", "/usr/bin/true"]).status) == 0
    }()

    static let keyring = FileManager.default.isExecutableFile(atPath: "/usr/bin/gnome-keyring-daemon")

    /// A listening Unix socket at `path`, as another program of the user's would have.
    static func listen(at path: String) throws -> Int32 {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && Glibc.listen(listener, 4) == 0, "cannot listen at \(path)")
        return listener
    }

    // MARK: What is there

    @Test(.enabled(if: userNamespaces)) func theUsersOtherSocketsAndTheAgentAreNotThere() throws {
        let path = "\(home.path)/run/some-program.sock"
        let listener = try Self.listen(at: path)
        defer { close(listener) }
        // A program declared: Unix sockets are allowed by the filter, so what stops it is that the socket is not there.
        let programs: [String: Any] = ["Executables": ["true"]]
        let (outcome, result) = try attacks.attack("connect-unix", target: path, sandbox: programs, verbose: true)
        #expect(outcome == "denied ENOENT connect", "\(outcome) \(result.stderr)")
        #expect(result.stderr.contains("sandboxed (bubblewrap + Landlock + seccomp)"), "-v says which sandbox: \(result.stderr)")
        if CLI.usesAgent {
            let agent = "\(home.path)/run/autofill/agent/socket"
            #expect(FileManager.default.fileExists(atPath: agent))
            #expect(try attacks.attack("connect-unix", target: agent, sandbox: programs).outcome == "denied ENOENT connect")
        }
        // Control: the same provider without its sandbox reaches the socket.
        #expect(try attacks.attack("connect-unix", target: path, sandbox: programs, unsandboxed: true).outcome == "ok connected")
    }

    @Test(.enabled(if: userNamespaces)) func procShowsOnlyTheSandboxsProcesses() throws {
        // This test's process is not in the helper's pid namespace: its /proc entry is not there at all
        // (Landlock would say EACCES); bubblewrap's init, pid 1 there, is, and Landlock keeps it closed.
        let (outcome, result) = try attacks.attack("read-file", target: "/proc/\(getpid())/status")
        #expect(outcome == "denied ENOENT open", "\(outcome) \(result.stderr)")
        #expect(try attacks.attack("read-file", target: "/proc/1/status").outcome == "denied EACCES open")
        // Control: without its sandbox, the same read sees this process.
        #expect(try attacks.attack("read-file", target: "/proc/\(getpid())/status", unsandboxed: true).outcome.hasPrefix("ok read"))
    }

    // MARK: The session bus

    /// The sandbox of a provider that runs `programs` and talks to the session bus names `names`.
    static func bus(_ names: [String], programs: [String]) -> [String: Any] {
        ["SessionBus": true, "SessionBusNames": names, "Executables": ["sh"] + programs]
    }

    @Test(.enabled(if: userNamespaces && keyring)) func anotherApplicationsKeyringItemIsReadOnlyWithTheSecretServiceDeclared() throws {
        let keyring = try PrivateKeyring()
        defer { keyring.stop() }
        try keyring.store(label: "another application", [("service", "other.example")], secret: "other-app-secret")
        let environment = ["DBUS_SESSION_BUS_ADDRESS": keyring.address]
        let lookup = "secret-tool lookup service other.example"
        // Declaring another name: the Secret Service is not on its bus.
        var (outcome, result) = try attacks.attack("run", target: lookup, sandbox: Self.bus(["org.example.Notes"], programs: ["secret-tool"]),
                                                   environment: environment)
        #expect(outcome.hasPrefix("ok ran, status 1"), "\(outcome) \(result.stderr)")
        #expect(!outcome.contains("other-app-secret"))
        // Control: declaring the Secret Service, it reads the item, and the approval said it would, in plain words.
        (outcome, result) = try attacks.attack("run", target: lookup, sandbox: Self.bus(["org.freedesktop.secrets"], programs: ["secret-tool"]),
                                               environment: environment)
        #expect(outcome == "ok ran, status 0: other-app-secret", "\(outcome) \(result.stderr)")
        let listed = try CLI.run(["providers", "list", "--config", "\(home.path)/config.plist"], home: home.path, environment: environment)
        #expect(listed.stdout.contains("read and change the items of your unlocked keyrings, including other applications' passwords"),
                "\(listed.stdout)")
        #expect(listed.stdout.contains("run the program secret-tool (/usr/bin/secret-tool) inside its sandbox"), "\(listed.stdout)")
    }

    @Test(.enabled(if: userNamespaces)) func theBusCannotStartServicesOrChangeTheirEnvironment() throws {
        let folder = try TemporaryFolder("bus")
        let services = "\(folder.path)/services"
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        let marker = "\(folder.path)/started"
        // A stand-in for systemd: activating it writes the marker (it then exits without owning the name).
        _ = try folder.file("services/org.freedesktop.systemd1.service",
                            "[D-BUS Service]\nName=org.freedesktop.systemd1\nExec=/usr/bin/touch \(marker)\n")
        let bus = try PrivateDBusDaemon(.session, address: "unix:path=\(folder.path)/bus", configurationIn: folder, serviceDirectory: services)
        defer { bus.stop() }
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        // In its sandbox the provider's bus is DBUS_SESSION_BUS_ADDRESS (the filter); unsandboxed, the bus itself.
        func call(_ method: String, bus: String = "--session") -> String {
            "dbus-send \(bus) --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.\(method) 2>&1"
        }
        let update = "UpdateActivationEnvironment dict:string:string:LD_PRELOAD,/tmp/evil.so"
        let start = "StartServiceByName string:org.freedesktop.systemd1 uint32:0"
        let sandbox = Self.bus(["org.freedesktop.secrets"], programs: ["dbus-send"])
        var (outcome, result) = try attacks.attack("run", target: call(update), sandbox: sandbox, environment: environment)
        #expect(outcome.hasPrefix("ok ran, status 1") && outcome.contains("AccessDenied"), "\(outcome) \(result.stderr)")
        (outcome, result) = try attacks.attack("run", target: call(start), sandbox: sandbox, environment: environment)
        #expect(outcome.hasPrefix("ok ran, status 1"), "\(outcome) \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the stand-in was not started")
        // Control: without its sandbox, both calls go through, and the stand-in starts.
        let direct = "--bus=\(bus.address)"
        (outcome, result) = try attacks.attack("run", target: call(update, bus: direct), sandbox: sandbox, unsandboxed: true, environment: environment)
        #expect(outcome.hasPrefix("ok ran, status 0"), "\(outcome) \(result.stderr)")
        _ = try attacks.attack("run", target: call(start, bus: direct), sandbox: sandbox, unsandboxed: true, environment: environment)
        #expect(FileManager.default.fileExists(atPath: marker), "the stand-in starts when asked on the real bus")
    }

    @Test func aSessionBusWithoutNamesIsRefusedAtValidation() throws {
        #expect(try attacks.attack("list-data").outcome.hasPrefix("ok listed"), "the bundle, built")
        let bundle = "\(home.path)/plugins/Attacker.afprovider"
        let plistPath = "\(bundle)/Info.plist"
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: plistPath)), format: nil) as! [String: Any]
        plist["AFProviderSandbox"] = ["SessionBus": true]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: plistPath))
        let result = try CLI.run(["plugin", "validate", bundle], home: home.path)
        #expect(result.status != 0)
        #expect((result.stdout + result.stderr).contains("names no bus name to talk to"), "\(result.stdout) \(result.stderr)")
        #expect((result.stdout + result.stderr).contains("SessionBusNames"))
    }

    // MARK: Without user namespaces

    @Test func withoutUserNamespacesFilesStayInLandlockAndTheBusOrProgramsAreRefusedUnlessUnsandboxed() throws {
        let closed = ["AUTOFILL_TEST_NO_USER_NAMESPACES": "1"]
        var (outcome, result) = try attacks.attack("list-data", environment: closed, verbose: true)
        #expect(outcome.hasPrefix("ok listed"), "\(result.stderr)")
        #expect(result.stderr.contains("sandboxed (Landlock + seccomp (no user namespaces))"), "\(result.stderr)")
        (outcome, result) = try attacks.attack("list-data", sandbox: ["Executables": ["true"]], environment: closed)
        #expect(result.status != 0)
        #expect(result.stderr.contains("runs programs, which autofill allows only in namespaces of its own"), "\(result.stderr)")
        #expect(result.stderr.contains("ProviderIsolation.Providers.\(SandboxAttackTests.id) to unsandboxed"))
        (outcome, result) = try attacks.attack("list-data", sandbox: ["Executables": ["true"]], unsandboxed: true, environment: closed)
        #expect(outcome.hasPrefix("ok listed"), "\(result.stderr)")
        #expect(result.stderr.contains("runs without its sandbox"))
    }
}
