internal import AutofillSystem

/// The `bwrap` command line that runs one helper in namespaces of its own (docs/SANDBOX.md, "What
/// the kernel and bubblewrap enforce"): the translation of a ``SandboxPolicy`` into mounts, made
/// here and nowhere else. It runs nothing: what it needs to know of the file system (real paths,
/// links) comes through ``FileSystem``, so tests give it a file system of their own.
///
/// Inside, only what the policy names exists: each rule's path bound at its real path (read-only
/// unless the rule writes), a link where the rule's own path is a link (`/lib64` → `/usr/lib64`),
/// the devices the policy lists, a private `/proc` (its own pid namespace) and `/tmp`, the command's
/// program read-only (`cat`, which holds the namespaces for the helper to enter: ``NamespaceHolder``),
/// and with a session bus the filtering proxy's folder, its socket at ``busPath``. Every
/// namespace is its own (`--unshare-all`), the network too unless the policy allows Internet
/// sockets; no capabilities, no user namespaces inside (`--disable-userns`), a session of its own,
/// and it dies with the host. Landlock and seccomp are then applied inside by the helper, as without
/// bubblewrap.
struct BubblewrapCommand: Equatable, Sendable {
    /// What the translation reads of the file system.
    struct FileSystem: Sendable {
        /// The path with every link resolved; nil when it does not exist.
        var realPath: @Sendable (String) -> String?
        /// Whether the path itself (its last component) is a symbolic link.
        var isSymbolicLink: @Sendable (String) -> Bool

        /// The real file system.
        static let live = FileSystem(
            realPath: { SandboxContext.realPath($0) },
            isSymbolicLink: { path in
                (try? FileStatus(path: path, followingLinks: false))?.kind == .symbolicLink
            })
    }

    /// Where the proxy's folder is inside the sandbox, and its socket, the session bus.
    static let busFolder = "/run/autofill"
    static let busPath = "\(busFolder)/bus"
    /// The helper's `DBUS_SESSION_BUS_ADDRESS` inside the sandbox.
    static let busAddress = "unix:path=\(busPath)"

    /// `bwrap`'s arguments, without the program name: options, then `--`, the helper and its arguments.
    let arguments: [String]

    /// The command line running `helper` (an absolute path: the program bubblewrap runs) with `helperArguments` under `policy`;
    /// `busFolder` is the proxy's folder outside the sandbox (its socket is `bus`), nil without a session bus;
    /// `loaderTrace` the folder of `LD_DEBUG_OUTPUT` when the user set it (the dynamic loader opens its
    /// trace file there as the helper starts, before Landlock closes the folder to the plugin).
    init(policy: SandboxPolicy, helper: String, helperArguments: [String], busFolder: String?, loaderTrace: String? = nil,
         fileSystem: FileSystem = .live) {
        var arguments = [
            "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--die-with-parent", "--new-session",
            // bubblewrap sets PWD to the folder it starts the helper in: always /, never the caller's folder.
            "--chdir", "/",
        ]
        if policy.network { arguments.append("--share-net") }
        arguments += ["--proc", "/proc", "--tmpfs", "/tmp"]

        let helperReal = fileSystem.realPath(helper) ?? helper
        var binds = Self.binds(policy.rules, fileSystem: fileSystem)
        binds.append(Bind(path: helperReal, writable: false, device: false))
        if let loaderTrace, let real = fileSystem.realPath(loaderTrace), Self.isAllowed(real) {
            binds.append(Bind(path: real, writable: true, device: false))
        }
        for bind in Self.minimal(binds) {
            arguments += [bind.device ? "--dev-bind" : bind.writable ? "--bind" : "--ro-bind", bind.path, bind.path]
        }
        // Links the policy names (a rule's own path, `/lib64`), where bubblewrap can make them: in
        // its own root, not inside a bound folder. And the system's own links into what is bound
        // (`/bin` → `/usr/bin`: programs and libraries name `/bin/sh`).
        let bound = binds.map(\.path)
        var links: [String] = []
        for path in policy.rules.map(\.path) + Self.systemLinks where fileSystem.isSymbolicLink(path) && !links.contains(path) {
            guard let target = fileSystem.realPath(path), target != path, Self.isAllowed(target),
                !bound.contains(where: { SandboxContext.isInside(path, $0) || path == $0 })
            else { continue }
            if Self.systemLinks.contains(path) && !bound.contains(where: { SandboxContext.isInside(target, $0) || target == $0 }) { continue }
            links.append(path)
            arguments += ["--symlink", target, path]
        }
        // A rule whose path runs through a link above it (a home under a linked /home): its real path
        // bound again at the rule's own path, so the names the policy and the provider's settings use
        // are there too (where bubblewrap can make them: not in a bound folder, not through a link).
        var aliases: [Bind] = []
        var sources: [String: String] = [:]
        for rule in policy.rules where !fileSystem.isSymbolicLink(rule.path) && !aliases.contains(where: { $0.path == rule.path }) {
            guard let real = fileSystem.realPath(rule.path), real != rule.path, Self.isAllowed(real), Self.isAllowed(rule.path),
                !(bound + links).contains(where: { SandboxContext.isInside(rule.path, $0) || rule.path == $0 })
            else { continue }
            aliases.append(Bind(path: rule.path, writable: rule.access.contains(.write), device: false))
            sources[rule.path] = real
        }
        for alias in Self.minimal(aliases) {
            arguments += [alias.writable ? "--bind" : "--ro-bind", sources[alias.path] ?? alias.path, alias.path]
        }
        if let busFolder { arguments += ["--ro-bind", busFolder, Self.busFolder] }
        arguments += ["--", helperReal] + helperArguments
        self.arguments = arguments
    }

    /// The links a merged-/usr system has at its root, made inside when they lead into what is bound.
    static let systemLinks = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]

    /// One mount: `path` bound at itself.
    struct Bind: Equatable {
        var path: String
        var writable: Bool
        var device: Bool
    }

    /// The rules' real paths and how each is mounted; paths that do not exist are left out (Landlock
    /// skips them too), and so is anything that would show the whole file system, `/proc` or `/sys`.
    static func binds(_ rules: [SandboxPolicy.Rule], fileSystem: FileSystem) -> [Bind] {
        var binds: [Bind] = []
        for rule in rules {
            guard let real = fileSystem.realPath(rule.path), isAllowed(real) else { continue }
            let device = SandboxContext.isInside(real, "/dev")
            let writable = rule.access.contains(.write)
            if let index = binds.firstIndex(where: { $0.path == real }) {
                binds[index].writable = binds[index].writable || writable
            } else {
                binds.append(Bind(path: real, writable: writable, device: device))
            }
        }
        return binds
    }

    /// A real path bubblewrap may bind: never the root, `/proc`, `/sys`, and of `/dev` only its nodes.
    static func isAllowed(_ real: String) -> Bool {
        guard real.hasPrefix("/"), real != "/" else { return false }
        for kernel in ["/proc", "/sys", "/dev"] where real == kernel || (kernel != "/dev" && SandboxContext.isInside(real, kernel)) {
            return false
        }
        return true
    }

    /// `binds` in mounting order (a folder before what lies in it, so nothing is hidden by a later
    /// mount), without those the nearest enclosing bind already gives (a read-only path in a bound
    /// folder; anything in a writable one).
    static func minimal(_ binds: [Bind]) -> [Bind] {
        let ordered = binds.sorted { a, b in
            let depthA = a.path.split(separator: "/").count, depthB = b.path.split(separator: "/").count
            return depthA != depthB ? depthA < depthB : a.path < b.path
        }
        var kept: [Bind] = []
        for bind in ordered {
            let enclosing = kept.filter { SandboxContext.isInside(bind.path, $0.path) }
                .max { $0.path.count < $1.path.count }
            if let enclosing, !bind.device, enclosing.writable || !bind.writable { continue }
            kept.append(bind)
        }
        return kept
    }
}
