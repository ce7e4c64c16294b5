import Dispatch
import Foundation
import Glibc
import Synchronization

/// A Secret Service of the test's own: a session bus (`dbus-daemon`, on a socket in a temporary
/// folder, or an abstract one) and a real GNOME Keyring on it (`gnome-keyring-daemon --components=
/// secrets`), whose keyrings are kept in a temporary HOME and XDG_DATA_HOME, created and unlocked
/// with ``password`` (given on its standard input). Items are stored with `secret-tool`, as a user
/// would; collections are locked through the Secret Service API (`dbus-send`).
///
/// ``stop()`` ends the keyring daemon and the bus, and waits for them; call it in a `defer`.
///
/// Starting one and storing items block for a while (programs run and are waited for). From async
/// code use the `async` forms (``start(keyring:abstract:)``, and the methods' overloads), which wait
/// on a thread of their own: blocking the few threads of Swift's concurrency pool would stall every
/// other test of the run (a helper test's 60-second child then outlived its wait).
public final class PrivateKeyring: Sendable {
    /// The bus's D-Bus address (`unix:path=…` or `unix:abstract=…`).
    public let address: String
    /// The login keyring's password.
    public let password = "keyring password"
    /// The `login` collection, the default one.
    public static let login = "/org/freedesktop/secrets/collection/login"
    private let folder: TemporaryFolder
    private let bus: PrivateDBusDaemon
    private let keyringDaemon = Mutex<ChildProcess.Running?>(nil)

    /// The environment the keyring's programs run with: its bus, a home of its own, nothing else.
    public var environment: [String: String] {
        ["DBUS_SESSION_BUS_ADDRESS": address, "HOME": "\(folder.path)/home", "XDG_DATA_HOME": "\(folder.path)/home/data",
         "XDG_RUNTIME_DIR": "\(folder.path)/run", "PATH": "/usr/bin:/bin"]
    }

    /// Starts the bus and (with `keyring`) GNOME Keyring on it, and waits until it provides the Secret
    /// Service. With `abstract`, the bus listens on an abstract socket, as some desktops' buses do.
    /// With `prompter`, the bus can start gcr's prompter (`org.gnome.keyring.SystemPrompter`, as a
    /// desktop's bus can), showing its dialog on `display` (an X server of the test's,
    /// ``PrivateXServer``); without a display it fails to come up, as on a server.
    public init(keyring: Bool = true, abstract: Bool = false, prompter: Bool = false, display: String? = nil) throws {
        folder = try TemporaryFolder("keyring")
        for sub in ["home/data", "run"] {
            try FileManager.default.createDirectory(atPath: "\(folder.path)/\(sub)", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let socket = "\(folder.path)/bus"
        address = abstract ? "unix:abstract=\(socket)" : "unix:path=\(socket)"
        var services: String?
        if prompter {
            services = "\(folder.path)/services"
            try FileManager.default.createDirectory(atPath: services!, withIntermediateDirectories: true)
            _ = try folder.file("services/org.gnome.keyring.SystemPrompter.service", """
                [D-BUS Service]
                Name=org.gnome.keyring.SystemPrompter
                Exec=/usr/bin/env -u WAYLAND_DISPLAY \(display.map { "DISPLAY=\($0)" } ?? "-u DISPLAY") /usr/libexec/gcr-prompter

                """)
        }
        bus = try PrivateDBusDaemon(.session, address: address, configurationIn: folder, serviceDirectory: services)
        do {
            if keyring { try startKeyring(unlocking: true) }
        } catch {
            stop()
            throw error
        }
    }

    /// Starts GNOME Keyring (again: `--replace`), unlocking the login keyring with ``password`` or
    /// leaving it locked, and waits until it owns `org.freedesktop.secrets`.
    public func startKeyring(unlocking: Bool) throws {
        stopKeyring()
        let daemon = try ChildProcess.start(
            "/usr/bin/gnome-keyring-daemon", ["--foreground", "--replace", "--components=secrets"] + (unlocking ? ["--unlock"] : []),
            environment: environment, input: unlocking ? password : "")
        keyringDaemon.withLock { $0 = daemon }
        try daemon.waitUntil("gnome-keyring-daemon did not provide the Secret Service") {
            try self.owner(of: "org.freedesktop.secrets") != nil
        }
    }

    /// Ends GNOME Keyring alone (the bus stays).
    public func stopKeyring() {
        guard let daemon = keyringDaemon.withLock({ $0.take() }) else { return }
        if daemon.isRunning { kill(daemon.pid, SIGKILL) }
        _ = daemon.wait()
    }

    /// Ends the keyring daemon, then the bus, and waits for them. SIGKILL: a child started from a
    /// test's thread inherits that thread's signal mask, and Dispatch's threads block SIGTERM.
    public func stop() {
        stopKeyring()
        bus.stop()
    }

    /// Stores an item with `secret-tool store` (in the default collection, `login`), and returns its
    /// D-Bus object path.
    @discardableResult
    public func store(label: String, _ attributes: [(String, String)], secret: String) throws -> String {
        let result = try ChildProcess.run("/usr/bin/secret-tool", ["store", "--label=\(label)"] + attributes.flatMap { [$0.0, $0.1] },
                                          environment: environment, input: secret)
        guard result.status == 0 else { throw ChildProcessError("secret-tool store failed: \(result.stderr)") }
        let search = try ChildProcess.run("/usr/bin/secret-tool", ["search", "--all"] + attributes.flatMap { [$0.0, $0.1] },
                                          environment: environment)
        guard let line = search.stdout.split(separator: "\n").first(where: { $0.hasPrefix("[/") }) else {
            throw ChildProcessError("secret-tool search found no item it stored: \(search.stdout) \(search.stderr)")
        }
        return "\(Self.login)/\(line.dropFirst(2).dropLast())"
    }

    /// Stores `count` items at once (four `secret-tool store` at a time): item i is
    /// `https://site<i>.example.com` for `user<i>`, with the password `pw-<i>`, written the way git,
    /// GNOME Web, Chromium and KeePassXC write them (by i modulo 4).
    public func storeMany(_ count: Int) throws {
        let script = """
            seq \(count) | xargs -P 4 -I{} sh -c 'i=$1; case $((i % 4)) in
              0) set -- xdg:schema org.git.Password protocol https server site$i.example.com user user$i;;
              1) set -- xdg:schema org.epiphany.FormPassword uri https://site$i.example.com username user$i;;
              2) set -- xdg:schema chrome_libsecret_password_schema origin_url https://site$i.example.com username_value user$i;;
              *) set -- Title "Entry $i" URL https://site$i.example.com UserName user$i;;
            esac; printf "pw-%s" "$i" | secret-tool store --label="item $i" "$@"' sh {}
            """
        let result = try ChildProcess.run("/bin/sh", ["-c", script], environment: environment)
        guard result.status == 0 else { throw ChildProcessError("storing \(count) items failed: \(result.stderr)") }
    }

    /// Locks `collection` through the Secret Service (`Lock`; secret-tool's `lock` crashes on some versions).
    public func lock(_ collection: String = PrivateKeyring.login) throws {
        let result = try ChildProcess.run("/usr/bin/dbus-send", [
            "--bus=\(address)", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
            "org.freedesktop.Secret.Service.Lock", "array:objpath:\(collection)",
        ])
        guard result.status == 0 else { throw ChildProcessError("Lock failed: \(result.stderr)") }
    }

    /// `secret-tool ARGUMENTS` against this keyring (`lookup`, `search --all`, ...).
    public func secretTool(_ arguments: [String], input: String = "") throws -> ChildProcess.Result {
        try ChildProcess.run("/usr/bin/secret-tool", arguments, environment: environment, input: input)
    }

    /// Ends the program that owns `name` on the bus (gcr's prompter, say: its dialog goes away
    /// unanswered); false when nobody owns it.
    public func endOwner(of name: String) throws -> Bool {
        let result = try ChildProcess.run("/usr/bin/dbus-send", [
            "--bus=\(address)", "--print-reply=literal", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
            "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:\(name)",
        ])
        guard result.status == 0, let pid = result.stdout.split(separator: " ").last.flatMap({ Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        else { return false }
        return kill(pid, SIGKILL) == 0
    }

    /// Whether `collection` is locked.
    public func isLocked(_ collection: String = PrivateKeyring.login) throws -> Bool {
        let result = try ChildProcess.run("/usr/bin/dbus-send", [
            "--bus=\(address)", "--print-reply=literal", "--dest=org.freedesktop.secrets", collection,
            "org.freedesktop.DBus.Properties.Get", "string:org.freedesktop.Secret.Collection", "string:Locked",
        ])
        guard result.status == 0 else { throw ChildProcessError("reading Locked failed: \(result.stderr)") }
        return result.stdout.contains("true")
    }

    /// The unique name owning `name`, nil when none does.
    public func owner(of name: String) throws -> String? {
        try bus.owner(of: name)
    }
}

// MARK: From async code, off the concurrency pool

extension PrivateKeyring {
    /// ``init(keyring:abstract:)``, waited for on a thread of its own.
    public static func start(keyring: Bool = true, abstract: Bool = false, prompter: Bool = false) async throws -> PrivateKeyring {
        try await offThePool { try PrivateKeyring(keyring: keyring, abstract: abstract, prompter: prompter) }
    }

    /// ``startKeyring(unlocking:)``, waited for on a thread of its own.
    public func startKeyring(unlocking: Bool) async throws {
        try await offThePool { try self.startKeyring(unlocking: unlocking) }
    }

    /// ``store(label:_:secret:)``, waited for on a thread of its own.
    @discardableResult
    public func store(label: String, _ attributes: [(String, String)], secret: String) async throws -> String {
        try await offThePool { try self.store(label: label, attributes, secret: secret) }
    }

    /// ``storeMany(_:)``, waited for on a thread of its own.
    public func storeMany(_ count: Int) async throws {
        try await offThePool { try self.storeMany(count) }
    }

    /// ``lock(_:)``, waited for on a thread of its own.
    public func lock(_ collection: String = PrivateKeyring.login) async throws {
        try await offThePool { try self.lock(collection) }
    }

    /// ``isLocked(_:)``, waited for on a thread of its own.
    public func isLocked(_ collection: String = PrivateKeyring.login) async throws -> Bool {
        try await offThePool { try self.isLocked(collection) }
    }
}

/// Runs blocking `work` on a thread of its own (a queue of its own: Dispatch's overcommitting pool)
/// and waits for it without holding a thread of Swift's concurrency pool.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue(label: "offThePool").async { continuation.resume(with: Result { try work() }) }
    }
}
