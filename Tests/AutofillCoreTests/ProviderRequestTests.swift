import AutofillCore
import Testing

/// Which entry point each request calls, and which completions may answer it.
struct ProviderRequestTests {
    static let services = [
        ServiceIdentifier(identifier: "m.example.com", type: .domain),
        ServiceIdentifier(identifier: "example.com", type: .domain),
    ]
    static let parameters = PasskeyParameters(relyingParty: "example.com", clientDataHash: Array(repeating: 7, count: 32))
    static let password = PasswordCredentialIdentity(serviceIdentifier: services[1], user: "alice")
    static let passkey = PasskeyCredentialIdentity(
        relyingPartyIdentifier: "example.com", userName: "alice", credentialID: [1, 2, 3], userHandle: [9])
    static let oneTimeCode = OneTimeCodeCredentialIdentity(serviceIdentifier: services[1], label: "alice")
    static let registration = PasskeyRegistrationRequest(
        identity: PasskeyCredentialIdentity(
            relyingPartyIdentifier: "example.com", userName: "alice", credentialID: [], userHandle: [9]),
        parameters: PasskeyParameters(
            relyingParty: "example.com", clientDataHash: Array(repeating: 7, count: 32), algorithms: [-7]))
    static let conditionalRegistration = PasskeyRegistrationRequest(
        identity: registration.identity,
        parameters: PasskeyParameters(
            relyingParty: "example.com", clientDataHash: Array(repeating: 7, count: 32), style: .conditional,
            algorithms: [-7]))

    static let table: [(request: ProviderRequest, entryPoint: EntryPoint, accepts: Set<Credential.Kind>)] = [
        (.credentialList(services), .prepareCredentialList, [.password]),
        (.credentialList([]), .prepareCredentialList, [.password]),
        (.passkeyCredentialList(services, parameters), .prepareCredentialListForPasskey,
         [.password, .passkeyAssertion]),
        (.oneTimeCodeList(services), .prepareOneTimeCodeList, [.oneTimeCode]),
        (.credentialWithoutUserInteraction(.password(password)), .provideCredentialWithoutUserInteraction,
         [.password]),
        (.credentialWithoutUserInteraction(.passkeyAssertion(passkey, parameters)),
         .provideCredentialWithoutUserInteraction, [.passkeyAssertion]),
        (.credentialWithoutUserInteraction(.oneTimeCode(oneTimeCode)), .provideCredentialWithoutUserInteraction,
         [.oneTimeCode]),
        (.interfaceToProvideCredential(.password(password)), .prepareInterfaceToProvideCredential, [.password]),
        (.interfaceToProvideCredential(.passkeyAssertion(passkey, parameters)),
         .prepareInterfaceToProvideCredential, [.passkeyAssertion]),
        (.interfaceToProvideCredential(.oneTimeCode(oneTimeCode)), .prepareInterfaceToProvideCredential,
         [.oneTimeCode]),
        (.passkeyRegistration(registration), .prepareInterfaceForPasskeyRegistration, [.passkeyRegistration]),
        (.conditionalPasskeyRegistration(conditionalRegistration),
         .performPasskeyRegistrationWithoutUserInteraction, [.passkeyRegistration]),
        (.extensionConfiguration, .prepareInterfaceForExtensionConfiguration, [.configurationCompleted]),
        (.textToInsert, .prepareInterfaceForTextToInsert, [.text]),
        (.savePassword(SavePasswordRequest(serviceIdentifier: services[1], credential: PasswordCredential(user: "alice", password: Secret("pw")))),
         .prepareInterfaceForSavePassword, [.passwordSaved]),
        (.generatePassword(GeneratePasswordRequest(serviceIdentifier: services[1], passwordRules: "minlength: 20")),
         .prepareInterfaceForGeneratePassword, [.generatedPassword]),
        (.credentialUpdate(.unknownPasskey(relyingParty: "example.com", credentialID: [1])), .reportCredentialUpdate, [.updateReported]),
    ]

    @Test(arguments: table)
    func eachRequestCallsItsEntryPoint(_ row: (request: ProviderRequest, entryPoint: EntryPoint, accepts: Set<Credential.Kind>)) {
        #expect(row.request.entryPoint == row.entryPoint)
    }

    @Test(arguments: table)
    func eachRequestAcceptsOnlyItsCompletions(_ row: (request: ProviderRequest, entryPoint: EntryPoint, accepts: Set<Credential.Kind>)) {
        #expect(row.request.acceptedCompletions == row.accepts)
    }

    @Test func aSaveRequestAndAGeneratedPasswordNeverPrintTheirPassword() {
        let save = ProviderRequest.savePassword(SavePasswordRequest(
            serviceIdentifier: Self.services[1], credential: PasswordCredential(user: "alice", password: Secret("hunter2-save"))))
        var dumped = ""
        dump(save, to: &dumped)
        for text in ["\(save)", String(reflecting: save), dumped, "\(Credential.generatedPassword(Secret("hunter2-save")))"] {
            #expect(!text.contains("hunter2-save"), "\(text)")
        }
    }

    @Test func everyEntryPointIsReachedBySomeRequest() {
        #expect(Set(Self.table.map(\.entryPoint)) == Set(EntryPoint.allCases))
    }

    @Test func everyCompletionKindAnswersSomeRequest() {
        #expect(Set(Self.table.flatMap(\.accepts)) == Set(Credential.Kind.allCases))
    }

    @Test func theNoUIRequestsAreExactlyThoseWhoseEntryPointForbidsUI() {
        let noUI = Self.table.filter { !$0.entryPoint.allowsUserInterface }.map(\.request)
        #expect(noUI == [
            .credentialWithoutUserInteraction(.password(Self.password)),
            .credentialWithoutUserInteraction(.passkeyAssertion(Self.passkey, Self.parameters)),
            .credentialWithoutUserInteraction(.oneTimeCode(Self.oneTimeCode)),
            .conditionalPasskeyRegistration(Self.conditionalRegistration),
        ])
    }

    @Test(arguments: [
        (CredentialRequest.password(password), CredentialIdentity.password(password)),
        (.passkeyAssertion(passkey, parameters), .passkey(passkey)),
        (.oneTimeCode(oneTimeCode), .oneTimeCode(oneTimeCode)),
    ])
    func aCredentialRequestNamesTheIdentityThatWasPicked(_ request: CredentialRequest, _ identity: CredentialIdentity) {
        #expect(request.identity == identity)
    }

    @Test(arguments: [
        (Credential.password(PasswordCredential(user: "alice", password: Secret("pw"))), Credential.Kind.password),
        (.passkeyAssertion(PasskeyAssertionCredential(
            relyingParty: "example.com", credentialID: [1], userHandle: [2], authenticatorData: [3], signature: [4],
            clientDataHash: [5])), .passkeyAssertion),
        (.passkeyRegistration(PasskeyRegistrationCredential(
            relyingParty: "example.com", credentialID: [1], attestationObject: [2], clientDataHash: [3])),
         .passkeyRegistration),
        (.oneTimeCode(Secret("123456")), .oneTimeCode),
        (.text(Secret("text")), .text),
        (.configurationCompleted, .configurationCompleted),
    ])
    func eachCompletionHasItsKind(_ credential: Credential, _ kind: Credential.Kind) {
        #expect(credential.kind == kind)
    }
}
