public import AutofillCore
public import AutofillStore

extension ProviderSetup {
    /// Starts provider `manifest` for use with its own store, settings and the host's UI, and returns
    /// the transport-neutral connection every request goes through.
    ///
    /// This is the one place that decides *how* a provider runs; everything above it (the router,
    /// `providers enable`, `providers sync`) only sees ``ProviderConnection``.
    public func launch(_ manifest: PluginManifest, store: SQLiteIdentityStore,
                       userInterface: any ProviderUserInterface = UnavailableUserInterface())
        throws(AutofillError) -> any ProviderConnection
    {
        try admit(manifest)
        return try PluginLoader.load(bundle: manifest.bundlePath, services: services(for: manifest, store: store, userInterface: userInterface))
    }
}
