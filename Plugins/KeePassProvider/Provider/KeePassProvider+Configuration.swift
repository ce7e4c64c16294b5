import AutofillProviderKit
import Foundation

/// Right after the user enables the provider, and `autofill unlock org.autofill.keepassxc`: explain
/// the settings, or unlock and publish.
extension KeePassProvider: ExtensionConfigurationProviding {
    func prepareInterfaceForExtensionConfiguration(context: ExtensionContext) {
        guard let databasePath, FileManager.default.fileExists(atPath: databasePath) else {
            let problem = databasePath.map { "The database \($0) does not exist." } ?? "No database is set."
            try? context.showMessage(title: Self.name, message: """
                \(problem) Set DatabaseFile (and KeyFile, if the database has one) in the ProviderSettings of \
                org.autofill.keepassxc in the autofill configuration (docs/CONFIGURATION.md).
                """)
            context.completeExtensionConfigurationRequest()
            return
        }
        do throws(Access) {
            // An unlock publishes; a database already unlocked is published again (it may have changed).
            let (index, typed) = try unlock(context: context)
            if !typed { publish(index) }
            context.completeExtensionConfigurationRequest()
        } catch {
            context.cancelRequest(because: error)
        }
    }
}
