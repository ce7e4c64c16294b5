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
            return try PluginLoader.load(bundle: manifest.bundlePath, services: services)
        case .helperProcess, .unsandboxed:
            // Admission (hashing the plugin's files) runs while the helper process starts its runtime;
            // the helper reads and runs nothing of the plugin until admission has passed.
            return try HelperConnection.launch(
                manifest: manifest, services: services, options: configuration.helperOptions,
                onFault: onProviderFault ?? recordingFaults(), beforeLoading: { () throws(AutofillError) in try admit(manifest) })
        }
    }

    /// Starts one helper process ahead of need (``HelperPrestart``) when any enabled provider runs in a
    /// helper: for commands that will most likely launch one, right after reading the configuration.
    public func prestartHelper() {
        let configuration = catalog.file.configuration
        guard catalog.enabledIDs.contains(where: { configuration.isolation(for: $0) == .helperProcess }) else { return }
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
