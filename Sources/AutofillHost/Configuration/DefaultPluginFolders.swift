/// Where autofill looks for plugin bundles when a configuration lists no `PluginSearchPaths`, the way
/// p11-kit looks for PKCS#11 modules in fixed folders: the user's own, then the administrator's, then
/// the distribution's. A package ships a provider by putting its `.afprovider` bundle in
/// `/usr/lib/autofill/providers`; `Scripts/install` puts the samples in `PREFIX/lib/autofill/providers`.
///
/// Nobody listed these folders, so a folder that users other than the user and root could change is
/// not searched at all (a warning says which and how to fix it): there anyone could add a bundle.
/// The bundles found are checked like any others before they run (``PluginPermissions``).
public enum DefaultPluginFolders {
    /// The folders as a configuration writes them (``ProviderCatalog`` writes them out when a first
    /// folder of the user's own joins them, so they keep being searched).
    public static let configured = ["~/.local/lib/autofill/providers", "/usr/local/lib/autofill/providers", "/usr/lib/autofill/providers"]

    /// The folders for the home folder `home`, in search order.
    public static func folders(home: String) -> [String] {
        configured.map { $0.hasPrefix("~/") ? home + $0.dropFirst() : $0 }
    }

    /// The folders of `candidates` that may be searched, and a warning for each one that is refused
    /// because users other than the user and root could change it. Missing folders are skipped quietly.
    static func usable(_ candidates: [String]) -> (folders: [String], warnings: [String]) {
        var folders: [String] = [], warnings: [String] = []
        for folder in candidates {
            guard SandboxContext.isDirectory(folder) else { continue }
            let problems = PluginPermissions.problems(hostPath: folder, what: "the default plugin folder")
            guard problems.isEmpty else {
                let reasons = problems.map { "\($0.file ?? folder): \($0.message); fix: \($0.fix)" }.joined(separator: "; ")
                warnings.append("not searching the default plugin folder \(folder), since users other than you could add plugins to it: \(reasons)")
                continue
            }
            folders.append(folder)
        }
        return (folders, warnings)
    }
}
