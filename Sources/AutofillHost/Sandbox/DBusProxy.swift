internal import AutofillWire
internal import AutofillSystem
internal import Synchronization

/// The session bus a helper reaches through ``DBusProxy``: the user's bus and the names it may talk to.
public struct SessionBusFilter: Sendable, Equatable {
    /// The user's session bus (its D-Bus address).
    public var upstream: String
    /// The well-known names the provider declared (`SessionBusNames`).
    public var names: [String]
    /// The names it may only see (`SessionBusVisibleNames`).
    public var visibleNames: [String]

    public init(upstream: String, names: [String], visibleNames: [String] = []) {
        self.upstream = upstream
        self.names = names
        self.visibleNames = visibleNames
    }
}

/// One `xdg-dbus-proxy` (Flatpak's filtering D-Bus proxy) between a helper and the user's session
/// bus: the host starts it outside the sandbox, before the helper, on a socket in a private folder
/// of its own, and the sandbox sees that socket alone (``BubblewrapCommand/busPath``). It forwards
/// only the bus names the provider declared (`--filter --talk=NAME`) and the bus's own few harmless
/// calls; no activation-environment updates, no starting other services, no other names.
///
/// It ends with the helper: it watches a pipe whose other end only the host holds (`--fd`), which
/// closes when the host calls ``stop()`` or dies.
final class DBusProxy: Sendable {
    /// Where autofill looks for the proxy (a fixed list, as for bubblewrap).
    static let candidates = ["/usr/bin/xdg-dbus-proxy", "/usr/libexec/xdg-dbus-proxy", "/usr/local/bin/xdg-dbus-proxy"]
    static let executable: String? = candidates.first(where: Paths.isExecutable)

    /// The proxy's private folder (outside the sandbox), which holds only its socket, `bus`: the
    /// sandbox gets the folder, so the helper can start before the proxy listens.
    let folder: String
    private var socket: String { "\(folder)/bus" }
    private let pid: Int32
    private let lifeline = Mutex<Int32>(-1)
    private let listening = Mutex(false)

    private init(folder: String, pid: Int32, lifeline: Int32) {
        self.folder = folder
        self.pid = pid
        self.lifeline.withLock { $0 = lifeline }
    }

    /// The proxy's arguments (pure): the upstream bus, its socket, one `--talk` per name and one `--see` per visible name.
    static func arguments(upstream: String, socket: String, names: [String], visibleNames: [String] = [], lifeline: Int32) -> [String] {
        ["--fd=\(lifeline)", upstream, socket, "--filter"] + names.map { "--talk=\($0)" } + visibleNames.map { "--see=\($0)" }
    }

    /// Starts a proxy to `upstream` for `names` in a new private folder under `runtimeDirectory`
    /// (else `/tmp`); ``waitUntilListening(for:)`` then waits until it listens.
    static func start(_ filter: SessionBusFilter, runtimeDirectory: String?, for named: String) throws(AutofillError) -> DBusProxy {
        guard let executable else {
            throw AutofillError(.notFound, "\(named) talks to the session bus, which autofill filters through xdg-dbus-proxy, and it is not installed; install it (Debian: apt install xdg-dbus-proxy)")
        }
        func fail(_ what: String) -> AutofillError {
            AutofillError(.internal, "cannot start the session bus filter for \(named): \(what)")
        }
        let folder: String
        do throws(SystemError) {
            folder = try Paths.makeTemporaryFolder("\(runtimeDirectory ?? "/tmp")/autofill-bus.")
        } catch {
            throw fail("mkdtemp failed (\(error.reason))")
        }
        let socket = "\(folder)/bus"
        let pipe: (read: Int32, write: Int32)
        do throws(SystemError) {
            pipe = try Descriptors.pipe()
        } catch {
            try? Paths.removeFolder(folder)
            throw fail("pipe failed (\(error.reason))")
        }
        let null = (try? Descriptors.open("/dev/null", .readWrite)) ?? -1
        let arguments = [executable] + Self.arguments(upstream: filter.upstream, socket: socket, names: filter.names,
                                                      visibleNames: filter.visibleNames, lifeline: 3)
        let spawned = Result { () throws(SystemError) in
            try Spawn.program(executable, arguments: arguments, environment: ["PATH=/usr/bin:/bin"], input: null, output: null,
                              error: null, extra: pipe.write)
        }
        Descriptors.closeQuietly(pipe.write)
        if null >= 0 { Descriptors.closeQuietly(null) }
        let pid: Int32
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error):
            Descriptors.closeQuietly(pipe.read)
            try? Paths.removeFolder(folder)
            throw fail("posix_spawn failed (\(error.reason))")
        }
        return DBusProxy(folder: folder, pid: pid, lifeline: pipe.read)
    }

    /// Waits (10 s at most) until the proxy listens: it writes one byte on its lifeline then;
    /// end-of-file means it ended first.
    func waitUntilListening(for named: String) throws(AutofillError) {
        if listening.withLock({ $0 }) { return }
        let descriptor = lifeline.withLock { $0 }
        var byte: UInt8 = 0
        guard descriptor >= 0, (try? Descriptors.waitReadable(descriptor, timeoutMilliseconds: 10_000)) == true,
            (try? withUnsafeMutableBytes(of: &byte) { raw in try Descriptors.read(descriptor, into: raw) }) == 1
        else {
            stop()
            throw AutofillError(.internal, "cannot start the session bus filter for \(named): xdg-dbus-proxy ended or did not listen within 10 s (is your session bus running?)")
        }
        listening.withLock { $0 = true }
    }

    /// Ends the proxy (closing its lifeline, then SIGKILL), reaps it and removes its folder. Again: nothing.
    func stop() {
        let descriptor = lifeline.withLock { descriptor -> Int32 in
            defer { descriptor = -1 }
            return descriptor
        }
        guard descriptor >= 0 else { return }
        Descriptors.closeQuietly(descriptor)
        try? Signals.send(.kill, to: pid)
        Processes.reap(pid)
        try? Paths.remove(socket)
        try? Paths.removeFolder(folder)
    }

    /// The session bus the host's user talks to: `DBUS_SESSION_BUS_ADDRESS`, else the usual socket
    /// in `XDG_RUNTIME_DIR`; nil when there is neither.
    static func upstream(environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"), Paths.exists("\(runtime)/bus") {
            return "unix:path=\(runtime)/bus"
        }
        return nil
    }
}
