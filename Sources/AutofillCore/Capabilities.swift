/// One capability a provider declares in its Info.plist
/// (`ASCredentialProviderExtensionCapabilities` and `ShowsConfigurationUI`).
public enum Capability: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case providesPasswords
    case providesPasskeys
    case providesOneTimeCodes
    case providesTextToInsert
    case supportsConditionalPasskeyRegistration
    case showsConfigurationUI
    /// iOS 26: saving a password the user typed (`autofill save`).
    case supportsSavePasswordCredentials
    /// iOS 26: generating a password that honours a site's password rules (`autofill generate`).
    case supportsGeneratePasswordCredentials
    /// iOS 26: credential-update reports: an unused password, and WebAuthn's signals.
    case supportsCredentialUpdate

    /// The key in `ASCredentialProviderExtensionCapabilities`.
    public var plistKey: String {
        switch self {
        case .providesPasswords: "ProvidesPasswords"
        case .providesPasskeys: "ProvidesPasskeys"
        case .providesOneTimeCodes: "ProvidesOneTimeCodes"
        case .providesTextToInsert: "ProvidesTextToInsert"
        case .supportsConditionalPasskeyRegistration: "SupportsConditionalPasskeyRegistration"
        case .showsConfigurationUI: "ShowsConfigurationUI"
        case .supportsSavePasswordCredentials: "SupportsSavePasswordCredentials"
        case .supportsGeneratePasswordCredentials: "SupportsGeneratePasswordCredentials"
        case .supportsCredentialUpdate: "SupportsCredentialUpdate"
        }
    }

    /// The entry points a provider must implement to honour this capability.
    public var requiredEntryPoints: [EntryPoint] {
        switch self {
        case .providesPasswords:
            [.prepareCredentialList, .provideCredentialWithoutUserInteraction, .prepareInterfaceToProvideCredential]
        case .providesPasskeys:
            [
                .prepareCredentialListForPasskey, .provideCredentialWithoutUserInteraction,
                .prepareInterfaceToProvideCredential, .prepareInterfaceForPasskeyRegistration,
            ]
        case .providesOneTimeCodes:
            [.prepareOneTimeCodeList, .provideCredentialWithoutUserInteraction, .prepareInterfaceToProvideCredential]
        case .providesTextToInsert: [.prepareInterfaceForTextToInsert]
        case .supportsConditionalPasskeyRegistration: [.performPasskeyRegistrationWithoutUserInteraction]
        case .showsConfigurationUI: [.prepareInterfaceForExtensionConfiguration]
        case .supportsSavePasswordCredentials: [.prepareInterfaceForSavePassword]
        case .supportsGeneratePasswordCredentials: [.prepareInterfaceForGeneratePassword]
        case .supportsCredentialUpdate: [.reportCredentialUpdate]
        }
    }

    public var description: String { plistKey }
}

/// The capabilities a provider declared.
public struct Capabilities: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The set holding one capability.
    public init(_ capability: Capability) {
        self.rawValue = 1 << UInt32(capability.rawValue)
    }

    /// The set holding these capabilities.
    public init(_ capabilities: some Sequence<Capability>) {
        self = capabilities.reduce(into: Capabilities()) { $0.insert(Capabilities($1)) }
    }

    /// Whether the set holds `capability`.
    public func contains(_ capability: Capability) -> Bool {
        contains(Capabilities(capability))
    }

    /// The members in declaration order.
    public var members: [Capability] { Capability.allCases.filter { contains($0) } }

    /// Entry points required by the declared capabilities but missing from `offered`,
    /// each with the capabilities that need it, in entry-point order.
    public func missingEntryPoints(offered: EntryPoints) -> [(entryPoint: EntryPoint, neededBy: [Capability])] {
        EntryPoint.allCases.compactMap { entryPoint in
            guard !offered.contains(entryPoint) else { return nil }
            let neededBy = members.filter { $0.requiredEntryPoints.contains(entryPoint) }
            return neededBy.isEmpty ? nil : (entryPoint, neededBy)
        }
    }

    public var description: String {
        members.isEmpty ? "(none)" : members.map(\.plistKey).joined(separator: ", ")
    }
}
