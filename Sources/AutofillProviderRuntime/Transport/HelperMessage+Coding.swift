package import AutofillWire
internal import AutofillCore
internal import CAutofillProvider

// The encoding of every message and model the helper protocol carries. Secrets (passwords, codes,
// texts, UI answers) travel as plain string fields inside frames and nowhere else: no Codable, no
// description, no log line sees them.

extension HelperMessage {
    private enum Tag: UInt8 {
        case hello = 1, loading, loaded, log, malformedCall, call, returned, sandboxed
        case load = 64, request, reply
    }

    /// The message as one frame, length prefix included.
    var frame: [UInt8] {
        switch self {
        case .hello(let version, let abi):
            var w = FrameWriter(tag: Tag.hello.rawValue)
            w.u32(version)
            w.u32(abi)
            return w.frame
        case .loading(let stage):
            var w = FrameWriter(tag: Tag.loading.rawValue)
            w.u8(stage.rawValue)
            return w.frame
        case .loaded(let problems, let entryPoints):
            var w = FrameWriter(tag: Tag.loaded.rawValue)
            w.array(problems) { $0.problem($1) }
            w.optional(entryPoints) { $0.u32($1.rawValue) }
            return w.frame
        case .log(let level, let message):
            var w = FrameWriter(tag: Tag.log.rawValue)
            w.i32(level.rawValue)
            w.string(message)
            return w.frame
        case .malformedCall(let service, let problem):
            var w = FrameWriter(tag: Tag.malformedCall.rawValue)
            w.string(service)
            w.string(problem)
            return w.frame
        case .call(let id, let call):
            var w = FrameWriter(tag: Tag.call.rawValue)
            w.u64(id)
            w.hostCall(call)
            return w.frame
        case .returned(let id):
            var w = FrameWriter(tag: Tag.returned.rawValue)
            w.u64(id)
            return w.frame
        case .load(let version, let abi, let bundlePath, let sandbox, let pins):
            var w = FrameWriter(tag: Tag.load.rawValue)
            w.u32(version)
            w.u32(abi)
            w.string(bundlePath)
            w.optional(sandbox) { $0.sandboxPolicy($1) }
            w.optional(pins.map { $0.sorted { $0.key < $1.key } }) { w, pins in
                w.array(pins) { w, pin in
                    w.string(pin.key)
                    w.string(pin.value)
                }
            }
            return w.frame
        case .sandboxed(let report):
            var w = FrameWriter(tag: Tag.sandboxed.rawValue)
            w.sandboxReport(report)
            return w.frame
        case .request(let id, let request):
            var w = FrameWriter(tag: Tag.request.rawValue)
            w.u64(id)
            w.providerRequest(request)
            return w.frame
        case .reply(let id, let reply):
            var w = FrameWriter(tag: Tag.reply.rawValue)
            w.u64(id)
            w.hostReply(reply)
            return w.frame
        }
    }

    /// Decodes one frame body (tag and fields, without the length prefix).
    package init(body: [UInt8]) throws(FrameError) {
        var r = FrameReader(body: body)
        let raw = try r.u8("message tag")
        guard let tag = Tag(rawValue: raw) else { throw FrameError("unknown message tag \(raw)") }
        switch tag {
        case .hello:
            self = .hello(protocolVersion: try r.u32("hello.protocolVersion"), abiVersion: try r.u32("hello.abiVersion"))
        case .loading:
            let raw = try r.u8("loading.stage")
            guard let stage = LoadStage(rawValue: raw) else { throw FrameError("loading.stage: unknown stage \(raw)") }
            self = .loading(stage)
        case .loaded:
            let problems = try r.array("loaded.problems", minimumElementSize: 16) { r throws(FrameError) in try r.problem() }
            self = .loaded(problems: problems, entryPoints: try r.optional("loaded.entryPoints") { r throws(FrameError) in
                EntryPoints(rawValue: try r.u32("loaded.entryPoints")).intersection(.all)
            })
        case .log:
            let raw = try r.i32("log.level")
            guard let level = ProviderLogLevel(rawValue: raw) else { throw FrameError("log.level: unknown level \(raw)") }
            self = .log(level, try r.text("log.message"))
        case .malformedCall:
            self = .malformedCall(service: try r.text("malformedCall.service"), problem: try r.text("malformedCall.problem"))
        case .call:
            self = .call(try r.u64("call.id"), try r.hostCall())
        case .returned:
            self = .returned(try r.u64("returned.id"))
        case .load:
            self = .load(protocolVersion: try r.u32("load.protocolVersion"), abiVersion: try r.u32("load.abiVersion"),
                         bundlePath: try r.text("load.bundlePath"),
                         sandbox: try r.optional("load.sandbox") { r throws(FrameError) in try r.sandboxPolicy() },
                         pins: try r.optional("load.pins") { r throws(FrameError) in
                             var pins: [String: String] = [:]
                             for (path, digest) in try r.array("load.pins", minimumElementSize: 8, { r throws(FrameError) in
                                 (try r.text("load.pins.path"), try r.text("load.pins.digest"))
                             }) { pins[path] = digest }
                             return pins
                         })
        case .sandboxed:
            self = .sandboxed(try r.sandboxReport())
        case .request:
            self = .request(try r.u64("request.id"), try r.providerRequest())
        case .reply:
            self = .reply(try r.u64("reply.id"), try r.hostReply())
        }
        try r.finish("\(tag)")
    }
}

// MARK: Calls and replies

extension FrameWriter {
    mutating func hostCall(_ call: HostCall) {
        switch call {
        case .setting(let key): u8(1); string(key)
        case .storeState: u8(2)
        case .storeSave(let identities): u8(3); array(identities) { $0.identity($1) }
        case .storeRemove(let identities): u8(4); array(identities) { $0.identity($1) }
        case .storeReplace(let identities): u8(5); array(identities) { $0.identity($1) }
        case .storeRemoveAll: u8(6)
        case .complete(let request, let answer): u8(7); u64(request); providerAnswer(answer)
        case .present(let request, let ui): u8(8); u64(request); userInterfaceRequest(ui)
        case .addFile(let request, let folder, let name, let contents): u8(9); u64(request); string(folder); string(name); bytes(contents)
        case .replaceFile(let request, let path, let expected, let length): u8(10); u64(request); string(path); bytes(expected); u64(length)
        case .replaceFileChunk(let request, let piece): u8(11); u64(request); bytes(piece)
        case .openFile(let path): u8(12); string(path)
        }
    }

    mutating func hostReply(_ reply: HostReply) {
        switch reply {
        case .setting(let value): u8(1); optional(value) { $0.string($1) }
        case .store(let code): u8(2); optional(code) { $0.int($1.rawValue) }
        case .storeState(.success(let state)): u8(3); bool(state.isEnabled); bool(state.supportsIncrementalUpdates)
        case .storeState(.failure(let failure)): u8(4); int(failure.code.rawValue)
        case .status(let status): u8(5); i32(status)
        case .userInterface(.success(let answer)): u8(6); userInterfaceAnswer(answer)
        case .userInterface(.failure(.canceled)): u8(7)
        case .userInterface(.failure(.unavailable(let reason))): u8(8); string(reason)
        case .added(let status, let reason): u8(9); i32(status); string(reason)
        }
    }
}

extension FrameReader {
    private static let identitySize = 16

    mutating func hostCall() throws(FrameError) -> HostCall {
        let tag = try u8("call.kind")
        switch tag {
        case 1: return .setting(try text("setting.key"))
        case 2: return .storeState
        case 3: return .storeSave(try identities("store_save.identities"))
        case 4: return .storeRemove(try identities("store_remove.identities"))
        case 5: return .storeReplace(try identities("store_replace.identities"))
        case 6: return .storeRemoveAll
        case 7: return .complete(request: try u64("complete.request"), try providerAnswer())
        case 8: return .present(request: try u64("present.request"), try userInterfaceRequest())
        case 9:
            return .addFile(request: try u64("add_file.request"), folder: try text("add_file.folder"), name: try text("add_file.name"),
                            contents: try bytes("add_file.contents"))
        case 10:
            return .replaceFile(request: try u64("replace_file.request"), path: try text("replace_file.path"),
                                expectedSHA256: try bytes("replace_file.expected", limit: 32), length: try u64("replace_file.length"))
        case 11:
            return .replaceFileChunk(request: try u64("replace_file.request"), bytes: try bytes("replace_file.chunk", limit: HelperProtocol.replaceChunkBytes))
        case 12:
            return .openFile(path: try text("open_file.path"))
        default: throw FrameError("call.kind: unknown kind \(tag)")
        }
    }

    mutating func hostReply() throws(FrameError) -> HostReply {
        let tag = try u8("reply.kind")
        switch tag {
        case 1: return .setting(try optional("setting.value") { r throws(FrameError) in try r.string("setting.value") })
        case 2: return .store(try optional("store.error") { r throws(FrameError) in try r.storeErrorCode() })
        case 3: return .storeState(.success(IdentityStoreState(isEnabled: try bool("state.isEnabled"),
                                                               supportsIncrementalUpdates: try bool("state.supportsIncrementalUpdates"))))
        case 4: return .storeState(.failure(.init(code: try storeErrorCode())))
        case 5: return .status(try i32("status"))
        case 6: return .userInterface(.success(try userInterfaceAnswer()))
        case 7: return .userInterface(.failure(.canceled))
        case 8: return .userInterface(.failure(.unavailable(try text("ui.unavailable"))))
        case 9: return .added(try i32("add_file.status"), try text("add_file.reason"))
        default: throw FrameError("reply.kind: unknown kind \(tag)")
        }
    }

    private mutating func storeErrorCode() throws(FrameError) -> IdentityStoreError.Code {
        let raw = try int("store.error")
        guard let code = IdentityStoreError.Code(rawValue: raw) else { throw FrameError("store.error: unknown code \(raw)") }
        return code
    }

    private mutating func identities(_ field: String) throws(FrameError) -> [CredentialIdentity] {
        try limit(array(field, minimumElementSize: Self.identitySize) { r throws(FrameError) in try r.identity() },
                  Int(AF_MAX_IDENTITIES_PER_CALL), field)
    }
}

// MARK: Models

extension FrameWriter {
    mutating func service(_ service: ServiceIdentifier) {
        string(service.identifier)
        u8(service.type == .url ? 1 : 0)
    }

    mutating func identity(_ identity: CredentialIdentity) {
        switch identity {
        case .password(let p):
            u8(1); service(p.serviceIdentifier); string(p.user); optional(p.recordIdentifier) { $0.string($1) }; int(p.rank)
        case .passkey(let p):
            u8(2); passkeyIdentity(p)
        case .oneTimeCode(let o):
            u8(3); service(o.serviceIdentifier); string(o.label); optional(o.recordIdentifier) { $0.string($1) }; int(o.rank)
        }
    }

    mutating func passkeyIdentity(_ p: PasskeyCredentialIdentity) {
        string(p.relyingPartyIdentifier); string(p.userName); bytes(p.credentialID); bytes(p.userHandle)
        optional(p.recordIdentifier) { $0.string($1) }; int(p.rank)
    }

    mutating func passkeyParameters(_ p: PasskeyParameters) {
        string(p.relyingParty); bytes(p.clientDataHash)
        let verification: UInt8 = switch p.userVerification { case .required: 0; case .preferred: 1; case .discouraged: 2 }
        u8(verification)
        u8(p.style == .conditional ? 1 : 0)
        array(p.credentialIDs) { $0.bytes($1) }
        array(p.algorithms) { $0.int($1) }
        optional(p.extensionsJSON) { $0.string($1) }
        bool(p.hostUserPresent); bool(p.hostUserVerified); bool(p.hostRecentPasswordFill); bool(p.hostUserInterfaceScripted)
    }

    mutating func credentialRequest(_ request: CredentialRequest) {
        switch request {
        case .password(let identity): u8(1); self.identity(.password(identity))
        case .passkeyAssertion(let identity, let parameters): u8(2); passkeyIdentity(identity); passkeyParameters(parameters)
        case .oneTimeCode(let identity): u8(3); self.identity(.oneTimeCode(identity))
        }
    }

    mutating func providerRequest(_ request: ProviderRequest) {
        u8(UInt8(request.entryPoint.rawValue))
        switch request {
        case .credentialList(let services), .oneTimeCodeList(let services):
            array(services) { $0.service($1) }
        case .passkeyCredentialList(let services, let parameters):
            array(services) { $0.service($1) }; passkeyParameters(parameters)
        case .credentialWithoutUserInteraction(let request), .interfaceToProvideCredential(let request):
            credentialRequest(request)
        case .passkeyRegistration(let request), .conditionalPasskeyRegistration(let request):
            passkeyIdentity(request.identity); passkeyParameters(request.parameters)
        case .extensionConfiguration, .textToInsert:
            break
        case .savePassword(let request):
            service(request.serviceIdentifier); string(request.credential.user); string(request.credential.password.revealed)
            optional(request.title) { $0.string($1) }; i32(request.event.rawValue)
        case .generatePassword(let request):
            service(request.serviceIdentifier); optional(request.passwordRules) { $0.string($1) }
        case .credentialUpdate(let update):
            credentialUpdate(update)
        }
    }

    mutating func credentialUpdate(_ update: CredentialUpdate) {
        switch update {
        case .unusedPassword(let domain, let user): u8(1); string(domain); string(user)
        case .unknownPasskey(let relyingParty, let id): u8(2); string(relyingParty); bytes(id)
        case .acceptedPasskeys(let relyingParty, let handle, let ids): u8(3); string(relyingParty); bytes(handle); array(ids) { $0.bytes($1) }
        case .passkeyUserDetails(let relyingParty, let handle, let name, let displayName):
            u8(4); string(relyingParty); bytes(handle); string(name); string(displayName)
        }
    }

    mutating func credential(_ credential: Credential) {
        switch credential {
        case .password(let p): u8(1); string(p.user); string(p.password.revealed)
        case .passkeyAssertion(let a):
            u8(2); string(a.relyingParty); bytes(a.credentialID); bytes(a.userHandle); bytes(a.authenticatorData)
            bytes(a.signature); bytes(a.clientDataHash); optional(a.extensionOutputsJSON) { $0.string($1) }
        case .passkeyRegistration(let r):
            u8(3); string(r.relyingParty); bytes(r.credentialID); bytes(r.attestationObject); bytes(r.clientDataHash)
            optional(r.extensionOutputsJSON) { $0.string($1) }
        case .oneTimeCode(let code): u8(4); string(code.revealed)
        case .text(let text): u8(5); string(text.revealed)
        case .configurationCompleted: u8(6)
        case .passwordSaved: u8(7)
        case .generatedPassword(let password): u8(8); string(password.revealed)
        case .updateReported: u8(9)
        }
    }

    mutating func providerAnswer(_ answer: ProviderAnswer) {
        switch answer {
        case .credential(let c): u8(1); credential(c)
        case .error(let e): u8(2); i32(e.code.rawValue); optional(e.failureReason) { $0.string($1) }
        case .malformed(let problem): u8(3); string(problem)
        }
    }

    mutating func userInterfaceRequest(_ request: UserInterfaceRequest) {
        switch request {
        case .prompt(let title, let message, let secret, let maxLength): u8(1); string(title); string(message); bool(secret); int(maxLength)
        case .choose(let title, let items): u8(2); string(title); array(items) { $0.string($1) }
        case .confirm(let title, let message): u8(3); string(title); string(message)
        case .message(let title, let message): u8(4); string(title); string(message)
        }
    }

    mutating func userInterfaceAnswer(_ answer: UserInterfaceAnswer) {
        switch answer {
        case .text(let text): u8(1); string(text.revealed)
        case .choice(let index): u8(2); int(index)
        case .confirmed(let yes): u8(3); bool(yes)
        case .acknowledged: u8(4)
        }
    }

    mutating func problem(_ p: PluginProblem) {
        string(p.code.rawValue); u8(p.severity == .error ? 0 : 1)
        optional(p.file) { $0.string($1) }; optional(p.keyPath) { $0.string($1) }
        string(p.message); string(p.fix)
    }
}

extension FrameReader {
    mutating func service() throws(FrameError) -> ServiceIdentifier {
        let identifier = try text("service.identifier")
        switch try u8("service.type") {
        case 0: return ServiceIdentifier(identifier: identifier, type: .domain)
        case 1: return ServiceIdentifier(identifier: identifier, type: .url)
        default: throw FrameError("service.type: unknown type")
        }
    }

    private mutating func record() throws(FrameError) -> String? {
        try optional("identity.recordIdentifier") { r throws(FrameError) in try r.text("identity.recordIdentifier") }
    }

    mutating func identity() throws(FrameError) -> CredentialIdentity {
        let kind = try u8("identity.kind")
        switch kind {
        case 1:
            return .password(PasswordCredentialIdentity(
                serviceIdentifier: try service(), user: try text("identity.user"), recordIdentifier: try record(),
                rank: try int("identity.rank")))
        case 2:
            return .passkey(try passkeyIdentity())
        case 3:
            return .oneTimeCode(OneTimeCodeCredentialIdentity(
                serviceIdentifier: try service(), label: try text("identity.label"), recordIdentifier: try record(),
                rank: try int("identity.rank")))
        default:
            throw FrameError("identity.kind: unknown kind \(kind)")
        }
    }

    mutating func passkeyIdentity() throws(FrameError) -> PasskeyCredentialIdentity {
        PasskeyCredentialIdentity(
            relyingPartyIdentifier: try text("passkey.relyingParty"), userName: try text("passkey.userName"),
            credentialID: try bytes("passkey.credentialID"), userHandle: try bytes("passkey.userHandle"),
            recordIdentifier: try record(), rank: try int("identity.rank"))
    }

    mutating func passkeyParameters() throws(FrameError) -> PasskeyParameters {
        let relyingParty = try text("parameters.relyingParty")
        let clientDataHash = try bytes("parameters.clientDataHash")
        let verification: UserVerificationPreference
        switch try u8("parameters.userVerification") {
        case 0: verification = .required
        case 1: verification = .preferred
        case 2: verification = .discouraged
        default: throw FrameError("parameters.userVerification: unknown value")
        }
        let style: PasskeyRegistrationStyle = try bool("parameters.style") ? .conditional : .standard
        return PasskeyParameters(
            relyingParty: relyingParty, clientDataHash: clientDataHash, userVerification: verification, style: style,
            credentialIDs: try limit(array("parameters.credentialIDs", minimumElementSize: 4) { r throws(FrameError) in try r.bytes("parameters.credentialIDs") },
                                     4096, "parameters.credentialIDs"),
            algorithms: try limit(array("parameters.algorithms", minimumElementSize: 8) { r throws(FrameError) in try r.int("parameters.algorithms") },
                                  256, "parameters.algorithms"),
            extensionsJSON: try optional("parameters.extensionsJSON") { r throws(FrameError) in try r.text("parameters.extensionsJSON") },
            hostUserPresent: try bool("parameters.hostUserPresent"), hostUserVerified: try bool("parameters.hostUserVerified"),
            hostRecentPasswordFill: try bool("parameters.hostRecentPasswordFill"),
            hostUserInterfaceScripted: try bool("parameters.hostUserInterfaceScripted"))
    }

    mutating func credentialRequest() throws(FrameError) -> CredentialRequest {
        let kind = try u8("request.kind")
        switch kind {
        case 1:
            guard case .password(let identity) = try identity() else { throw FrameError("request: not a password identity") }
            return .password(identity)
        case 2:
            return .passkeyAssertion(try passkeyIdentity(), try passkeyParameters())
        case 3:
            guard case .oneTimeCode(let identity) = try identity() else { throw FrameError("request: not a one-time-code identity") }
            return .oneTimeCode(identity)
        default:
            throw FrameError("request.kind: unknown kind \(kind)")
        }
    }

    mutating func providerRequest() throws(FrameError) -> ProviderRequest {
        let raw = try u8("request.entryPoint")
        guard let entryPoint = EntryPoint(rawValue: Int(raw)) else { throw FrameError("request.entryPoint: unknown entry point \(raw)") }
        func services(_ r: inout FrameReader) throws(FrameError) -> [ServiceIdentifier] {
            try r.limit(r.array("request.services", minimumElementSize: 5) { r throws(FrameError) in try r.service() }, 4096, "request.services")
        }
        switch entryPoint {
        case .prepareCredentialList: return .credentialList(try services(&self))
        case .prepareOneTimeCodeList: return .oneTimeCodeList(try services(&self))
        case .prepareCredentialListForPasskey: return .passkeyCredentialList(try services(&self), try passkeyParameters())
        case .provideCredentialWithoutUserInteraction: return .credentialWithoutUserInteraction(try credentialRequest())
        case .prepareInterfaceToProvideCredential: return .interfaceToProvideCredential(try credentialRequest())
        case .prepareInterfaceForPasskeyRegistration:
            return .passkeyRegistration(PasskeyRegistrationRequest(identity: try passkeyIdentity(), parameters: try passkeyParameters()))
        case .performPasskeyRegistrationWithoutUserInteraction:
            return .conditionalPasskeyRegistration(PasskeyRegistrationRequest(identity: try passkeyIdentity(), parameters: try passkeyParameters()))
        case .prepareInterfaceForExtensionConfiguration: return .extensionConfiguration
        case .prepareInterfaceForTextToInsert: return .textToInsert
        case .prepareInterfaceForSavePassword:
            let service = try service()
            let credential = PasswordCredential(user: try text("save.user"), password: Secret(try text("save.password")))
            let title = try optional("save.title") { r throws(FrameError) in try r.text("save.title") }
            let raw = try i32("save.event")
            guard let event = SavePasswordRequest.Event(rawValue: raw) else { throw FrameError("save.event: unknown event \(raw)") }
            return .savePassword(SavePasswordRequest(serviceIdentifier: service, credential: credential, title: title, event: event))
        case .prepareInterfaceForGeneratePassword:
            return .generatePassword(GeneratePasswordRequest(
                serviceIdentifier: try service(),
                passwordRules: try optional("generate.rules") { r throws(FrameError) in try r.text("generate.rules") }))
        case .reportCredentialUpdate:
            return .credentialUpdate(try credentialUpdate())
        }
    }

    mutating func credentialUpdate() throws(FrameError) -> CredentialUpdate {
        let kind = try u8("update.kind")
        switch kind {
        case 1: return .unusedPassword(domain: try text("update.domain"), user: try text("update.user"))
        case 2: return .unknownPasskey(relyingParty: try text("update.relyingParty"), credentialID: try bytes("update.credentialID"))
        case 3:
            return .acceptedPasskeys(
                relyingParty: try text("update.relyingParty"), userHandle: try bytes("update.userHandle"),
                credentialIDs: try limit(array("update.credentialIDs", minimumElementSize: 4) { r throws(FrameError) in try r.bytes("update.credentialIDs") },
                                         4096, "update.credentialIDs"))
        case 4:
            return .passkeyUserDetails(relyingParty: try text("update.relyingParty"), userHandle: try bytes("update.userHandle"),
                                       name: try text("update.name"), displayName: try text("update.displayName"))
        default: throw FrameError("update.kind: unknown kind \(kind)")
        }
    }

    private mutating func json(_ field: String) throws(FrameError) -> String? {
        try optional(field) { r throws(FrameError) in try r.text(field) }
    }

    mutating func credential() throws(FrameError) -> Credential {
        let kind = try u8("credential.kind")
        switch kind {
        case 1:
            return .password(PasswordCredential(user: try text("password.user"), password: Secret(try text("password.password"))))
        case 2:
            return .passkeyAssertion(PasskeyAssertionCredential(
                relyingParty: try text("assertion.relyingParty"), credentialID: try bytes("assertion.credentialID"),
                userHandle: try bytes("assertion.userHandle"), authenticatorData: try bytes("assertion.authenticatorData"),
                signature: try bytes("assertion.signature"), clientDataHash: try bytes("assertion.clientDataHash"),
                extensionOutputsJSON: try json("assertion.extensionOutputsJSON")))
        case 3:
            return .passkeyRegistration(PasskeyRegistrationCredential(
                relyingParty: try text("registration.relyingParty"), credentialID: try bytes("registration.credentialID"),
                attestationObject: try bytes("registration.attestationObject"), clientDataHash: try bytes("registration.clientDataHash"),
                extensionOutputsJSON: try json("registration.extensionOutputsJSON")))
        case 4: return .oneTimeCode(Secret(try text("code")))
        case 5: return .text(Secret(try text("text")))
        case 6: return .configurationCompleted
        case 7: return .passwordSaved
        case 8: return .generatedPassword(Secret(try text("generated.password")))
        case 9: return .updateReported
        default: throw FrameError("credential.kind: unknown kind \(kind)")
        }
    }

    mutating func providerAnswer() throws(FrameError) -> ProviderAnswer {
        let kind = try u8("answer.kind")
        switch kind {
        case 1: return .credential(try credential())
        case 2:
            let raw = try i32("error.code")
            guard let code = ExtensionError.Code(rawValue: raw) else { throw FrameError("error.code: unknown code \(raw)") }
            return .error(ExtensionError(code, failureReason: try optional("error.reason") { r throws(FrameError) in try r.text("error.reason") }))
        case 3: return .malformed(try text("malformed.problem"))
        default: throw FrameError("answer.kind: unknown kind \(kind)")
        }
    }

    mutating func userInterfaceRequest() throws(FrameError) -> UserInterfaceRequest {
        let kind = try u8("ui.kind")
        switch kind {
        case 1:
            return .prompt(title: try text("prompt.title"), message: try text("prompt.message"), secret: try bool("prompt.secret"),
                           maxLength: try int("prompt.maxLength").clamped(to: 0...HelperProtocol.maximumStringBytes))
        case 2:
            return .choose(title: try text("choose.title"),
                           items: try limit(array("choose.items", minimumElementSize: 4) { r throws(FrameError) in try r.text("choose.items") },
                                            100_000, "choose.items"))
        case 3: return .confirm(title: try text("confirm.title"), message: try text("confirm.message"))
        case 4: return .message(title: try text("message.title"), message: try text("message.message"))
        default: throw FrameError("ui.kind: unknown kind \(kind)")
        }
    }

    mutating func userInterfaceAnswer() throws(FrameError) -> UserInterfaceAnswer {
        let kind = try u8("answer.kind")
        switch kind {
        case 1: return .text(Secret(try text("answer.text")))
        case 2: return .choice(try int("answer.choice"))
        case 3: return .confirmed(try bool("answer.confirmed"))
        case 4: return .acknowledged
        default: throw FrameError("answer.kind: unknown kind \(kind)")
        }
    }

    mutating func problem() throws(FrameError) -> PluginProblem {
        let raw = try text("problem.code")
        guard let code = PluginProblem.Code(rawValue: raw) else { throw FrameError("problem.code: unknown code") }
        let severity: PluginProblem.Severity = try bool("problem.severity") ? .warning : .error
        return PluginProblem(
            code, severity: severity,
            file: try optional("problem.file") { r throws(FrameError) in try r.text("problem.file") },
            keyPath: try optional("problem.keyPath") { r throws(FrameError) in try r.text("problem.keyPath") },
            message: try text("problem.message"), fix: try text("problem.fix"))
    }
}

// MARK: Field limits

extension HelperProtocol {
    /// The largest string field: the C ABI's string limit (`AF_MAX_STRING_LENGTH`, 64 KiB), which
    /// every string a plugin passes through the host services meets in process too, and which the
    /// identity stores keep to. Only a setting value (the host's own configuration) may be larger,
    /// up to ``maximumFieldBytes``; byte fields are capped at that (`AF_MAX_BYTES_LENGTH`).
    static let maximumStringBytes = Int(AF_MAX_STRING_LENGTH)
}

extension FrameReader {
    /// A string field of at most ``HelperProtocol/maximumStringBytes``: a helper cannot hand the host
    /// a longer reason, log line, prompt or identity than a plugin in process could.
    mutating func text(_ field: String) throws(FrameError) -> String {
        try string(field, limit: HelperProtocol.maximumStringBytes)
    }

    /// `values`, unless there are more than `limit` of them (the ABI's limit for that array).
    func limit<T>(_ values: [T], _ limit: Int, _ field: String) throws(FrameError) -> [T] {
        guard values.count <= limit else { throw FrameError("\(field): \(values.count) elements, over the limit of \(limit)") }
        return values
    }
}

fileprivate extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
