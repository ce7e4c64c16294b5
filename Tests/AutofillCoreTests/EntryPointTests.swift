import AutofillCore
import Testing

/// A provider's entry points: their C ABI field names, Apple's method names, which of them
/// may show UI, and the `EntryPoints` set a provider's table offers.
struct EntryPointTests {
    static let names: [(entryPoint: EntryPoint, cName: String, appleName: String)] = [
        (.prepareCredentialList, "prepare_credential_list", "prepareCredentialList(for:)"),
        (.prepareCredentialListForPasskey, "prepare_credential_list_for_passkey",
         "prepareCredentialList(for:requestParameters:)"),
        (.prepareOneTimeCodeList, "prepare_one_time_code_list", "prepareOneTimeCodeCredentialList(for:)"),
        (.provideCredentialWithoutUserInteraction, "provide_credential_without_user_interaction",
         "provideCredentialWithoutUserInteraction(for:)"),
        (.prepareInterfaceToProvideCredential, "prepare_interface_to_provide_credential",
         "prepareInterfaceToProvideCredential(for:)"),
        (.prepareInterfaceForPasskeyRegistration, "prepare_interface_for_passkey_registration",
         "prepareInterface(forPasskeyRegistration:)"),
        (.performPasskeyRegistrationWithoutUserInteraction, "perform_passkey_registration_without_user_interaction",
         "performWithoutUserInteractionIfPossible(passkeyRegistration:)"),
        (.prepareInterfaceForExtensionConfiguration, "prepare_interface_for_extension_configuration",
         "prepareInterfaceForExtensionConfiguration()"),
        (.prepareInterfaceForTextToInsert, "prepare_interface_for_text_to_insert",
         "prepareInterfaceForUserChoosingTextToInsert()"),
        (.prepareInterfaceForSavePassword, "prepare_interface_for_save_password", "prepareInterface(for: ASSavePasswordRequest)"),
        (.prepareInterfaceForGeneratePassword, "prepare_interface_for_generate_password",
         "prepareInterface(for: ASGeneratePasswordsRequest)"),
        (.reportCredentialUpdate, "report_credential_update",
         "report…(forRelyingParty:…) / reportUnusedPasswordCredential(forDomain:userName:)"),
    ]

    @Test func theTableCoversEveryEntryPointOnce() {
        #expect(Self.names.map(\.entryPoint) == EntryPoint.allCases)
    }

    @Test(arguments: names)
    func eachEntryPointHasItsCNameAndAppleName(_ row: (entryPoint: EntryPoint, cName: String, appleName: String)) {
        #expect(row.entryPoint.cName == row.cName)
        #expect(row.entryPoint.description == row.cName)
        #expect(row.entryPoint.appleName == row.appleName)
    }

    @Test(arguments: EntryPoint.allCases)
    func theCHeaderDeclaresEachCNameAsAProviderField(_ entryPoint: EntryPoint) throws {
        #expect(try ProviderHeader.text().contains("(*\(entryPoint.cName))("))
        #expect(try ProviderHeader.providerEntryPointFields().contains(entryPoint.cName))
    }

    @Test func entryPointsAreDeclaredInTheOrderOfTheCTable() throws {
        #expect(try ProviderHeader.providerEntryPointFields() == EntryPoint.allCases.map(\.cName))
    }

    @Test(arguments: EntryPoint.allCases)
    func onlyTheTwoWithoutUserInteractionEntryPointsForbidUI(_ entryPoint: EntryPoint) {
        let forbidden: Set<EntryPoint> = [
            .provideCredentialWithoutUserInteraction, .performPasskeyRegistrationWithoutUserInteraction,
        ]
        #expect(entryPoint.allowsUserInterface == !forbidden.contains(entryPoint))
        #expect(entryPoint.allowsUserInterface == !entryPoint.cName.hasSuffix("_without_user_interaction"))
    }

    // MARK: The set

    @Test(arguments: EntryPoint.allCases)
    func aSetOfOneEntryPointHoldsOnlyIt(_ entryPoint: EntryPoint) {
        let set = EntryPoints(entryPoint)
        #expect(set.rawValue == 1 << UInt32(entryPoint.rawValue))
        #expect(set.members == [entryPoint])
        #expect(EntryPoint.allCases.filter { set.contains($0) } == [entryPoint])
    }

    @Test func allHoldsEveryEntryPointAndNothingElse() {
        #expect(EntryPoints.all.members == EntryPoint.allCases)
        #expect(EntryPoints.all.rawValue == (1 << UInt32(EntryPoint.allCases.count)) - 1)
        #expect(EntryPoints(EntryPoint.allCases) == .all)
    }

    @Test func anEmptySetHasNoMembers() {
        #expect(EntryPoints().members.isEmpty)
        #expect(EntryPoints([EntryPoint]()) == [])
        #expect(EntryPoint.allCases.allSatisfy { !EntryPoints().contains($0) })
    }

    @Test func membersComeInDeclarationOrderWhateverTheInsertionOrder() {
        let set = EntryPoints([
            .prepareInterfaceForTextToInsert, .prepareCredentialList, .provideCredentialWithoutUserInteraction,
            .prepareCredentialList,
        ])
        #expect(set.members == [.prepareCredentialList, .provideCredentialWithoutUserInteraction,
                                .prepareInterfaceForTextToInsert])
    }

    @Test func setOperationsCombineEntryPoints() {
        let a = EntryPoints([.prepareCredentialList, .prepareOneTimeCodeList, .prepareInterfaceForTextToInsert])
        let b = EntryPoints([.prepareOneTimeCodeList, .prepareInterfaceForExtensionConfiguration])
        #expect(a.union(b).members == [.prepareCredentialList, .prepareOneTimeCodeList,
                                       .prepareInterfaceForExtensionConfiguration, .prepareInterfaceForTextToInsert])
        #expect(a.intersection(b).members == [.prepareOneTimeCodeList])
        #expect(a.subtracting(b).members == [.prepareCredentialList, .prepareInterfaceForTextToInsert])
        #expect(a.symmetricDifference(b).members == [.prepareCredentialList,
                                                     .prepareInterfaceForExtensionConfiguration,
                                                     .prepareInterfaceForTextToInsert])
        #expect(a.isSuperset(of: EntryPoints(.prepareCredentialList)))
        #expect(!a.isSubset(of: b))
        #expect(a.isDisjoint(with: EntryPoints(.prepareCredentialListForPasskey)))
    }

    @Test func insertingAndRemovingChangeMembership() {
        var set = EntryPoints()
        #expect(set.insert(EntryPoints(.prepareCredentialList)).inserted)
        #expect(!set.insert(EntryPoints(.prepareCredentialList)).inserted)
        set.insert(EntryPoints(.prepareInterfaceToProvideCredential))
        #expect(set.members == [.prepareCredentialList, .prepareInterfaceToProvideCredential])
        #expect(set.remove(EntryPoints(.prepareCredentialList)) == EntryPoints(.prepareCredentialList))
        #expect(set.remove(EntryPoints(.prepareCredentialList)) == nil)
        #expect(set.members == [.prepareInterfaceToProvideCredential])
        #expect(set.contains(.prepareInterfaceToProvideCredential))
        #expect(!set.contains(.prepareCredentialList))
    }
}
