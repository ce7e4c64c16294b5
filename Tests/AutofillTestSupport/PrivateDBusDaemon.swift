import Foundation
import Glibc

/// A `dbus-daemon` of a test's own: the one place that writes a bus's configuration, starts the
/// daemon, waits until the bus answers, and stops it. ``PrivateSystemBus`` (a system-style bus for
/// logind fixtures) and ``PrivateKeyring`` (a session bus for GNOME Keyring) both run on one.
///
/// The bus lets every connection own any name and send anything (a test plays every program on it),
/// and authenticates with EXTERNAL only, as real buses do. ``stop()`` ends it and waits; call it in a
/// `defer` (or through the owner's `stop()`).
public final class PrivateDBusDaemon: Sendable {
    /// The bus's `<type>`: what a program on it takes it for.
    public enum BusType: String, Sendable {
        case system, session
    }

    /// The bus's D-Bus address (`unix:path=…` or `unix:abstract=…`).
    public let address: String
    private let daemon: ChildProcess.Running

    /// Writes a configuration for a bus of `type` listening at `address` into `folder`, starts
    /// `dbus-daemon` with it, and waits (10 s at most) until the bus answers a call: its socket file
    /// exists from bind(), a moment before it listens, and a connection in between is refused (a
    /// loaded machine made that happen). With `serviceDirectory`, the bus starts the services whose
    /// `.service` files are there when asked (D-Bus activation, as a desktop's bus does).
    public init(_ type: BusType, address: String, configurationIn folder: TemporaryFolder, serviceDirectory: String? = nil) throws {
        self.address = address
        let configuration = try folder.file("\(type.rawValue).conf", """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>\(type.rawValue)</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>\(serviceDirectory.map { "\n  <servicedir>\($0)</servicedir>" } ?? "")
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """)
        // With services to start, SIGCHLD unblocked: dbus-daemon learns that a service it started
        // exited from it, and would otherwise wait out its 25-second activation timeout.
        daemon = try ChildProcess.start("/usr/bin/dbus-daemon", ["--config-file=\(configuration)", "--nofork", "--nopidfile", "--nosyslog"],
                                        unblockingSignals: serviceDirectory != nil)
        try daemon.waitUntil("dbus-daemon did not start") { try self.answers() }
    }

    /// Whether the daemon has not ended.
    public var isRunning: Bool { daemon.isRunning }

    /// Ends the daemon and waits for it (again: nothing). SIGKILL: a child started from a test's
    /// thread inherits that thread's signal mask, and Dispatch's threads block SIGTERM.
    public func stop() {
        if daemon.isRunning { kill(daemon.pid, SIGKILL) }
        _ = daemon.wait()
    }

    /// The unique name owning `name`, nil when none does.
    public func owner(of name: String) throws -> String? {
        let result = try ChildProcess.run("/usr/bin/dbus-send", [
            "--bus=\(address)", "--print-reply=literal", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
            "org.freedesktop.DBus.GetNameOwner", "string:\(name)",
        ])
        guard result.status == 0 else { return nil }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the bus answers `ListNames`.
    private func answers() throws -> Bool {
        try ChildProcess.run("/usr/bin/dbus-send", [
            "--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames",
        ]).status == 0
    }
}

extension ChildProcess.Running {
    /// Waits (10 s at most) until `ready`, while the program runs; otherwise ends it and throws
    /// `failure` with what it wrote on its standard error.
    public func waitUntil(_ failure: String, _ ready: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try !ready() {
            guard isRunning, ContinuousClock.now < deadline else {
                if isRunning { kill(pid, SIGKILL) }
                throw ChildProcessError("\(failure): \(wait().stderr)")
            }
            usleep(10_000)
        }
    }
}
