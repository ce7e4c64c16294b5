/// An error a provider answers a request with (Apple's `ASExtensionError`).
public struct ExtensionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Apple's `ASExtensionError.Code` values.
    public enum Code: Int32, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        case failed = 0
        case userCanceled = 1
        case userInteractionRequired = 100
        case credentialIdentityNotFound = 101
        case matchedExcludedCredential = 102

        public var description: String {
            switch self {
            case .failed: "failed"
            case .userCanceled: "userCanceled"
            case .userInteractionRequired: "userInteractionRequired"
            case .credentialIdentityNotFound: "credentialIdentityNotFound"
            case .matchedExcludedCredential: "matchedExcludedCredential"
            }
        }
    }

    /// The error code.
    public var code: Code
    /// A user-facing reason the provider gave, if any.
    public var failureReason: String?

    /// Creates an extension error.
    public init(_ code: Code, failureReason: String? = nil) {
        self.code = code
        self.failureReason = failureReason
    }

    public var description: String {
        if let failureReason, !failureReason.isEmpty {
            return "\(code) (\(code.rawValue)): \(failureReason)"
        }
        return "\(code) (\(code.rawValue))"
    }
}
