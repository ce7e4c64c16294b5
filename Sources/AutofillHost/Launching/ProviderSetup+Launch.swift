public import AutofillCore
public import AutofillStore

extension ProviderSetup {
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
            try admit(manifest)
            startDeclaredAgents(manifest)
            return try PluginLoader.load(bundle: manifest.bundlePath, services: services)
        case .helperProcess, .unsandboxed:
            let options = try helperOptions(for: manifest)
            // Admission (hashing the plugin's files) runs while the helper process starts its runtime;
            // the helper reads and runs nothing of the plugin until admission has passed.
            return try HelperConnection.launch(
                manifest: manifest, services: services, options: options,
                onFault: onProviderFault ?? recordingFaults(), beforeLoading: { () throws(AutofillError) in
                    try admit(manifest)
                    startDeclaredAgents(manifest)
                })
        }
    }

    /// Starts what `manifest` declared it needs running outside its sandbox, once it is admitted: the
    /// user's gpg-agent for its GnuPG home (`GPGAgent`, ``GPGAgentLauncher``). A failure is logged; the
    /// provider then says what it misses.
    func startDeclaredAgents(_ manifest: PluginManifest) {
        guard let setting = manifest.sandbox.gpgAgentHomeSetting,
              let file = manifest.sandbox.files.first(where: { $0.setting == setting }) else { return }
        let context = SandboxContext(setup: self)
        let settings = sandboxedSettings(for: manifest)
        guard let home = settings[setting].flatMap({ $0.isEmpty ? nil : $0 }) ?? context.resolveDefault(of: file, in: manifest, settings: settings),
              home.hasPrefix("/"), SandboxContext.isDirectory(home) else { return }
        if let problem = GPGAgentLauncher.launch(home: home, environment: context.environment) {
            logger.warning("\(manifest.displayName) (\(manifest.identifier)) needs gpg-agent for \(home), which autofill could not start: \(problem)")
        }
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
        return options
    }

    /// Starts one helper process ahead of need (``HelperPrestart``) when any enabled provider runs in a
    /// helper: for commands that will most likely launch one, right after reading the configuration.
    public func prestartHelper() {
        let configuration = catalog.file.configuration
        guard catalog.enabledIDs.contains(where: { configuration.isolation(for: $0) != .inProcess }) else { return }
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
