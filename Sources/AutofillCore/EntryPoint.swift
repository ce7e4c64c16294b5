/// One entry point of a provider (a method of `ASCredentialProviderViewController`).
public enum EntryPoint: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case prepareCredentialList
    case prepareCredentialListForPasskey
    case prepareOneTimeCodeList
    case provideCredentialWithoutUserInteraction
    case prepareInterfaceToProvideCredential
    case prepareInterfaceForPasskeyRegistration
    case performPasskeyRegistrationWithoutUserInteraction
    case prepareInterfaceForExtensionConfiguration
    case prepareInterfaceForTextToInsert
    /// Appended to ABI 1 (iOS 26): save a password.
    case prepareInterfaceForSavePassword
    /// Appended to ABI 1 (iOS 26): generate a password.
    case prepareInterfaceForGeneratePassword
    /// Appended to ABI 1 (iOS 26): a credential-update report.
    case reportCredentialUpdate

    /// The field name in the C ABI's `af_provider` table.
    public var cName: String {
        switch self {
        case .prepareCredentialList: "prepare_credential_list"
        case .prepareCredentialListForPasskey: "prepare_credential_list_for_passkey"
        case .prepareOneTimeCodeList: "prepare_one_time_code_list"
        case .provideCredentialWithoutUserInteraction: "provide_credential_without_user_interaction"
        case .prepareInterfaceToProvideCredential: "prepare_interface_to_provide_credential"
        case .prepareInterfaceForPasskeyRegistration: "prepare_interface_for_passkey_registration"
        case .performPasskeyRegistrationWithoutUserInteraction:
            "perform_passkey_registration_without_user_interaction"
        case .prepareInterfaceForExtensionConfiguration: "prepare_interface_for_extension_configuration"
        case .prepareInterfaceForTextToInsert: "prepare_interface_for_text_to_insert"
        case .prepareInterfaceForSavePassword: "prepare_interface_for_save_password"
        case .prepareInterfaceForGeneratePassword: "prepare_interface_for_generate_password"
        case .reportCredentialUpdate: "report_credential_update"
        }
    }

    /// Apple's method name.
    public var appleName: String {
        switch self {
        case .prepareCredentialList: "prepareCredentialList(for:)"
        case .prepareCredentialListForPasskey: "prepareCredentialList(for:requestParameters:)"
        case .prepareOneTimeCodeList: "prepareOneTimeCodeCredentialList(for:)"
        case .provideCredentialWithoutUserInteraction: "provideCredentialWithoutUserInteraction(for:)"
        case .prepareInterfaceToProvideCredential: "prepareInterfaceToProvideCredential(for:)"
        case .prepareInterfaceForPasskeyRegistration: "prepareInterface(forPasskeyRegistration:)"
        case .performPasskeyRegistrationWithoutUserInteraction:
            "performWithoutUserInteractionIfPossible(passkeyRegistration:)"
        case .prepareInterfaceForExtensionConfiguration: "prepareInterfaceForExtensionConfiguration()"
        case .prepareInterfaceForTextToInsert: "prepareInterfaceForUserChoosingTextToInsert()"
        case .prepareInterfaceForSavePassword: "prepareInterface(for: ASSavePasswordRequest)"
        case .prepareInterfaceForGeneratePassword: "prepareInterface(for: ASGeneratePasswordsRequest)"
        case .reportCredentialUpdate: "report…(forRelyingParty:…) / reportUnusedPasswordCredential(forDomain:userName:)"
        }
    }

    /// Whether the provider may show UI while answering this entry point.
    public var allowsUserInterface: Bool {
        switch self {
        case .provideCredentialWithoutUserInteraction, .performPasskeyRegistrationWithoutUserInteraction: false
        default: true
        }
    }

    public var description: String { cName }
}

/// A set of entry points, as a provider's table offers them.
public struct EntryPoints: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The set holding one entry point.
    public init(_ entryPoint: EntryPoint) {
        self.rawValue = 1 << UInt32(entryPoint.rawValue)
    }

    /// Every entry point.
    public static let all = EntryPoints(EntryPoint.allCases)

    /// Whether the set holds `entryPoint`.
    public func contains(_ entryPoint: EntryPoint) -> Bool {
        contains(EntryPoints(entryPoint))
    }

    /// The members in declaration order.
    public var members: [EntryPoint] { EntryPoint.allCases.filter { contains($0) } }
}

extension EntryPoints {
    /// The set holding these entry points.
    public init(_ entryPoints: some Sequence<EntryPoint>) {
        self = entryPoints.reduce(into: EntryPoints()) { $0.insert(EntryPoints($1)) }
    }
}
