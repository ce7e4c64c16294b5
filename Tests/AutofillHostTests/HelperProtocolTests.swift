import AutofillCore
@testable import AutofillHost
@testable import AutofillProviderRuntime
import AutofillWire
import Foundation
import Testing

/// The helper protocol's encoding: every message round-trips, and a reader fed anything else
/// refuses it by naming the field, never by crashing, allocating what the frame cannot hold, or
/// repeating the bytes (frames carry secrets).
struct HelperProtocolTests {
    static let service = ServiceIdentifier(identifier: "https://example.com/login", type: .url)
    static let password = PasswordCredentialIdentity(serviceIdentifier: service, user: "alice", recordIdentifier: "r1", rank: -3)
    static let passkey = PasskeyCredentialIdentity(
        relyingPartyIdentifier: "example.com", userName: "alice", credentialID: [1, 2, 3], userHandle: [9], recordIdentifier: nil, rank: 7)
    static let code = OneTimeCodeCredentialIdentity(serviceIdentifier: .init(identifier: "example.com", type: .domain), label: "alice@example.com")
    static let parameters = PasskeyParameters(
        relyingParty: "example.com", clientDataHash: Array(repeating: 0xab, count: 32), userVerification: .discouraged,
        style: .conditional, credentialIDs: [[1], [2, 3]], algorithms: [-7, -257], extensionsJSON: "{\"credProps\":true}",
        hostUserPresent: true, hostUserVerified: false, hostRecentPasswordFill: true, hostUserInterfaceScripted: true)

    static let requests: [ProviderRequest] = [
        .credentialList([service]), .passkeyCredentialList([service], parameters), .oneTimeCodeList([]),
        .credentialWithoutUserInteraction(.password(password)), .interfaceToProvideCredential(.passkeyAssertion(passkey, parameters)),
        .credentialWithoutUserInteraction(.oneTimeCode(code)),
        .passkeyRegistration(PasskeyRegistrationRequest(identity: passkey, parameters: parameters)),
        .conditionalPasskeyRegistration(PasskeyRegistrationRequest(identity: passkey, parameters: parameters)),
        .extensionConfiguration, .textToInsert,
        .savePassword(SavePasswordRequest(serviceIdentifier: service, credential: PasswordCredential(user: "alice", password: Secret("hunter2")),
                                          title: "Work", event: .formDidDisappear)),
        .savePassword(SavePasswordRequest(serviceIdentifier: service, credential: PasswordCredential(user: "bob", password: Secret("pw")))),
        .generatePassword(GeneratePasswordRequest(serviceIdentifier: service, passwordRules: "minlength: 20; required: digit")),
        .generatePassword(GeneratePasswordRequest(serviceIdentifier: service)),
        .credentialUpdate(.unusedPassword(domain: "example.com", user: "alice")),
        .credentialUpdate(.unknownPasskey(relyingParty: "example.com", credentialID: [1, 2])),
        .credentialUpdate(.acceptedPasskeys(relyingParty: "example.com", userHandle: [9], credentialIDs: [[1], [2, 3]])),
        .credentialUpdate(.acceptedPasskeys(relyingParty: "example.com", userHandle: [9], credentialIDs: [])),
        .credentialUpdate(.passkeyUserDetails(relyingParty: "example.com", userHandle: [9], name: "alice@new", displayName: "Alice")),
    ]

    static let answers: [ProviderAnswer] = [
        .credential(.password(PasswordCredential(user: "alice", password: Secret("hunter2")))),
        .credential(.passkeyAssertion(PasskeyAssertionCredential(
            relyingParty: "example.com", credentialID: [1], userHandle: [2], authenticatorData: [3, 4], signature: [5],
            clientDataHash: [6], extensionOutputsJSON: "{}"))),
        .credential(.passkeyRegistration(PasskeyRegistrationCredential(
            relyingParty: "example.com", credentialID: [1], attestationObject: [0xa0], clientDataHash: [6]))),
        .credential(.oneTimeCode(Secret("123456"))), .credential(.text(Secret("text"))), .credential(.configurationCompleted),
        .credential(.passwordSaved), .credential(.generatedPassword(Secret("Gen-3rated!"))), .credential(.updateReported),
        .error(ExtensionError(.userInteractionRequired)), .error(ExtensionError(.failed, failureReason: "why")),
        .malformed("password: not valid UTF-8"),
    ]

    static let helperMessages: [HelperMessage] = [
        .hello(protocolVersion: 1, abiVersion: 1), .loading(.callingEntry),
        .loaded(problems: [PluginProblem(.entryRefused, file: "/x.so", keyPath: "AFProviderEntrySymbol", message: "m", fix: "f"),
                           PluginProblem(.unknownKey, severity: .warning, message: "w", fix: "g")],
                entryPoints: EntryPoints([EntryPoint.provideCredentialWithoutUserInteraction, .prepareCredentialList])),
        .loaded(problems: [], entryPoints: nil),
        .log(.warning, "a line ✓"), .malformedCall(service: "log", problem: "message: not valid UTF-8"),
    ]

    static let calls: [HostCall] = [
        .setting("VaultFile"), .storeState, .storeSave([.password(password), .passkey(passkey), .oneTimeCode(code)]), .storeRemove([]),
        .storeReplace([.oneTimeCode(code)]), .storeRemoveAll,
        .present(request: 9, .prompt(title: "Unlock", message: "Master password", secret: true, maxLength: 64)),
        .present(request: 9, .choose(title: "Choose", items: ["a", "b"])),
        .present(request: 9, .confirm(title: "t", message: "m")), .present(request: 9, .message(title: "t", message: "m")),
        .addFile(request: 9, folder: "/s", name: "a.gpg", contents: [1, 2]),
        .replaceFile(request: 9, path: "/home/u/Passwords.kdbx", expectedSHA256: Array(repeating: 7, count: 32), length: 3 << 20),
        .replaceFileChunk(request: 9, bytes: Array(repeating: 0xAB, count: 2 << 20)),
        .openFile(path: "/home/u/Passwords.kdbx"),
    ]

    static let replies: [HostReply] = [
        .setting(nil), .setting("v"), .store(nil), .store(.storeDisabled),
        .storeState(.success(IdentityStoreState(isEnabled: true, supportsIncrementalUpdates: false))),
        .storeState(.failure(.init(code: .storeBusy))), .status(-1),
        .userInterface(.success(.text(Secret("master")))), .userInterface(.success(.choice(1))),
        .userInterface(.success(.confirmed(true))), .userInterface(.success(.acknowledged)),
        .userInterface(.failure(.canceled)), .userInterface(.failure(.unavailable("no terminal"))),
        .added(-10, "the file changed on disk since it was read"),
    ]

    /// Every message kind, and every call, reply, request and answer inside one.
    static var messages: [HelperMessage] {
        var all = helperMessages
        all.append(.load(protocolVersion: 1, abiVersion: 1, bundlePath: "/plugins/Vault.afprovider", sandbox: nil, pins: nil))
        all.append(.load(protocolVersion: 1, abiVersion: 1, bundlePath: "/plugins/Vault.afprovider", sandbox: SandboxPolicy(
            rules: [.init(path: "/usr", access: [.read, .execute], reason: "the system"), .init(path: "/data", access: [.read, .write], reason: "its own")],
            tcpPorts: [443, 8080], network: true, sessionBus: true, unixSockets: true, runsPrograms: true,
            environment: ["HOME": "/home/u", "PATH": "/usr/bin:/bin"], dataFolder: "/data", runtimeFolder: "/run/user/1/x"),
            pins: ["libVault.so": String(repeating: "a", count: 64), "Info.plist": String(repeating: "b", count: 64)]))
        all.append(.sandboxed(SandboxReport(landlockABI: 7, kernelLandlockABI: 7, seccompRules: 40, pathRules: 12, skippedPathRules: 1)))
        for (index, call) in calls.enumerated() { all.append(.call(UInt64(index), call)) }
        for (index, reply) in replies.enumerated() { all.append(.reply(UInt64(index), reply)) }
        for (index, request) in requests.enumerated() { all.append(.request(UInt64(index), request)) }
        for (index, answer) in answers.enumerated() { all.append(.call(UInt64(100 + index), .complete(request: UInt64(index), answer))) }
        return all
    }

    /// A frame's body: the frame without its length prefix.
    static func body(_ message: HelperMessage) -> [UInt8] { Array(message.frame.dropFirst(4)) }

    @Test func everyMessageRoundTrips() throws {
        for message in Self.messages {
            #expect(try HelperMessage(body: Self.body(message)) == message)
        }
    }

    @Test func framesArriveWholeHoweverTheBytesAreSplit() throws {
        let stream = Self.messages.flatMap(\.frame)
        var assembler = FrameAssembler()
        var decoded: [HelperMessage] = []
        var offset = 0, step = 1
        while offset < stream.count {
            let end = min(stream.count, offset + step)
            stream[offset..<end].withUnsafeBytes { assembler.append($0) }
            while let body = try assembler.next() { decoded.append(try HelperMessage(body: body)) }
            offset = end
            step = step % 97 + 1
        }
        #expect(decoded == Self.messages)
        #expect(!assembler.isMidFrame)
    }

    @Test func everyTruncationIsRefusedNamingAFieldAndNeverTheSecret() throws {
        let message = HelperMessage.call(1, .complete(request: 2, .credential(.password(PasswordCredential(user: "alice", password: Secret("hunter2"))))))
        let body = Self.body(message)
        for length in 0..<body.count {
            #expect(throws: FrameError.self) { try HelperMessage(body: Array(body.prefix(length))) }
            do {
                _ = try HelperMessage(body: Array(body.prefix(length)))
            } catch {
                #expect(!error.message.contains("hunter2"))
            }
        }
        #expect(throws: FrameError.self, "trailing bytes") { try HelperMessage(body: body + [0]) }
    }

    @Test func aForgedCountCannotMakeTheReaderAllocate() throws {
        var writer = FrameWriter(tag: 6)  // call
        writer.u64(1)
        writer.u8(3)  // storeSave
        writer.u32(UInt32.max)  // four billion identities, in a frame of a few bytes
        let error = try #require(throws: FrameError.self) { try HelperMessage(body: Array(writer.frame.dropFirst(4))) }
        #expect(error.message == "store_save.identities: 4294967295 elements do not fit the frame")
    }

    @Test func textThatIsNotUTF8IsAProtocolViolation() throws {
        var writer = FrameWriter(tag: 4)  // log
        writer.i32(1)
        writer.bytes([0x66, 0xff, 0xfe])
        let error = try #require(throws: FrameError.self) { try HelperMessage(body: Array(writer.frame.dropFirst(4))) }
        #expect(error.message == "log.message: not valid UTF-8")
    }

    @Test func unknownTagsAndValuesAreRefused() throws {
        #expect(throws: FrameError.self) { try HelperMessage(body: [99]) }
        #expect(throws: FrameError.self) { try HelperMessage(body: [2, 9]) }  // loading stage 9
        var writer = FrameWriter(tag: 6)
        writer.u64(1)
        writer.u8(7)  // complete
        writer.u64(2)
        writer.u8(2)  // an error
        writer.i32(55)  // not an AF_ERROR_* value
        let error = try #require(throws: FrameError.self) { try HelperMessage(body: Array(writer.frame.dropFirst(4))) }
        #expect(error.message == "error.code: unknown code 55")
    }

    /// What a hostile helper might send oversized (built in the test, so the test log stays short).
    enum OversizedField: String, CaseIterable {
        case reason, logLine, promptTitle, password, listItems, malformedCallProblem

        var message: HelperMessage {
            switch self {
            case .reason: .call(1, .complete(request: 1, .error(ExtensionError(.failed, failureReason: String(repeating: "r", count: 205_000)))))
            case .logLine: .log(.warning, String(repeating: "l", count: 65_537))
            case .promptTitle: .call(1, .present(request: 1, .prompt(title: String(repeating: "t", count: 70_000), message: "", secret: false, maxLength: 1)))
            case .password: .call(1, .complete(request: 1, .credential(.password(PasswordCredential(user: "u", password: Secret(String(repeating: "p", count: 65_537)))))))
            case .listItems: .call(1, .present(request: 1, .choose(title: "t", items: Array(repeating: "", count: 100_001))))
            case .malformedCallProblem: .malformedCall(service: "log", problem: String(repeating: "m", count: 65_537))
            }
        }

        var error: String {
            switch self {
            case .reason: "error.reason: 205000 bytes, over the limit of 65536"
            case .logLine: "log.message: 65537 bytes, over the limit of 65536"
            case .promptTitle: "prompt.title: 70000 bytes, over the limit of 65536"
            case .password: "password.password: 65537 bytes, over the limit of 65536"
            case .listItems: "choose.items: 100001 elements, over the limit of 100000"
            case .malformedCallProblem: "malformedCall.problem: 65537 bytes, over the limit of 65536"
            }
        }
    }

    /// A helper can hand the host no longer a string than a plugin in process could (the C ABI's
    /// AF_MAX_STRING_LENGTH) and no more items than the ABI takes: a forged 205 KB reason, log line
    /// or prompt is a protocol violation, not text for the user's terminal.
    @Test(arguments: OversizedField.allCases)
    func aHelperCannotSendTheHostMoreThanTheABIAllows(field: OversizedField) throws {
        let error = try #require(throws: FrameError.self) { try HelperMessage(body: Array(field.message.frame.dropFirst(4))) }
        #expect(error.message == field.error)
    }

    @Test func stringsAtTheABIsLimitStillPass() throws {
        let reason = String(repeating: "r", count: 65_536)
        let message = HelperMessage.call(1, .complete(request: 1, .error(ExtensionError(.failed, failureReason: reason))))
        #expect(try HelperMessage(body: Array(message.frame.dropFirst(4))) == message)
        let setting = HelperMessage.reply(1, .setting(String(repeating: "s", count: 100_000)))
        #expect(try HelperMessage(body: Array(setting.frame.dropFirst(4))) == setting, "a setting is the host's own configuration")
    }

    @Test func aFrameOverTheLimitIsRefusedBeforeItIsRead() throws {
        var assembler = FrameAssembler()
        let length = UInt32(HelperProtocol.maximumFrameBytes + 1)
        withUnsafeBytes(of: length.littleEndian) { assembler.append($0) }
        #expect(throws: FrameError.self) { try assembler.next() }
        var empty = FrameAssembler()
        withUnsafeBytes(of: UInt32(0)) { empty.append($0) }
        #expect(throws: FrameError.self, "a frame must hold at least its tag") { try empty.next() }
    }

    @Test func aMessageOverTheLimitIsNotSent() throws {
        let channel = FrameChannel(descriptor: -1)
        let huge = String(repeating: "x", count: HelperProtocol.maximumFrameBytes)
        #expect(throws: FrameError.self) { try channel.send(.log(.info, huge)) }
    }

    /// When this fails, a model gained (or lost) a field: carry it in HelperMessage+Coding.swift (both
    /// directions and `everyMessageRoundTrips`), then update the count here.
    @Test func theEncodingCoversEveryFieldOfTheModels() {
        func fields(_ value: Any) -> Int { Mirror(reflecting: value).children.count }
        #expect(fields(Self.password) == 4)
        #expect(fields(Self.passkey) == 6)
        #expect(fields(Self.code) == 4)
        #expect(fields(Self.service) == 2)
        #expect(fields(Self.parameters) == 11)
        #expect(fields(PasskeyRegistrationRequest(identity: Self.passkey, parameters: Self.parameters)) == 2)
        #expect(fields(PasswordCredential(user: "u", password: Secret("p"))) == 2)
        #expect(fields(PasskeyAssertionCredential(relyingParty: "", credentialID: [], userHandle: [], authenticatorData: [], signature: [],
                                                  clientDataHash: [])) == 7)
        #expect(fields(PasskeyRegistrationCredential(relyingParty: "", credentialID: [], attestationObject: [], clientDataHash: [])) == 5)
        #expect(fields(ExtensionError(.failed)) == 2)
        #expect(fields(IdentityStoreState(isEnabled: true, supportsIncrementalUpdates: true)) == 2)
        #expect(fields(PluginProblem(.loadFailed, message: "", fix: "")) == 6)
        #expect(fields(SavePasswordRequest(serviceIdentifier: Self.service, credential: PasswordCredential(user: "u", password: Secret("p")))) == 4)
        #expect(fields(GeneratePasswordRequest(serviceIdentifier: Self.service)) == 2)
        // Enums need no count here: the coding switches over them exhaustively (problem codes travel as names).
    }
}
