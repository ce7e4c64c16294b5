public import AutofillCore
public import AutofillStore

extension ProviderSetup {
    /// The one way to a provider's connection for a request: under the agent, the provider its
    /// ``ProviderPool`` keeps running, its sends carrying `userInterface`; otherwise launched here
    /// (``launch(_:userInterface:)``).
    public func connect(_ manifest: PluginManifest, userInterface: any ProviderUserInterface = UnavailableUserInterface())
        throws(AutofillError) -> any ProviderConnection
    {
        if let pool = ClientContext.current.pool {
            return try pool.connection(for: manifest, setup: self, userInterface: userInterface)
        }
        return try launch(manifest, userInterface: userInterface)
    }

    /// Starts enabled provider `manifest` with its own store (``launch(_:store:userInterface:)``): for
    /// this process, or for the agent's pool.
    public func launch(_ manifest: PluginManifest, userInterface: any ProviderUserInterface = UnavailableUserInterface())
        throws(AutofillError) -> any ProviderConnection
    {
        guard let store = try store(for: manifest.identifier) else {
            throw AutofillError(.configuration, "\(manifest.identifier) is not enabled")
        }
        return try launch(manifest, store: store, userInterface: userInterface)
    }

    /// Starts provider `manifest` for use with its own store, settings and the host's UI, and returns
    /// the transport-neutral connection every request goes through.
    ///
    /// This is the one place that decides *how* a provider runs; everything above it (the router,
    /// `providers enable`, `providers sync`) only sees ``ProviderConnection``. The configuration's
    /// `ProviderIsolation` chooses: a helper process of its own (the default, ``HelperConnection``)
    /// or this process (``InProcessConnection``). Faults of helpers go to ``onProviderFault``.
    /// Either way the provider is admitted (``admit(_:)``: trust and quarantine) before anything of
    /// it is read or run.
    public func launch(_ manifest: PluginManifest, store: SQLiteIdentityStore,
                       userInterface: any ProviderUserInterface = UnavailableUserInterface())
        throws(AutofillError) -> any ProviderConnection
    {
        let services = services(for: manifest, store: store, userInterface: userInterface)
        let configuration = catalog.file.configuration
        switch configuration.isolation(for: manifest.identifier) {
        case .inProcess:
            let admitted = try admit(manifest)
            startDeclaredAgents(manifest)
            return try PluginLoader.load(bundle: manifest.bundlePath, services: services, pins: admitted.files)
        case .helperProcess, .unsandboxed:
            let options = try helperOptions(for: manifest)
            // Admission (hashing the plugin's files) runs while the helper process starts its runtime;
            // the helper reads and runs nothing of the plugin until admission has passed.
            return try HelperConnection.launch(
                manifest: manifest, services: services, options: options,
                onFault: onProviderFault ?? recordingFaults(), beforeLoading: { () throws(AutofillError) in
                    let admitted = try admit(manifest)
                    startDeclaredAgents(manifest)
                    return admitted.files
                })
        }
    }

    /// Starts what `manifest` declared it needs running outside its sandbox, once it is admitted: the
    /// user's gpg-agent for its GnuPG home (`GPGAgent`, ``GPGAgentLauncher``). A failure is logged; the
    /// provider then says what it misses.
    func startDeclaredAgents(_ manifest: PluginManifest) {
        guard let home = gpgAgentHome(of: manifest) else { return }
        let context = SandboxContext(setup: self)
        if let problem = GPGAgentLauncher.launch(home: home, environment: context.environment) {
            logger.warning("\(manifest.displayName) (\(manifest.identifier)) needs gpg-agent for \(home), which autofill could not start: \(problem)")
        }
    }

    /// The GnuPG home `manifest`'s `GPGAgent` names, as its setting or default names it now: an existing
    /// folder, or nil.
    func gpgAgentHome(of manifest: PluginManifest) -> String? {
        guard let setting = manifest.sandbox.gpgAgentHomeSetting,
              let file = manifest.sandbox.files.first(where: { $0.setting == setting }) else { return nil }
        let context = SandboxContext(setup: self)
        let settings = sandboxedSettings(for: manifest)
        guard let home = settings[setting].flatMap({ $0.isEmpty ? nil : $0 }) ?? (try? context.resolveDefault(of: file, in: manifest, settings: settings)).flatMap({ $0 }),
              home.hasPrefix("/"), SandboxContext.isDirectory(home) else { return nil }
        return home
    }

    /// The helper options of `manifest`: the configuration's limits and, unless the configuration
    /// names it `unsandboxed`, its sandbox (``sandboxPolicy(for:)``). A kernel without Landlock runs no
    /// provider unsandboxed by default: it is refused, naming the setting that opts it out; an
    /// `unsandboxed` provider gets a warning on every run.
    func helperOptions(for manifest: PluginManifest) throws(AutofillError) -> HelperOptions {
        let configuration = catalog.file.configuration
        var options = configuration.helperOptions
        let named = "\(manifest.displayName) (\(manifest.identifier))"
        if configuration.isolation(for: manifest.identifier) == .unsandboxed {
            logger.warning("\(named) runs without its sandbox (ProviderIsolation: unsandboxed): it can reach everything you can. Remove that setting once the kernel has Landlock (docs/SANDBOX.md)")
            return options
        }
        guard SandboxSupport.kernelLandlockABI > 0 else {
            throw AutofillError(
                .refused,
                "this kernel has no Landlock, so autofill cannot sandbox \(named), and it never runs a provider unsandboxed on its own; enable Landlock (a kernel built with CONFIG_SECURITY_LANDLOCK and lsm=landlock,…), or, if you trust this provider with everything you can reach, set ProviderIsolation.Providers.\(manifest.identifier) to unsandboxed in the configuration (docs/SANDBOX.md)")
        }
        options.sandbox = try sandboxPolicy(for: manifest)
        options.singleFiles = SandboxContext(setup: self).singleFiles(manifest)
        try Self.confine(&options, for: manifest)
        return options
    }

    /// Puts the sandbox in `options` (``HelperOptions/sandbox``) into namespaces of its own, made by
    /// bubblewrap, with the session bus through a filter of the names `manifest` declares
    /// (``SessionBusFilter``). Where this system allows no user namespaces, a provider that declares
    /// only files keeps Landlock and seccomp alone; one that talks to the session bus or runs programs
    /// is refused (without namespaces it would reach every socket of the user), naming the setting
    /// that opts it out.
    public static func confine(_ options: inout HelperOptions, for manifest: PluginManifest) throws(AutofillError) {
        guard var policy = options.sandbox else { return }
        let declaration = manifest.sandbox
        guard BubblewrapSupport.available else {
            options.namespaces = false
            options.sessionBus = nil
            guard !declaration.sessionBus && declaration.executables.isEmpty else {
                let needs = declaration.sessionBus ? "talks to the session bus" : "runs programs"
                throw AutofillError(
                    .refused,
                    "\(manifest.displayName) (\(manifest.identifier)) \(needs), which autofill allows only in namespaces of its own, and this system lets autofill make none (bubblewrap is missing, or user namespaces are closed to users: kernel.unprivileged_userns_clone, user.max_user_namespaces, AppArmor's restrict_unprivileged_userns); install bubblewrap and open user namespaces, or, if you trust this provider with every socket and program you can reach, set ProviderIsolation.Providers.\(manifest.identifier) to unsandboxed in the configuration (docs/SANDBOX.md)")
            }
            return
        }
        options.namespaces = true
        options.sessionBus = nil
        // The bus is the proxy's path socket: Unix sockets stay allowed, abstract ones outside the
        // sandbox do not (with a network namespace shared for its ports, they would be the host's).
        policy.sessionBus = false
        if declaration.sessionBus {
            if let upstream = DBusProxy.upstream(environment: ClientContext.current.environment) {
                options.sessionBus = SessionBusFilter(upstream: upstream, names: declaration.sessionBusNames,
                                                      visibleNames: declaration.sessionBusVisibleNames)
                policy.environment["DBUS_SESSION_BUS_ADDRESS"] = BubblewrapCommand.busAddress
            } else {
                policy.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
            }
        }
        options.sandbox = policy
    }

    /// Starts one helper process ahead of need (``HelperPrestart``) when any enabled provider runs in a
    /// helper: for commands that will most likely launch one, right after reading the configuration.
    /// In namespaces a helper is made for its provider, so one is started ahead of need in namespaces
    /// only when a single enabled provider runs in a helper (the one a launch can be for), and without
    /// them when an enabled provider would run so (`unsandboxed`, or no user namespaces here).
    public func prestartHelper() {
        let configuration = catalog.file.configuration
        let helpers = catalog.enabledIDs.filter { configuration.isolation(for: $0) != .inProcess }
        guard !helpers.isEmpty else { return }
        // In the agent, providers it runs already launch nothing: a helper started ahead would wait unused.
        if let pool = ClientContext.current.pool, pool.holds(helpers) { return }
        if BubblewrapSupport.available {
            if helpers.count == 1, configuration.isolation(for: helpers[0]) == .helperProcess,
                let manifest = try? catalog.manifest(for: helpers[0]), let options = try? helperOptions(for: manifest),
                options.namespaces, let policy = options.sandbox
            {
                let named = "\(manifest.displayName) (\(manifest.identifier))"
                HelperPrestart.start(options: options, namespaces: HelperNamespaces(policy: policy, sessionBus: options.sessionBus, named: named))
            }
            guard helpers.contains(where: { configuration.isolation(for: $0) == .unsandboxed }) else { return }
        }
        HelperPrestart.start(options: configuration.helperOptions)
    }

    /// The default fault handler: each crash, deadline kill or memory-ceiling death of a helper goes
    /// to the fault ledger (which quarantines after repeated faults) and to the log. A plugin that
    /// exits on its own or breaks the protocol counts as a crash.
    func recordingFaults() -> @Sendable (PluginManifest, ProviderFault) -> Void {
        let setup = self
        let log = HelperConnection.logFault(to: logger)
        return { manifest, fault in
            log(manifest, fault)
            let kind: ProviderFaultKind = switch fault.kind {
            case .killedAtDeadline: .killedAfterDeadline
            case .exceededMemory: .exceededResourceLimit
            case .crashed, .exited, .protocolViolation: .crashed
            }
            if let quarantine = setup.recordFault(manifest, kind: kind, message: fault.message) {
                setup.notify?("\(manifest.displayName) (\(manifest.identifier)) is quarantined: \(quarantine.reason)")
            }
        }
    }
}
