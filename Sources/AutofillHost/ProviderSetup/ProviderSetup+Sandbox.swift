internal import AutofillCore
internal import AutofillSystem
internal import FoundationEssentials

extension ProviderSetup {
    /// The sandbox of provider `manifest` (docs/SANDBOX.md): what every provider gets (the system's
    /// libraries, the Swift runtime, its bundle, a few harmless devices and /etc files, its private
    /// folders, created here), what it declared (files by setting or path, TCP ports, the session
    /// bus, programs, environment variables), and its whole environment. Throws, naming the provider,
    /// the setting and what to do, when a declared file would reach what the host owns, the home
    /// folder itself, or another enabled provider's files or folders.
    public func sandboxPolicy(for manifest: PluginManifest) throws(AutofillError) -> SandboxPolicy {
        let context = SandboxContext(setup: self)
        return try context.policy(for: manifest)
    }

    /// What `manifest`'s provider may reach, in plain words, one line each (with the paths its settings
    /// name now): what `providers enable`, `providers trust`, `providers list` and `plugin validate` show.
    /// With `problems`, a last line says why it cannot be sandboxed as configured (`enable` leaves it
    /// out: its refusal follows at once, and says the same).
    public func sandboxSummary(for manifest: PluginManifest, problems: Bool = true) -> [String] {
        let context = SandboxContext(setup: self)
        var lines: [String] = []
        let settings = sandboxedSettings(for: manifest)
        let declaration = manifest.sandbox
        for file in declaration.files {
            var line = SandboxDeclaration.describe(permissionKey: file.permissionKey)
            // What it names now, as resolved (the grant); a cycle of settings is said below, with the policy.
            let value: String?? = try? {() throws(AutofillError) -> String? in
                if let name = file.setting {
                    if let set = settings[name], !set.isEmpty { return set }
                    return try context.resolveDefault(of: file, in: manifest, settings: settings)
                }
                return try file.path.flatMap { path throws(AutofillError) in try context.expand(path, settings: settings, in: manifest) }
            }()
            if case .some(.some(let value)) = value, value.hasPrefix("/") {
                let written = LexicalPath.standardized(value), resolved = SandboxContext.resolvedPath(written)
                let shown = resolved == written ? written : "\(written), which is \(resolved)"
                if file.setting != nil || resolved != written { line += " (now \(DisplayText.line(shown, limit: 300)))" }
            } else if file.setting != nil {
                line += " (not set: nothing)"
            }
            lines.append(line)
        }
        if !declaration.outboundTCPPorts.isEmpty {
            lines.append("connect to the internet on TCP port\(declaration.outboundTCPPorts.count == 1 ? "" : "s") \(declaration.outboundTCPPorts.map(String.init).joined(separator: ", "))")
        }
        if declaration.sessionBus {
            for name in declaration.sessionBusNames { lines.append(SandboxDeclaration.describe(busName: DisplayText.line(name, limit: 255))) }
            for name in declaration.sessionBusVisibleNames { lines.append(SandboxDeclaration.describe(permissionKey: "bus:see:\(name)")) }
        }
        for name in declaration.executables {
            let found = SandboxContext.resolveProgram(name).map { " (\($0))" } ?? " (not found: it cannot run it)"
            lines.append("run the program \(DisplayText.line(name, limit: 200))\(found) inside its sandbox")
        }
        if let setting = declaration.gpgAgentHomeSetting {
            lines.append(SandboxDeclaration.describe(permissionKey: "agent:gpg:\(setting)") + " (outside its sandbox, if it is not running)")
        }
        if !declaration.environment.isEmpty {
            lines.append("see the environment variable\(declaration.environment.count == 1 ? "" : "s") \(declaration.environment.joined(separator: ", "))")
        }
        let own = [context.dataFolder(manifest.identifier)] + [context.runtimeFolder(manifest.identifier)].compactMap { $0 }
        lines.append("use its own folder\(own.count == 1 ? "" : "s"): \(own.joined(separator: " and "))")
        var none: [String] = []
        if declaration.files.isEmpty { none.append("no other files") }
        if declaration.outboundTCPPorts.isEmpty { none.append("no network") }
        if declaration.executables.isEmpty { none.append("no programs") }
        if !none.isEmpty { lines.append("nothing else: \(none.joined(separator: ", "))") }
        guard problems else { return lines }
        do {
            _ = try context.policy(for: manifest, createFolders: false)
        } catch {
            lines.append("cannot be sandboxed as configured: \(error.message)")
        }
        return lines
    }

    /// The settings a provider sees: the configuration's, with each declared file setting made an
    /// absolute path (resolved as the sandbox resolves it, so the provider opens exactly what it may).
    func sandboxedSettings(for manifest: PluginManifest) -> [String: String] {
        var settings = catalog.file.settings(for: manifest.identifier)
        for file in manifest.sandbox.files {
            guard let name = file.setting, let value = settings[name], !value.isEmpty else { continue }
            settings[name] = catalog.file.resolve(value)
        }
        return settings
    }
}

/// Everything the policy of one provider depends on besides its declaration: the user's folders, the
/// host's own files and the other enabled providers' files.
struct SandboxContext {
    let environment: [String: String]
    let home: String
    let dataHome: String, configHome: String, stateHome: String, cacheHome: String
    let runtimeDirectory: String?
    /// What the host owns: never granted, never inside a grant.
    let hostOwned: [String]
    let setup: ProviderSetup?

    static let helperPath = "/usr/local/bin:/usr/bin:/bin"

    init(setup: ProviderSetup, environment: [String: String] = ClientContext.current.environment) {
        let file = setup.catalog.file
        self.init(environment: environment, home: file.home,
                  hostOwned: [setup.records.path, setup.stores.path, file.path], setup: setup)
    }

    init(environment: [String: String], home: String, hostOwned: [String], setup: ProviderSetup?) {
        self.environment = environment
        let folders = UserFolders(environment: environment, home: home)
        let (dataHome, configHome, stateHome, runtimeDirectory) = (folders.dataHome, folders.configHome, folders.stateHome, folders.runtimeDirectory)
        self.home = folders.home
        self.dataHome = dataHome
        self.configHome = configHome
        self.stateHome = stateHome
        cacheHome = folders.cacheHome
        self.runtimeDirectory = runtimeDirectory
        var owned = hostOwned.map(LexicalPath.standardized)
        owned += ["\(configHome)/autofill", "\(dataHome)/autofill", "\(stateHome)/autofill"]
        if let runtimeDirectory { owned.append("\(runtimeDirectory)/autofill") }
        self.hostOwned = owned
        self.setup = setup
    }

    func dataFolder(_ id: String) -> String { "\(dataHome)/autofill/providers/\(id)" }
    func runtimeFolder(_ id: String) -> String? { runtimeDirectory.map { "\($0)/autofill/providers/\(id)" } }

    // MARK: The policy

    func policy(for manifest: PluginManifest, createFolders: Bool = true) throws(AutofillError) -> SandboxPolicy {
        let id = manifest.identifier
        let named = "\(manifest.displayName) (\(id))"
        let data = dataFolder(id), runtime = runtimeFolder(id)
        if createFolders {
            try Self.makePrivateFolder(data, for: named)
            if let runtime { try Self.makePrivateFolder(runtime, for: named) }
        }
        let declaration = manifest.sandbox
        var rules: [SandboxPolicy.Rule] = []
        var writtenNames: [SandboxPolicy.Rule] = []
        // The system: libraries and data, read only (running a program needs a declared Executable).
        for path in ["/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf"] {
            rules.append(.init(path: path, access: .read, reason: "the system's libraries and settings"))
        }
        if let runtimeLibraries = SandboxSupport.swiftRuntimeFolder {
            rules.append(.init(path: runtimeLibraries, access: .read, reason: "the Swift runtime"))
        }
        rules.append(.init(path: manifest.bundlePath, access: .read, reason: "its bundle"))
        for device in ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"] {
            rules.append(.init(path: device, access: [.read, .write], reason: "harmless devices"))
        }
        rules.append(.init(path: data, access: [.read, .write], reason: "its data folder"))
        if let runtime { rules.append(.init(path: runtime, access: [.read, .write], reason: "its runtime folder")) }

        // Declared files, each checked against what it must never reach.
        let others = otherProvidersPaths(excluding: id)
        let grants = try declaredFiles(manifest)
        let gnupg = gnupgFolders(of: manifest, grants: grants)
        for grant in grants {
            try check(grant, of: manifest, others: others, gnupg: gnupg)
            rules.append(.init(path: grant.path, access: grant.access, reason: grant.what))
            // The name as written, when links make it differ: namespaces show it (a link bubblewrap
            // makes, or the real folder bound again under that name), so the provider's setting still
            // names its file; Landlock skips it (a path holding a link grants nothing), and the grant
            // itself is the resolved path above.
            if grant.written != grant.path {
                writtenNames.append(.init(path: grant.written, access: grant.access, reason: grant.what))
            }
        }
        if !declaration.outboundTCPPorts.isEmpty {
            for path in ["/etc/resolv.conf", "/etc/hosts", "/etc/gai.conf", "/etc/host.conf", "/etc/ssl"] {
                rules.append(.init(path: path, access: .read, reason: "name resolution and certificates"))
            }
        }
        var programs: [String] = []
        for name in declaration.executables {
            guard let program = Self.resolveProgram(name) else {
                setup?.logger.warning("\(named) declares the program \(name), which is not on \(Self.helperPath): it cannot run it")
                continue
            }
            programs.append(program)
            rules.append(.init(path: program, access: [.read, .execute], reason: "the program \(name)"))
            if let interpreter = Self.scriptInterpreter(program) {
                rules.append(.init(path: interpreter, access: [.read, .execute], reason: "the interpreter of \(name)"))
            }
        }
        if !programs.isEmpty, let loader = Self.realPath("/lib64/ld-linux-x86-64.so.2") {
            rules.append(.init(path: loader, access: [.read, .execute], reason: "the dynamic loader, to run programs"))
        }
        // Every rule names its path resolved: the helper opens it without following any link.
        rules = rules.map { SandboxPolicy.Rule(path: Self.resolvedPath($0.path), access: $0.access, reason: $0.reason) } + writtenNames
        return SandboxPolicy(
            rules: rules, tcpPorts: declaration.outboundTCPPorts.sorted(), network: !declaration.outboundTCPPorts.isEmpty,
            sessionBus: declaration.sessionBus, unixSockets: declaration.sessionBus || !declaration.executables.isEmpty,
            runsPrograms: !declaration.executables.isEmpty, environment: environment(for: manifest, data: data, runtime: runtime),
            dataFolder: data, runtimeFolder: runtime)
    }

    /// The helper's whole environment (docs/SANDBOX.md, "Its environment").
    func environment(for manifest: PluginManifest, data: String, runtime: String?) -> [String: String] {
        var result: [String: String] = [
            "HOME": home, "PATH": Self.helperPath, "SWIFT_BACKTRACE": "enable=no",
            "XDG_DATA_HOME": dataHome, "XDG_CONFIG_HOME": configHome, "XDG_STATE_HOME": stateHome, "XDG_CACHE_HOME": cacheHome,
            "TMPDIR": runtime ?? data, "AUTOFILL_PROVIDER_DATA_DIR": data,
        ]
        // Its own runtime folder as XDG_RUNTIME_DIR: the user's would point it to the agent's socket.
        if let runtime {
            result["XDG_RUNTIME_DIR"] = runtime
            result["AUTOFILL_PROVIDER_RUNTIME_DIR"] = runtime
        }
        for name in ["USER", "LOGNAME", "LANG", "LANGUAGE", "TZ"] { if let value = environment[name] { result[name] = value } }
        for (name, value) in environment where name.hasPrefix("LC_") { result[name] = value }
        if manifest.sandbox.sessionBus {
            // Without the variable, the bus a session has in its runtime folder (which the provider's own XDG_RUNTIME_DIR is not).
            if let bus = environment["DBUS_SESSION_BUS_ADDRESS"] {
                result["DBUS_SESSION_BUS_ADDRESS"] = bus
            } else if let runtimeDirectory, Paths.exists("\(runtimeDirectory)/bus") {
                result["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(runtimeDirectory)/bus"
            }
        }
        for name in manifest.sandbox.environment { if let value = environment[name] { result[name] = value } }
        return result
    }

    /// Other enabled providers' paths: their private folders and declared files, and whether each
    /// is theirs to change (two providers may read the same file; neither may reach what the other changes).
    func otherProvidersPaths(excluding id: String) -> [(id: String, path: String, changes: Bool)] {
        guard let setup else { return [] }
        var paths: [(String, String, Bool)] = []
        for other in setup.catalog.enabledIDs where other != id {
            for folder in [dataFolder(other), runtimeFolder(other)].compactMap({ $0 }).flatMap(Self.bothForms) { paths.append((other, folder, true)) }
            guard let manifest = try? setup.catalog.manifest(for: other), let grants = try? declaredFiles(manifest) else { continue }
            for grant in grants { paths.append((other, grant.path, grant.changes)) }
        }
        return paths
    }

    /// Refuses a grant (resolved) that would reach what the host owns, the root or home folder, the kernel's
    /// files, the provider's own folders, another provider's files, or change a GnuPG folder (`gnupg`,
    /// ``gnupgFolders(of:grants:)``); each compared as written and resolved.
    func check(_ grant: Grant, of manifest: PluginManifest, others: [(id: String, path: String, changes: Bool)], gnupg: [String] = []) throws(AutofillError) {
        let named = "\(manifest.displayName) (\(manifest.identifier))"
        let path = grant.path
        let shown = grant.written == path ? path : "\(grant.written), which is \(path)"
        func refuse(_ why: String) -> AutofillError {
            AutofillError(.configuration,
                          "\(named) would be given \(shown) (\(grant.what)), which \(why); autofill does not sandbox a provider that way. Keep the provider's file in a folder of its own and point the setting there (docs/SANDBOX.md)")
        }
        try checkResolved(grant, refuse: refuse, own: [dataFolder(manifest.identifier), runtimeFolder(manifest.identifier)].compactMap { $0 })
        if path == "/" { throw refuse("is the whole file system") }
        for home in Self.bothForms(home) {
            if path == home { throw refuse("is your home folder") }
            if Self.overlaps(path, home) && !Self.isInside(path, home) { throw refuse("holds your home folder") }
        }
        for owned in hostOwned.flatMap(Self.bothForms) where Self.overlaps(path, owned) {
            throw refuse("\(Self.isInside(owned, path) ? "holds" : "is part of") \(owned), which autofill keeps for itself")
        }
        for (other, otherPath, changes) in others where Self.overlaps(path, otherPath) && (changes || grant.changes) {
            throw refuse("\(Self.isInside(otherPath, path) && otherPath != path ? "holds" : "is") \(otherPath), a file or folder of the provider \(other)")
        }
        try checkGnuPG(grant, folders: gnupg, refuse: refuse)
    }

    // MARK: Folders and paths

    /// Creates `folder` and missing parents 0700, and refuses one that is a symbolic link, another user's, or open to others.
    static func makePrivateFolder(_ folder: String, for named: String) throws(AutofillError) {
        do {
            try Paths.makeFolders(folder, mode: 0o700)
        } catch {
            throw AutofillError(.io, "cannot create \(folder), the private folder of \(named): \(error)")
        }
        let info: FileStatus
        do {
            info = try FileStatus(path: folder, followingLinks: false)
        } catch {
            throw AutofillError(.io, "cannot check \(folder), the private folder of \(named) (\(error.reason))")
        }
        guard info.kind == .directory else {
            throw AutofillError(.refused, "\(folder), the private folder of \(named), is a symbolic link or not a folder; remove it and run autofill again")
        }
        guard info.owner == Users.current else {
            throw AutofillError(.refused, "\(folder), the private folder of \(named), belongs to user \(info.owner), not to you; remove it and run autofill again")
        }
        guard info.mode & 0o077 == 0 else {
            throw AutofillError(.refused, "\(folder), the private folder of \(named), is open to other users (mode \(String(info.mode & 0o777, radix: 8))); run chmod 700 \(folder)")
        }
    }

    static func parent(of path: String) -> String {
        let parent = path.split(separator: "/").dropLast().joined(separator: "/")
        return "/" + parent
    }

    /// `path` is strictly beneath `folder`.
    static func isInside(_ path: String, _ folder: String) -> Bool {
        folder == "/" ? path != "/" : path.hasPrefix(folder + "/")
    }

    static func overlaps(_ a: String, _ b: String) -> Bool { a == b || isInside(a, b) || isInside(b, a) }

    static func isDirectory(_ path: String) -> Bool {
        (try? FileStatus(path: path))?.kind == .directory
    }

    static func realPath(_ path: String) -> String? {
        RealPath.resolve(path)  // once per request in the agent
    }

    /// A program name on the helper's PATH, or an absolute path, resolved to the file itself.
    static func resolveProgram(_ name: String) -> String? {
        let candidates = name.hasPrefix("/") ? [name] : helperPath.split(separator: ":").map { "\($0)/\(name)" }
        for candidate in candidates where Paths.isExecutable(candidate) {
            if let real = realPath(candidate), !isDirectory(real) { return real }
        }
        return nil
    }

    /// The interpreter a `#!` script names, resolved.
    static func scriptInterpreter(_ program: String) -> String? {
        guard let handle = try? Descriptors.open(program) else { return nil }
        defer { Descriptors.closeQuietly(handle) }
        var buffer = [UInt8](repeating: 0, count: 255)
        guard let count = try? buffer.withUnsafeMutableBytes({ raw in try Descriptors.read(handle, into: raw) }), count > 0 else { return nil }
        let line = String(decoding: buffer[0..<count].prefix { $0 != 0x0A && $0 != 0 }, as: UTF8.self)
        guard line.hasPrefix("#!") else { return nil }
        let interpreter = line.dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).first.map(String.init)
        return interpreter.flatMap(realPath)
    }
}

extension ProviderSetup {
    /// The sandbox of `manifest`'s provider before the user approved it (`plugin validate` of a bundle
    /// not enabled, or whose files or permissions changed): what every provider gets and its own
    /// folders, none of what it declares. Nil `setup`: no configuration to read, only the environment.
    public static func unapprovedSandboxPolicy(for manifest: PluginManifest, setup: ProviderSetup?) throws(AutofillError) -> SandboxPolicy {
        var bare = manifest
        bare.sandbox = SandboxDeclaration()
        if let setup { return try SandboxContext(setup: setup).policy(for: bare) }
        let environment = ClientContext.current.environment
        return try SandboxContext(environment: environment, home: UserFolders(environment: environment).home, hostOwned: [], setup: nil).policy(for: bare)
    }
}
