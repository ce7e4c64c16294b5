import AutofillCore
import Testing

/// The capabilities a provider declares in its Info.plist, Apple's keys for them, and the
/// entry points each one obliges the provider to implement.
struct CapabilitiesTests {
    static let table: [(capability: Capability, plistKey: String, required: [EntryPoint])] = [
        (.providesPasswords, "ProvidesPasswords",
         [.prepareCredentialList, .provideCredentialWithoutUserInteraction, .prepareInterfaceToProvideCredential]),
        (.providesPasskeys, "ProvidesPasskeys",
         [.prepareCredentialListForPasskey, .provideCredentialWithoutUserInteraction,
          .prepareInterfaceToProvideCredential, .prepareInterfaceForPasskeyRegistration]),
        (.providesOneTimeCodes, "ProvidesOneTimeCodes",
         [.prepareOneTimeCodeList, .provideCredentialWithoutUserInteraction, .prepareInterfaceToProvideCredential]),
        (.providesTextToInsert, "ProvidesTextToInsert", [.prepareInterfaceForTextToInsert]),
        (.supportsConditionalPasskeyRegistration, "SupportsConditionalPasskeyRegistration",
         [.performPasskeyRegistrationWithoutUserInteraction]),
        (.showsConfigurationUI, "ShowsConfigurationUI", [.prepareInterfaceForExtensionConfiguration]),
        (.supportsSavePasswordCredentials, "SupportsSavePasswordCredentials", [.prepareInterfaceForSavePassword]),
        (.supportsGeneratePasswordCredentials, "SupportsGeneratePasswordCredentials", [.prepareInterfaceForGeneratePassword]),
        (.supportsCredentialUpdate, "SupportsCredentialUpdate", [.reportCredentialUpdate]),
    ]

    @Test func theTableCoversEveryCapabilityOnce() {
        #expect(Self.table.map(\.capability) == Capability.allCases)
    }

    @Test(arguments: table)
    func eachCapabilityUsesApplesPlistKey(_ row: (capability: Capability, plistKey: String, required: [EntryPoint])) {
        #expect(row.capability.plistKey == row.plistKey)
        #expect(row.capability.description == row.plistKey)
    }

    @Test(arguments: table)
    func eachCapabilityRequiresItsEntryPoints(_ row: (capability: Capability, plistKey: String, required: [EntryPoint])) {
        #expect(row.capability.requiredEntryPoints == row.required)
    }

    @Test func requiredEntryPointsMatchTheTableInTheCHeader() throws {
        let header = try ProviderHeader.capabilityTable()
        #expect(Set(header.keys) == Set(Capability.allCases.map(\.plistKey)))
        for capability in Capability.allCases {
            #expect(header[capability.plistKey] == capability.requiredEntryPoints.map(\.cName), "\(capability)")
        }
    }

    // MARK: The set

    @Test func anEmptySetHasNoMembersAndSaysSo() {
        let none = Capabilities()
        #expect(none.members.isEmpty)
        #expect(none.description == "(none)")
        #expect(Capabilities([Capability]()) == none)
    }

    @Test(arguments: Capability.allCases)
    func aSetOfOneCapabilityHoldsOnlyIt(_ capability: Capability) {
        let set = Capabilities(capability)
        #expect(set.rawValue == 1 << UInt32(capability.rawValue))
        #expect(set.members == [capability])
        #expect(Capability.allCases.filter { set.contains($0) } == [capability])
        #expect(set.description == capability.plistKey)
    }

    @Test func membersComeInDeclarationOrderWhateverTheInsertionOrder() {
        let set = Capabilities([.showsConfigurationUI, .providesPasswords, .providesTextToInsert, .providesPasswords])
        #expect(set.members == [.providesPasswords, .providesTextToInsert, .showsConfigurationUI])
        #expect(set.description == "ProvidesPasswords, ProvidesTextToInsert, ShowsConfigurationUI")
    }

    @Test func setOperationsWorkOnCapabilities() {
        var set = Capabilities([.providesPasswords, .providesPasskeys])
        set.insert(Capabilities(.providesOneTimeCodes))
        set.remove(Capabilities(.providesPasskeys))
        #expect(set.members == [.providesPasswords, .providesOneTimeCodes])
        #expect(set.union(Capabilities(.showsConfigurationUI)).members
            == [.providesPasswords, .providesOneTimeCodes, .showsConfigurationUI])
        #expect(set.intersection(Capabilities([.providesOneTimeCodes, .providesTextToInsert])).members
            == [.providesOneTimeCodes])
        #expect(Capabilities(Capability.allCases).members == Capability.allCases)
    }

    // MARK: Missing entry points

    @Test func nothingIsMissingWhenEveryEntryPointIsOffered() {
        #expect(Capabilities(Capability.allCases).missingEntryPoints(offered: .all).isEmpty)
    }

    @Test func nothingIsMissingWhenNoCapabilityIsDeclared() {
        #expect(Capabilities().missingEntryPoints(offered: []).isEmpty)
    }

    @Test(arguments: Capability.allCases)
    func offeringExactlyTheRequiredEntryPointsIsEnough(_ capability: Capability) {
        let offered = EntryPoints(capability.requiredEntryPoints)
        #expect(Capabilities(capability).missingEntryPoints(offered: offered).isEmpty)
    }

    @Test(arguments: Capability.allCases)
    func offeringNothingListsEveryRequiredEntryPointOfTheCapability(_ capability: Capability) {
        let missing = Capabilities(capability).missingEntryPoints(offered: [])
        #expect(missing.map(\.entryPoint) == capability.requiredEntryPoints.sorted { $0.rawValue < $1.rawValue })
        #expect(missing.allSatisfy { $0.neededBy == [capability] })
    }

    @Test func passkeysWithOnlyPasswordEntryPointsMissTheTwoPasskeyEntryPoints() {
        let declared = Capabilities([.providesPasswords, .providesPasskeys])
        let offered = EntryPoints(Capability.providesPasswords.requiredEntryPoints)
        let missing = declared.missingEntryPoints(offered: offered)
        #expect(missing.map(\.entryPoint) == [.prepareCredentialListForPasskey, .prepareInterfaceForPasskeyRegistration])
        #expect(missing.map(\.neededBy) == [[.providesPasskeys], [.providesPasskeys]])
    }

    @Test func anEntryPointSharedByCapabilitiesNamesEveryCapabilityThatNeedsIt() {
        let declared = Capabilities([.providesOneTimeCodes, .providesPasswords, .providesPasskeys, .providesTextToInsert])
        var offered = EntryPoints.all
        offered.remove(EntryPoints(.provideCredentialWithoutUserInteraction))
        let missing = declared.missingEntryPoints(offered: offered)
        #expect(missing.map(\.entryPoint) == [.provideCredentialWithoutUserInteraction])
        #expect(missing.first?.neededBy == [.providesPasswords, .providesPasskeys, .providesOneTimeCodes])
    }

    @Test func everythingDeclaredAndNothingOfferedListsEveryEntryPointInEntryPointOrder() {
        let missing = Capabilities(Capability.allCases).missingEntryPoints(offered: [])
        #expect(missing.map(\.entryPoint) == EntryPoint.allCases)
        #expect(missing.map(\.neededBy) == [
            [.providesPasswords],
            [.providesPasskeys],
            [.providesOneTimeCodes],
            [.providesPasswords, .providesPasskeys, .providesOneTimeCodes],
            [.providesPasswords, .providesPasskeys, .providesOneTimeCodes],
            [.providesPasskeys],
            [.supportsConditionalPasskeyRegistration],
            [.showsConfigurationUI],
            [.providesTextToInsert],
            [.supportsSavePasswordCredentials],
            [.supportsGeneratePasswordCredentials],
            [.supportsCredentialUpdate],
        ])
    }

    @Test func entryPointsNoDeclaredCapabilityNeedsAreNeverMissing() {
        // Only text to insert declared: the credential entry points may be absent.
        let missing = Capabilities(.providesTextToInsert).missingEntryPoints(offered: EntryPoints(.prepareInterfaceForTextToInsert))
        #expect(missing.isEmpty)
    }
}
