import AutofillProviderKit
import Foundation

/// Right after the user enables the provider, and `autofill unlock org.autofill.keepassxc`: unlock and
/// publish, or fail saying which setting to fix.
extension KeePassProvider: ExtensionConfigurationProviding {
    func prepareInterfaceForExtensionConfiguration(context: ExtensionContext) {
        // Nothing to unlock is a failure, said once: neither `unlock` nor `enable` may claim success.
        guard let databasePath, FileManager.default.fileExists(atPath: databasePath) else {
            let problem = databasePath.map { "the database \($0) does not exist" } ?? "no database is set"
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: """
                \(problem): set DatabaseFile (and KeyFile, if the database has one) with \
                `autofill providers set org.autofill.keepassxc DatabaseFile PATH` (docs/CONFIGURATION.md)
                """))
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
