internal import AutofillWire
internal import AutofillSystem

/// A helper process just spawned: its pid and the host's ends of its descriptors, all close-on-exec.
struct SpawnedHelper {
    let pid: Int32
    /// The protocol socket.
    let channel: Int32
    /// The host's end of the fault socket (non-blocking): the fault reporter's notes arrive here.
    let fault: Int32
    /// The read ends of the helper's stdout and stderr (non-blocking).
    let output: Int32
    let errorOutput: Int32
    /// Spawned in namespaces of its own: `pid` is the helper executed outside them, which entered them,
    /// forked the helper that serves (its one child) and exits with its status (a signal N as 128 + N).
    var namespaced = false
    /// In namespaces: bubblewrap, which made them and keeps them (its command waits on `lifeline`).
    var holder: Int32 = 0
    /// The host's end of the holder's standard input: closing it ends the holder's command.
    var lifeline: Int32 = -1
    /// The session bus filter that ends with the helper, if it has a bus.
    var busProxy: DBusProxy?
    /// In namespaces: the identities of the single files bound into them, taken before bubblewrap bound them.
    var files = GrantedFiles.none

    /// Ends what the helper ran in: the holder and the bus filter; `reap`: and closes the lifeline and
    /// waits for the holder (once: the last thing done with this helper).
    func endSandbox(reap: Bool) {
        if holder > 0 {
            try? Processes.killGroup(holder)  // before reaping: the group id is still bubblewrap's
            if reap {
                if lifeline >= 0 { Descriptors.closeQuietly(lifeline) }
                Processes.reap(holder)
            }
        }
        busProxy?.stop()
    }
}

/// What a helper in namespaces of its own is spawned with.
struct HelperNamespaces: Equatable, Sendable {
    var policy: SandboxPolicy
    var sessionBus: SessionBusFilter?
    /// The provider's name and id, for errors.
    var named: String
}

/// Finding and spawning the helper executable.
enum HelperSpawn {
    /// The helper executable: `options.executable`, else `$AUTOFILL_PROVIDER_HELPER`, else
    /// `autofill-provider-helper` in the folder of this process's executable (`/proc/self/exe`).
    static func executable(_ options: HelperOptions) throws(AutofillError) -> String {
        if let path = options.executable ?? Processes.variable(HelperProtocol.executableEnvironmentKey),
            !path.isEmpty
        {
            guard Paths.isExecutable(path) else {
                throw AutofillError(.notFound, "the provider helper \(path) (from \(options.executable == nil ? "$\(HelperProtocol.executableEnvironmentKey)" : "the options")) is not an executable file: fix the path, or unset it to use the one installed with autofill")
            }
            return path
        }
        let me = selfExecutable()
        let folder = me.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let path = "\(folder)/\(HelperProtocol.executableName)"
        guard Paths.isExecutable(path) else {
            throw AutofillError(.notFound, "the provider helper \(HelperProtocol.executableName) is missing next to \(me): install it with autofill (swift build builds both), set $\(HelperProtocol.executableEnvironmentKey) to its path, or run providers in process (ProviderIsolation in the configuration, docs/CONFIGURATION.md)")
        }
        return path
    }

    /// The variables a helper starts with (besides `LC_*`), docs/SANDBOX.md "Its environment":
    /// locale, time zone, the user's home and XDG data folders, and the dynamic loader's diagnostics
    /// (`LD_DEBUG`, `LD_DEBUG_OUTPUT`: what the loader opened). Not `PATH`, and nothing that locates
    /// the agent (`XDG_RUNTIME_DIR`, the bus addresses): the plugin can read its first environment
    /// for its whole life (/proc/self/environ).
    static let passedToHelpers: Set<String> = [
        "HOME", "LANG", "LANGUAGE", "TZ", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
        "LD_DEBUG", "LD_DEBUG_OUTPUT",
    ]

    /// This process's executable.
    static func selfExecutable() -> String {
        guard let path = try? Paths.linkTarget("/proc/self/exe"), !path.isEmpty else { return CommandLine.arguments.first ?? "autofill" }
        return path
    }

    /// Spawns `executable` as the helper of this process, with `memoryLimit` (bytes, 0 for none); with
    /// `namespaces`, through bubblewrap (and the session bus's filter, started first), taking the
    /// identities of `files` (resolved paths) before bubblewrap binds them.
    static func spawn(_ executable: String, memoryLimit: UInt64, namespaces: HelperNamespaces? = nil,
                      files: [String] = []) throws(AutofillError) -> SpawnedHelper {
        var opened: [Int32] = []
        func fail(_ error: SystemError) -> AutofillError {
            for descriptor in opened { Descriptors.closeQuietly(descriptor) }
            return AutofillError(.internal, "cannot start the provider helper \(executable): \(error)")
        }
        let socket: (Int32, Int32), fault: (Int32, Int32), output: (read: Int32, write: Int32), errorOutput: (read: Int32, write: Int32)
        do throws(SystemError) {
            socket = try Descriptors.socketPair()
            opened += [socket.0, socket.1]
            fault = try Descriptors.socketPair()
            opened += [fault.0, fault.1]
            try Descriptors.setNonblocking(fault.0, true)
            output = try Descriptors.pipe(nonblockingRead: true)
            opened += [output.read, output.write]
            errorOutput = try Descriptors.pipe(nonblockingRead: true)
            opened += [errorOutput.read, errorOutput.write]
        } catch {
            throw fail(error)
        }

        var arguments = [executable, "--parent", "\(Users.processID)", "--memory-limit", "\(memoryLimit)"]
        var proxy: DBusProxy?
        var holder: (pid: Int32, lifeline: Int32)?
        let identities = namespaces == nil ? GrantedFiles.none : GrantedFiles(taking: files)
        var ready: Int32 = -1
        // Only what starting the helper's runtime needs: the kernel keeps a process's first environment
        // in its memory for life (clearenv only forgets the pointers), so anything passed here would be
        // readable by the plugin later. The sandbox then replaces even this (SandboxPolicy.environment).
        var environment: [String] = []
        for line in Processes.environment() {
            let name = line.prefix { $0 != "=" }
            if Self.passedToHelpers.contains(String(name)) || name.hasPrefix("LC_") { environment.append(line) }
        }
        // The Swift runtime's backtracer would hold a crashing helper for seconds; the host reports crashes itself.
        environment.append("SWIFT_BACKTRACE=enable=no")
        if let namespaces {
            do throws(AutofillError) {
                proxy = try namespaces.sessionBus.map { bus throws(AutofillError) in
                    let runtime = Processes.variable("XDG_RUNTIME_DIR").flatMap { $0.hasPrefix("/") ? $0 : nil }
                    return try DBusProxy.start(bus, runtimeDirectory: runtime, for: namespaces.named)
                }
                let made = try NamespaceHolder.start(namespaces, busFolder: proxy?.folder, environment: environment,
                                                     errorOutput: errorOutput.write)
                holder = (made.bubblewrap, made.lifeline)
                ready = made.ready
                // Executed here, outside the namespaces, it enters those of bubblewrap's command once that
                // echoes into its standard input (see NamespaceHolder).
                arguments += ["--namespaces-of", "\(made.bubblewrap)"]
            } catch {
                for descriptor in opened { Descriptors.closeQuietly(descriptor) }
                proxy?.stop()
                throw error
            }
        }

        let started = Result { () throws(SystemError) in
            try Spawn.helper(executable, arguments: arguments, environment: environment, input: ready, channel: socket.1,
                             fault: fault.1, output: output.write, error: errorOutput.write)
        }
        // The child's ends live on in the child only.
        for descriptor in [socket.1, fault.1, output.write, errorOutput.write] { Descriptors.closeQuietly(descriptor) }
        if ready >= 0 { Descriptors.closeQuietly(ready) }
        var spawned = SpawnedHelper(pid: (try? started.get()) ?? 0, channel: socket.0, fault: fault.0, output: output.read,
                                    errorOutput: errorOutput.read, namespaced: namespaces != nil, busProxy: proxy)
        if let holder { (spawned.holder, spawned.lifeline) = holder }
        spawned.files = identities
        if case .failure(let error) = started {
            for descriptor in [socket.0, fault.0, output.read, errorOutput.read] { Descriptors.closeQuietly(descriptor) }
            spawned.endSandbox(reap: true)
            throw AutofillError(.internal, "cannot start the provider helper \(executable): \(error)")
        }
        // The helper starts its runtime meanwhile; it connects to the bus only once its plugin loads
        // (``RunningHelper/load()`` waits until the filter listens).
        return spawned
    }

    /// The helper's own process in a namespaced spawn, as this process sees it: the one child of the
    /// helper executed outside (read from /proc before the plugin runs). Nil when it cannot be found.
    static func namespacedHelper(of outer: Int32) -> Int32? {
        NamespaceHolder.children(of: outer).first
    }

    /// Ends a helper that never served (its process group, as every helper's) and closes the host's ends.
    static func discard(_ spawned: SpawnedHelper) {
        try? Processes.killGroup(spawned.pid)  // before reaping: the group id is still the helper's
        Processes.reap(spawned.pid)
        for descriptor in [spawned.channel, spawned.fault, spawned.output, spawned.errorOutput] { Descriptors.closeQuietly(descriptor) }
        spawned.endSandbox(reap: true)
    }
}
