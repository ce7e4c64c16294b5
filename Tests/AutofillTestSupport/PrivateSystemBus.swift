import Foundation
import Glibc

/// A bus of the test's own, configured like a system bus (`<type>system</type>`, EXTERNAL
/// authentication only) but letting every connection own any name and send anything, so that a test
/// can play logind (Fixtures/login1_fixture.c) and any other program on the bus: on a real system
/// bus only logind may own `org.freedesktop.login1`, and everyone may send signals, broadcast or to
/// one connection, which is all the impostors here do.
///
/// ``stop()`` ends the bus and every fixture started on it; call it in a `defer`.
public final class PrivateSystemBus {
    /// The bus's D-Bus address (`unix:path=…`).
    public let address: String
    private let folder: TemporaryFolder
    private let daemon: PrivateDBusDaemon
    private var logind: [ChildProcess.Running] = []

    /// The session the fixture says this process belongs to, and one of another user.
    public static let ownSession = "/org/freedesktop/login1/session/self"
    public static let otherSession = "/org/freedesktop/login1/session/other"

    /// The fixture, compiled once against libdbus.
    static let fixture: Result<String, ChildProcessError> = {
        let folder = NSTemporaryDirectory() + "autofill-login1-fixture-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let output = "\(folder)/login1_fixture"
        guard let flags = try? ChildProcess.run("/usr/bin/pkg-config", ["--cflags", "--libs", "dbus-1"]), flags.status == 0 else {
            return .failure(ChildProcessError("pkg-config knows no dbus-1 (run Scripts/bootstrap: libdbus-1-dev)"))
        }
        let source = "\(FixturePlugin.repositoryRoot)/Tests/AutofillHostTests/Fixtures/login1_fixture.c"
        let arguments = ["-std=c11", "-Wall", "-Wextra", "-Werror", source, "-o", output]
            + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let compiled = try? ChildProcess.run("/usr/bin/cc", arguments), compiled.status == 0 else {
            return .failure(ChildProcessError("the login1 fixture did not compile"))
        }
        return .success(output)
    }()

    /// Starts `dbus-daemon` on a socket in a temporary folder and waits until it answers.
    public init() throws {
        folder = try TemporaryFolder("bus")
        address = "unix:path=\(folder.path)/system_bus_socket"
        daemon = try PrivateDBusDaemon(.system, address: address, configurationIn: folder)
    }

    /// Ends every logind fixture, then the bus, and waits for them. SIGKILL: a child started from a
    /// test's thread inherits that thread's signal mask, and Dispatch's threads block SIGTERM.
    public func stop() {
        for process in logind where process.isRunning { kill(process.pid, SIGKILL) }
        for process in logind { _ = process.wait() }
        logind = []
        stopDaemon()
    }

    /// Ends the bus alone (the watcher sees its connection close); ``stop()`` still ends the rest.
    public func stopDaemon() {
        daemon.stop()
    }

    /// Starts the logind fixture (with `noSession`, logind knows no session for this process) and
    /// waits until it owns `org.freedesktop.login1`.
    public func startLogind(noSession: Bool = false) throws {
        let process = try ChildProcess.start(try Self.fixture.get(), [address] + (noSession ? ["no-session"] : []))
        logind.append(process)
        try process.waitUntil("the logind fixture did not take its name") {
            try self.owner(of: "org.freedesktop.login1") != nil
        }
    }

    /// Asks the logind fixture to quit, and waits until it has.
    public func quitLogind() throws {
        try call("org.freedesktop.login1", "/org/freedesktop/login1", "org.autofill.Test.Quit")
        for process in logind { _ = process.wait() }
        logind = []
    }

    /// The unique name owning `name`, nil when none does.
    public func owner(of name: String) throws -> String? {
        try daemon.owner(of: name)
    }

    /// Makes logind (the fixture, the name's owner) send `what` ("PrepareForSleep", "Lock",
    /// "LockedHint") on `path` with `value`; returns once it is sent.
    public func logindSends(_ what: String, path: String = "/org/freedesktop/login1", _ value: Bool = true) throws {
        try call("org.freedesktop.login1", "/org/freedesktop/login1", "org.autofill.Test.Emit",
                 ["string:\(what)", "objpath:\(path)", "boolean:\(value)"])
    }

    /// Another program on the bus (the fixture as "impostor", owning no name) sends each of `whats` to
    /// `destination` (a unique name; nil: to everyone); returns once the bus has handled them.
    public func impostorSends(_ whats: [String], to destination: String?) throws {
        let result = try ChildProcess.run(try Self.fixture.get(), [address, "impostor", destination ?? "-"] + whats)
        guard result.status == 0 else { throw ChildProcessError("the impostor failed: \(result.stderr)") }
    }

    /// `dbus-send --type=signal` from a connection of its own, to `destination` (nil: to everyone).
    public func dbusSendSignal(path: String, _ member: String, _ arguments: [String] = [], to destination: String? = nil) throws {
        let result = try ChildProcess.run("/usr/bin/dbus-send", ["--bus=\(address)", "--type=signal"]
            + (destination.map { ["--dest=\($0)"] } ?? []) + [path, member] + arguments)
        guard result.status == 0 else { throw ChildProcessError("dbus-send failed: \(result.stderr)") }
    }

    private func call(_ destination: String, _ path: String, _ member: String, _ arguments: [String] = []) throws {
        let result = try ChildProcess.run("/usr/bin/dbus-send", ["--bus=\(address)", "--print-reply", "--dest=\(destination)", path, member]
            + arguments)
        guard result.status == 0 else { throw ChildProcessError("dbus-send \(member) failed: \(result.stderr)") }
    }
}
