internal import CAutofillAgent
internal import Glibc

/// Where the agent listens: `$XDG_RUNTIME_DIR/autofill/agent/socket` (folder 0700, socket 0600),
/// beside its lock file. Without an absolute `XDG_RUNTIME_DIR` there is no agent: it never falls back
/// to a folder on disk such as /tmp.
package struct AgentPaths: Sendable, Equatable {
    /// The agent's folder.
    package let folder: String

    /// The paths for `environment`, or nil without an absolute `XDG_RUNTIME_DIR`.
    package init?(environment: [String: String]) {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        folder = (runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime) + "/autofill/agent"
    }

    /// Why there is no agent without ``init(environment:)``'s folder.
    package static let noRuntimeFolder = """
        XDG_RUNTIME_DIR is not set (or not an absolute path), so the agent has nowhere private to listen, \
        and it never uses a folder on disk such as /tmp; log in through a session that sets it (systemd-logind \
        does), or run commands in process (AUTOFILL_AGENT=off)
        """

    /// The socket.
    package var socket: String { folder + "/socket" }
    /// The lock file one running agent holds.
    package var lockFile: String { folder + "/agent.lock" }
}

/// Who listens on an agent socket, by the kernel's word (SO_PEERCRED of a connection to it).
package struct AgentSocketPeer: Sendable {
    /// The listening process's uid and pid.
    package let uid: UInt32
    package let pid: Int32

    /// Connects to `path` and asks; nil when nothing listens there.
    package init?(path: String) {
        let socket = afa_connect(path)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var uid: uid_t = 0, pid: pid_t = 0
        guard afa_peer_credentials(socket, &uid, &pid) == 0 else { return nil }
        self.uid = uid
        self.pid = pid
    }
}
