public import AutofillCore

/// How a request ended, as the host sees it.
public enum ProviderOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The provider completed the request with a credential.
    case completed(Credential)
    /// The provider cancelled the request with an `ASExtensionError`.
    case canceled(ExtensionError)
    /// The host could not get an answer: timeout, a malformed or wrong completion, a missing entry point,
    /// or a broken transport.
    case failed(ProviderFailure)

    public var description: String {
        switch self {
        case .completed(let credential): "completed with \(credential)"
        case .canceled(let error): "canceled: \(error)"
        case .failed(let failure): "failed: \(failure.message)"
        }
    }
}

/// Why the host got no usable answer from a provider.
public struct ProviderFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Reason: String, Sendable, Equatable {
        /// No answer before the deadline (the no-UI deadline is 3 s by default), or, for a UI request,
        /// none within the UI idle time after its entry point returned (`UIIdleTimeoutSeconds`).
        case timedOut
        /// The completion broke the ABI's rules (not UTF-8, NULL with a length, over a limit).
        case malformedCompletion
        /// The completion does not fit the request (a text for a password request).
        case wrongCompletion
        /// The provider has no entry point for this request.
        case notImplemented
        /// The provider could not be reached (crashed helper, broken pipe).
        case transport
        /// The provider was busy with another client's request that may ask the user (a prompt), for
        /// as long as this request could wait; it was not sent, and nothing counts against the provider.
        case busy
    }

    /// The failure's kind.
    public var reason: Reason
    /// What happened, naming the provider.
    public var message: String

    /// Creates a failure.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}

extension PluginManifest {
    /// Why `request` may not reach this provider, whose table offers `offered`: an entry point it does
    /// not implement, or one of the requests appended to ABI 1 (save, generate, credential update)
    /// whose capability its plist does not declare, even when its table has the entry point. Nil when
    /// it may.
    public func refusal(of request: ProviderRequest, offered: EntryPoints) -> ProviderFailure? {
        if let capability = request.appendedCapability, !capabilities.contains(capability) {
            return ProviderFailure(.notImplemented, "\(displayName) does not declare \(capability.plistKey); \(request.entryPoint.appleName) refused")
        }
        guard offered.contains(request.entryPoint) else {
            return ProviderFailure(.notImplemented, "\(displayName) does not implement \(request.entryPoint.appleName)")
        }
        return nil
    }
}

extension ProviderRequest {
    /// The capability a request appended to ABI 1 needs declared; nil for the others.
    var appendedCapability: Capability? {
        switch self {
        case .savePassword: .supportsSavePasswordCredentials
        case .generatePassword: .supportsGeneratePasswordCredentials
        case .credentialUpdate: .supportsCredentialUpdate
        default: nil
        }
    }
}

/// The one interface all host↔provider traffic passes through, whatever carries it
/// (the plugin loaded in this process, or a helper process).
///
/// Implementation requirements: `send` returns exactly one outcome per call; a request
/// whose entry point is missing, or that ``PluginManifest/refusal(of:offered:)`` refuses, fails with
/// `notImplemented` without reaching the provider;
/// with a deadline, the outcome is `timedOut` if the provider has not answered by then,
/// and a later answer is dropped and counted in ``strayCompletions``.
public protocol ProviderConnection: AnyObject, Sendable {
    /// The plugin's Info.plist as read before loading.
    var manifest: PluginManifest { get }
    /// The entry points the provider's table offers.
    var entryPoints: EntryPoints { get }
    /// Sends one request and waits for its outcome, giving up after `deadline` if one is given.
    func send(_ request: ProviderRequest, deadline: Duration?) async -> ProviderOutcome
    /// How many completions arrived for requests that were not pending (second, late or forged).
    var strayCompletions: Int { get }
}
