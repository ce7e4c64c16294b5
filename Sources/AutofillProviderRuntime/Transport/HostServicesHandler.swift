public import AutofillCore
public import AutofillABI

/// A provider's answer to a request, decoded from whatever carried it.
public enum ProviderAnswer: Sendable, Equatable {
    /// A credential.
    case credential(Credential)
    /// An `ASExtensionError`.
    case error(ExtensionError)
    /// A completion that broke the ABI's rules; the message names the field.
    case malformed(String)
}

/// The log levels of the C ABI (`AF_LOG_*`).
public enum ProviderLogLevel: Int32, Sendable, CaseIterable {
    case debug = 0, info, notice, warning, error
}

/// The host side of one provider's host services, in Swift types.
///
/// The libffi-bound C table (``HostServicesTable``) decodes each call and
/// forwards it here; a helper-process transport forwards the same calls over
/// its pipes. Every method may be called from any thread.
public protocol HostServicesHandler: Sendable {
    /// A log line from the provider.
    func log(level: ProviderLogLevel, message: String)
    /// The provider's setting for `key`, if any.
    func setting(forKey key: String) -> String?
    /// The provider's own identity store.
    var identityStore: any CredentialIdentityStore { get }
    /// Completes request `request` exactly once; later calls for the same id return `.unknownRequest`.
    func complete(request: UInt64, with answer: ProviderAnswer) -> ABIStatus
    /// Shows UI for pending UI request `request`.
    func present(_ ui: UserInterfaceRequest, forRequest request: UInt64) throws(UserInterfaceError)
        -> UserInterfaceAnswer
    /// Notes that the provider sent a call the host could not decode (bad UTF-8 in a log line, ...).
    func reportMalformedCall(_ service: String, _ problem: String)
    /// The entry point called for request `request` returned (the UI watchdog starts from here).
    func entryPointReturned(_ request: UInt64)
    /// A line a helper's plugin printed to its stdout or stderr, already made safe to show
    /// (``HelperOutputLog``), to show at `level` as the provider's log lines are.
    func printed(_ line: String, level: ProviderLogLevel)
    /// `add_file`: adds or replaces file `name` in the add-files folder `folder` during pending save or
    /// credential-update request `request` (``FileGrantWriter``); the status and, when refused or
    /// failed, the reason (never the contents).
    func addFile(request: UInt64, folder: String, name: String, contents: [UInt8]) -> (status: ABIStatus, reason: String)
    /// `replace_file`: replaces the replace-file file `path` with `contents` during pending save or
    /// credential-update request `request`, only while its SHA-256 is `expectedSHA256`
    /// (``FileGrantWriter``); the status and, when refused or failed, the reason (never the contents).
    /// `contents` is valid during the call only.
    func replaceFile(request: UInt64, path: String, contents: UnsafeRawBufferPointer, expectedSHA256: [UInt8]) -> (status: ABIStatus, reason: String)
    /// `open_file`: the declared single file `path` opened read-only as it is now (``FileGrantWriter``):
    /// the status, the reason when refused or failed, and the descriptor (the caller owns it; -1 unless ok).
    func openFile(path: String) -> (status: ABIStatus, reason: String, descriptor: Int32)
}

extension HostServicesHandler {
    /// Nothing to do by default: only the host's ``ProviderSession`` watches UI requests.
    public func entryPointReturned(_ request: UInt64) {}
    /// Nothing to do by default: only the host's ``ProviderSession`` shows a helper's output.
    public func printed(_ line: String, level: ProviderLogLevel) {}
    /// Refused by default: only the host's ``ProviderSession`` opens files.
    public func openFile(path: String) -> (status: ABIStatus, reason: String, descriptor: Int32) {
        (.refused, "this host opens no files for providers", -1)
    }
}
