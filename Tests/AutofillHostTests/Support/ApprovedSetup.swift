import AutofillHost
import Logging

extension ProviderSetup {
    /// A setup over `file` for tests that run providers listed in it by hand: the user's records in a
    /// folder of the test's own (`records`), and every enabled provider's files approved as they are now,
    /// as `autofill providers trust ID` does (a provider nobody approved is refused).
    static func approving(_ file: ConfigurationFile, records: String, logger: Logger) throws -> ProviderSetup {
        let setup = ProviderSetup(catalog: ProviderCatalog(file: file), stores: try file.identityStores(environment: [:]),
                                  records: HostRecords(path: records), logger: logger)
        for id in setup.catalog.enabledIDs { _ = try setup.trust(id) }
        return setup
    }
}
