internal import AutofillSystem

/// Where the agent listens: `$XDG_RUNTIME_DIR/autofill/agent/socket` (folder 0700, socket 0600),
/// beside its lock file. Without an absolute `XDG_RUNTIME_DIR`, the runtime folder logind makes,
/// `/run/user/UID`, when it exists and is the user's own folder; otherwise there is no agent: it
/// never falls back to a folder on disk such as /tmp. Client and agent find it the same way.
package struct AgentPaths: Sendable, Equatable {
    /// The runtime folder (`XDG_RUNTIME_DIR`, or logind's).
    package let runtimeFolder: String
    /// The agent's folder.
    package let folder: String

    /// The paths for `environment`, or nil without a runtime folder. `loginRuntimeRoot` is where
    /// logind makes each user's runtime folder (tests name another).
    package init?(environment: [String: String], loginRuntimeRoot: String = "/run/user") {
        self.init(runtimeDirectory: environment["XDG_RUNTIME_DIR"], loginRuntimeRoot: loginRuntimeRoot)
    }

    /// The paths when `XDG_RUNTIME_DIR` is `runtimeDirectory` (nil: not set).
    package init?(runtimeDirectory: String?, loginRuntimeRoot: String = "/run/user") {
        if let runtime = runtimeDirectory, runtime.hasPrefix("/") {
            runtimeFolder = runtime.count > 1 && runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime
        } else {
            let login = "\(loginRuntimeRoot)/\(Users.current)"
            guard let info = try? FileStatus(path: login, followingLinks: false), info.kind == .directory, info.owner == Users.current else {
                return nil
            }
            runtimeFolder = login
        }
        folder = (runtimeFolder == "/" ? "" : runtimeFolder) + "/autofill/agent"
    }

    /// Why there is no agent without ``init(environment:loginRuntimeRoot:)``'s folder.
    package static let noRuntimeFolder = """
        XDG_RUNTIME_DIR is not set (or not an absolute path) and there is no /run/user/\(Users.current) of yours, so \
        the agent has nowhere private to listen, and it never uses a folder on disk such as /tmp; log in through \
        a session that sets it (systemd-logind does), or run commands in process (AUTOFILL_AGENT=off)
        """

    /// What is wrong with the runtime folder and the `autofill/` folder in it (each when it exists: the
    /// agent creates what is missing 0700), or nil:
    /// each must be a folder (not a symbolic link) of this user's, closed to others (0700), since the
    /// agent's socket there hands out what the providers unlocked.
    package func unsafeFolder() -> String? {
        let autofill = (runtimeFolder == "/" ? "" : runtimeFolder) + "/autofill"
        // Two calls, not a loop over an array of pairs: the client runs this, and a tuple array's
        // generic metadata is built at run time (docs/PERFORMANCE.md, Run R).
        switch Self.check(runtimeFolder, named: "the runtime folder (XDG_RUNTIME_DIR)") {
        case .missing: return nil
        case .unsafe(let problem): return problem
        case .safe: break
        }
        switch Self.check(autofill, named: "autofill's runtime folder") {
        case .missing, .safe: return nil
        case .unsafe(let problem): return problem
        }
    }

    private enum FolderCheck {
        case safe, missing
        case unsafe(String)
    }

    /// Whether folder `path`, which a problem calls `named`, is missing, safe or not (``unsafeFolder()``).
    private static func check(_ path: String, named: String) -> FolderCheck {
        let info: FileStatus
        do {
            info = try FileStatus(path: path, followingLinks: false)
        } catch {
            if error.noSuchFile { return .missing }
            return .unsafe("\(named) \(path) cannot be checked (\(error.reason))")
        }
        guard info.kind == .directory else {
            return .unsafe("\(named) \(path) is a symbolic link or not a folder; it must be a folder of yours, mode 0700")
        }
        guard info.owner == Users.current else {
            return .unsafe("\(named) \(path) belongs to user \(info.owner), not to you (uid \(Users.current)); it must be yours, mode 0700")
        }
        guard info.mode & 0o077 == 0 else {
            return .unsafe("\(named) \(path) is open to other users (mode \(String(info.mode & 0o777, radix: 8))); it must be 0700: chmod 700 \(path)")
        }
        return .safe
    }

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
        guard let socket = try? UnixSocket.connect(path) else { return nil }
        defer { Descriptors.closeQuietly(socket) }
        guard let peer = try? UnixSocket.peerCredentials(socket) else { return nil }
        self.uid = peer.uid
        self.pid = peer.pid
    }
}
