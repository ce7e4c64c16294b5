public import AutofillCore
import CAutofillProvider

/// The C ABI version this build speaks (`AF_ABI_VERSION`).
public let providerABIVersion: UInt32 = AF_ABI_VERSION

extension ServiceIdentifier.IdentifierType {
    /// The `AF_SERVICE_*` value.
    public var cValue: Int32 { self == .url ? Int32(AF_SERVICE_URL) : Int32(AF_SERVICE_DOMAIN) }

    /// The type for an `AF_SERVICE_*` value, or nil.
    public init?(cValue: Int32) {
        switch cValue {
        case Int32(AF_SERVICE_DOMAIN): self = .domain
        case Int32(AF_SERVICE_URL): self = .url
        default: return nil
        }
    }
}

extension UserVerificationPreference {
    /// The `AF_USER_VERIFICATION_*` value.
    public var cValue: Int32 {
        switch self {
        case .required: Int32(AF_USER_VERIFICATION_REQUIRED)
        case .preferred: Int32(AF_USER_VERIFICATION_PREFERRED)
        case .discouraged: Int32(AF_USER_VERIFICATION_DISCOURAGED)
        }
    }

    /// The preference for an `AF_USER_VERIFICATION_*` value, or nil.
    public init?(cValue: Int32) {
        switch cValue {
        case Int32(AF_USER_VERIFICATION_REQUIRED): self = .required
        case Int32(AF_USER_VERIFICATION_PREFERRED): self = .preferred
        case Int32(AF_USER_VERIFICATION_DISCOURAGED): self = .discouraged
        default: return nil
        }
    }
}

/// A host-service status (`af_status`) as a Swift value.
public struct ABIStatus: Hashable, Sendable, CustomStringConvertible {
    /// The raw `af_status`.
    public var rawValue: Int32

    /// Wraps a raw status.
    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    public static let ok = ABIStatus(AF_OK)
    public static let unknownRequest = ABIStatus(AF_STATUS_UNKNOWN_REQUEST)
    public static let invalidArgument = ABIStatus(AF_STATUS_INVALID_ARGUMENT)
    public static let wrongCompletion = ABIStatus(AF_STATUS_WRONG_COMPLETION)
    public static let uiUnavailable = ABIStatus(AF_STATUS_UI_UNAVAILABLE)
    public static let uiCanceled = ABIStatus(AF_STATUS_UI_CANCELED)
    public static let notFound = ABIStatus(AF_STATUS_NOT_FOUND)
    public static let bufferTooSmall = ABIStatus(AF_STATUS_BUFFER_TOO_SMALL)
    public static let refused = ABIStatus(AF_STATUS_REFUSED)
    public static let ioError = ABIStatus(AF_STATUS_IO_ERROR)
    public static let changedOnDisk = ABIStatus(AF_STATUS_CHANGED_ON_DISK)

    /// The status for an identity-store error code.
    public init(_ code: IdentityStoreError.Code) {
        switch code {
        case .internalError: rawValue = AF_STATUS_STORE_INTERNAL
        case .storeDisabled: rawValue = AF_STATUS_STORE_DISABLED
        case .storeBusy: rawValue = AF_STATUS_STORE_BUSY
        }
    }

    /// The identity-store error code this status carries, if it is one.
    public var storeErrorCode: IdentityStoreError.Code? {
        switch rawValue {
        case AF_STATUS_STORE_INTERNAL: .internalError
        case AF_STATUS_STORE_DISABLED: .storeDisabled
        case AF_STATUS_STORE_BUSY: .storeBusy
        default: nil
        }
    }

    public var description: String { String(cString: af_status_description(rawValue)) }
}
