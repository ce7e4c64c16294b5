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
    public func launch(_ manifest: PluginManifest, store: SQLiteIdentityStore,
                       userInterface: any ProviderUserInterface = UnavailableUserInterface())
        throws(AutofillError) -> any ProviderConnection
    {
        let services = services(for: manifest, store: store, userInterface: userInterface)
        let configuration = catalog.file.configuration
        switch configuration.isolation(for: manifest.identifier) {
        case .inProcess:
            return try PluginLoader.load(bundle: manifest.bundlePath, services: services)
        case .helperProcess:
            return try HelperConnection.launch(
                manifest: manifest, services: services, options: configuration.helperOptions,
                onFault: onProviderFault ?? HelperConnection.logFault(to: logger))
        }
    }
}
