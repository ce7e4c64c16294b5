import AutofillCore
import AutofillHost
import AutofillTestSupport
import Foundation
import Testing

/// The AuthenticatorProvider sample through the real C ABI, its codes checked against `oathtool`;
/// in this process and in a helper process.
struct AuthenticatorProviderTests {
    let folder: TemporaryFolder
    let log = LogCapture()

    init() throws {
        folder = try TemporaryFolder()
    }

    // Secrets no log line may contain ("This is secret!", "Counter secret!", "Listed secret!!").
    static let totpSecret = "KRUGS4ZANFZSA43FMNZGK5BB"
    static let hotpSecret = "INXXK3TUMVZCA43FMNZGK5BB"
    static let listSecret = "JRUXG5DFMQQHGZLDOJSXIIJB"

    static let totp = "otpauth://totp/Example:alice@example.com?secret=\(totpSecret)&issuer=Example&af_domain=example.com"
    static let hotp = "otpauth://hotp/Counter:bob?secret=\(hotpSecret)&issuer=Counter&counter=5"

    /// Loads a fresh copy of the built sample (a new .so file, so a new load) from `folder`.
    func load(
        _ isolation: ProviderIsolation, settings: [String: String], store: InMemoryIdentityStore = InMemoryIdentityStore(),
        ui: any ProviderUserInterface = UnavailableUserInterface(), into copyFolder: String? = nil
    ) throws -> any ProviderConnection {
        let bundle = try TestPlugins.copyOfSample("AuthenticatorProvider", into: copyFolder ?? folder.path)
        return try Isolated.load(
            bundle, services: ProviderServices(store: store, settings: settings, userInterface: ui, logger: log.logger),
            isolation: isolation)
    }

    func write(_ lines: [String], to name: String = "otpauth.txt") throws -> String {
        let path = "\(folder.path)/\(name)"
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The identity the provider published for `label`.
    static func identity(_ label: String, in store: InMemoryIdentityStore) throws -> OneTimeCodeCredentialIdentity {
        let found = store.allIdentities.compactMap { identity -> OneTimeCodeCredentialIdentity? in
            if case .oneTimeCode(let otp) = identity, otp.label == label { return otp }
            return nil
        }
        return try #require(found.first, "no identity labelled \(label)")
    }

    /// The code of the one-time-code completion, or nil.
    static func code(_ outcome: ProviderOutcome) -> String? {
        if case .completed(.oneTimeCode(let code)) = outcome { return code.revealed }
        return nil
    }

    /// oathtool's TOTP codes for `secret` at every second from `start - 1` to `end + 1`.
    static func oathtoolTOTP(_ secret: String, from start: Date, to end: Date) throws -> Set<String> {
        let first = Int64(start.timeIntervalSince1970.rounded(.down)) - 1
        let last = Int64(end.timeIntervalSince1970.rounded(.down)) + 1
        return Set(try (first...last).map { try oathtool(["--totp=SHA1", "-b", "-d", "6", "-s", "30s", "--now", "@\($0)", "-"], key: secret) })
    }

    /// Runs oathtool with the key on standard input (never on its command line).
    static func oathtool(_ arguments: [String], key: String) throws -> String {
        try Oathtool.run(arguments, key: key)
    }

    /// No captured log line holds any of `secrets` (in any case) or `codes`.
    func expectLogsClean(of secrets: [String], codes: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        for line in log.all {
            for secret in secrets {
                #expect(!line.lowercased().contains(secret.lowercased()), "\(line)", sourceLocation: sourceLocation)
            }
            for code in codes {
                #expect(!line.contains(code), "\(line)", sourceLocation: sourceLocation)
            }
        }
    }

    // MARK: Identities

    @Test(arguments: Isolated.modes)
    func publishesOneIdentityPerURIWithStableRecordIdentifiers(isolation: ProviderIsolation) throws {
        let file = try write([
            "# my codes",
            Self.totp,
            "",
            Self.hotp,
            "otpauth://totp/GitHub:carol?secret=\(Self.listSecret)",
        ])
        let store = InMemoryIdentityStore()
        _ = try load(isolation, settings: ["OTPAuthFile": file], store: store)
        let published = store.allIdentities.compactMap { identity -> OneTimeCodeCredentialIdentity? in
            if case .oneTimeCode(let otp) = identity { return otp }
            return nil
        }
        #expect(published.map(\.label) == ["Example:alice@example.com", "Counter:bob", "GitHub:carol"])
        #expect(published.map(\.serviceIdentifier) == [
            ServiceIdentifier(identifier: "example.com", type: .domain),  // af_domain
            ServiceIdentifier(identifier: "counter", type: .domain),  // the issuer, lower-cased
            ServiceIdentifier(identifier: "github", type: .domain),  // the label's issuer, lower-cased
        ])
        let records = published.compactMap(\.recordIdentifier)
        #expect(records.count == 3 && Set(records).count == 3)
        #expect(records.allSatisfy { $0.hasPrefix("otp-") && $0.count == 16 })
        #expect(log.contains("published 3 one-time-code identities"))

        // Reordered (and with the secret changed), a fresh load gives every URI the same record identifier.
        let reordered = try write([
            "otpauth://totp/GitHub:carol?secret=\(Self.totpSecret)", Self.hotp, Self.totp,
        ], to: "reordered.txt")
        let other = try TemporaryFolder()
        let store2 = InMemoryIdentityStore()
        _ = try load(isolation, settings: ["OTPAuthFile": reordered], store: store2, into: other.path)
        for identity in published {
            #expect(try Self.identity(identity.label, in: store2).recordIdentifier == identity.recordIdentifier)
        }
        expectLogsClean(of: [Self.totpSecret, Self.hotpSecret, Self.listSecret])
    }

    @Test(arguments: Isolated.modes)
    func aRepeatedIssuerAndAccountGetsASuffixAndAWarning(isolation: ProviderIsolation) async throws {
        let file = try write([Self.totp, "otpauth://totp/Example:alice@example.com?secret=\(Self.listSecret)&issuer=Example"])
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, settings: ["OTPAuthFile": file], store: store)
        let records = store.allIdentities.compactMap(\.recordIdentifier)
        #expect(records.count == 2)
        #expect(records.last == records[0] + "-2")
        #expect(log.contains("OTPAuthFile line 2 (Example:alice@example.com) has the issuer and account of line 1"))
        // Each record serves its own secret.
        let second = try #require(store.allIdentities.last.flatMap { identity -> OneTimeCodeCredentialIdentity? in
            if case .oneTimeCode(let otp) = identity { return otp }
            return nil
        })
        let start = Date()
        let code = try #require(Self.code(await provider.send(.credentialWithoutUserInteraction(.oneTimeCode(second)), deadline: TestDeadline.answer)))
        #expect(try Self.oathtoolTOTP(Self.listSecret, from: start, to: Date()).contains(code))
    }

    @Test(arguments: Isolated.modes)
    func anIssuerWithAColonKeepsItsAccount(isolation: ProviderIsolation) throws {
        // Line 1 as OTPAuthURI.string writes issuer "b:c", account "alice"; line 2 names the same
        // account without the issuer in its label.
        let file = try write([
            "otpauth://totp/b%3Ac:alice?secret=\(Self.totpSecret)&issuer=b%3Ac",
            "otpauth://totp/alice?secret=\(Self.listSecret)&issuer=b%3Ac",
        ])
        let store = InMemoryIdentityStore()
        _ = try load(isolation, settings: ["OTPAuthFile": file], store: store)
        #expect(store.allIdentities.map(\.displayUser) == ["b:c:alice", "alice"])
        #expect(log.contains("OTPAuthFile line 2 (alice) has the issuer and account of line 1"), "\(log.all)")
    }

    @Test(arguments: Isolated.modes)
    func withoutSettingsItPublishesNothingAndFindsNothing(isolation: ProviderIsolation) async throws {
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, settings: [:], store: store)
        #expect(store.allIdentities.isEmpty)
        let identity = OneTimeCodeCredentialIdentity(
            serviceIdentifier: .init(identifier: "example.com", type: .domain), label: "x", recordIdentifier: "otp-1")
        guard case .canceled(let error) = await provider.send(.credentialWithoutUserInteraction(.oneTimeCode(identity)), deadline: TestDeadline.answer)
        else { Issue.record("expected a cancel"); return }
        #expect(error.code == .credentialIdentityNotFound)
    }

    // MARK: TOTP

    @Test(arguments: Isolated.modes)
    func aTOTPCodeIsOathtoolsCodeForThatMoment(isolation: ProviderIsolation) async throws {
        let file = try write([Self.totp])
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, settings: ["OTPAuthFile": file], store: store)
        let identity = try Self.identity("Example:alice@example.com", in: store)

        let before = Date()
        let outcome = await provider.send(.credentialWithoutUserInteraction(.oneTimeCode(identity)), deadline: TestDeadline.answer)
        let after = Date()
        let code = try #require(Self.code(outcome), "\(outcome)")
        #expect(code.count == 6)
        #expect(try Self.oathtoolTOTP(Self.totpSecret, from: before, to: after).contains(code))

        // The UI entry point answers the same way (no lock to open).
        let start = Date()
        let again = try #require(Self.code(await provider.send(.interfaceToProvideCredential(.oneTimeCode(identity)), deadline: nil)))
        #expect(try Self.oathtoolTOTP(Self.totpSecret, from: start, to: Date()).contains(again))
        expectLogsClean(of: [Self.totpSecret], codes: [code, again])
    }

    @Test(arguments: Isolated.modes)
    func anIdentityWithoutItsRecordIsFoundByServiceAndLabel(isolation: ProviderIsolation) async throws {
        let file = try write([Self.totp])
        let provider = try load(isolation, settings: ["OTPAuthFile": file])
        let identity = OneTimeCodeCredentialIdentity(
            serviceIdentifier: .init(identifier: "example.com", type: .domain), label: "Example:alice@example.com")
        let start = Date()
        let code = try #require(Self.code(await provider.send(.credentialWithoutUserInteraction(.oneTimeCode(identity)), deadline: TestDeadline.answer)))
        #expect(try Self.oathtoolTOTP(Self.totpSecret, from: start, to: Date()).contains(code))
    }

    @Test(arguments: Isolated.modes)
    func anUnknownRecordIsCredentialIdentityNotFound(isolation: ProviderIsolation) async throws {
        let file = try write([Self.totp])
        let provider = try load(isolation, settings: ["OTPAuthFile": file])
        let unknown = OneTimeCodeCredentialIdentity(
            serviceIdentifier: .init(identifier: "example.org", type: .domain), label: "Nobody:mallory", recordIdentifier: "otp-000000000000")
        guard case .canceled(let error) = await provider.send(.credentialWithoutUserInteraction(.oneTimeCode(unknown)), deadline: TestDeadline.answer)
        else { Issue.record("expected a cancel"); return }
        #expect(error.code == .credentialIdentityNotFound)
        #expect(!(error.failureReason ?? "").contains(Self.totpSecret))

        // A password request is not for this provider.
        let password = PasswordCredentialIdentity(serviceIdentifier: .init(identifier: "example.com", type: .domain), user: "alice")
        guard case .canceled(let other) = await provider.send(.credentialWithoutUserInteraction(.password(password)), deadline: TestDeadline.answer)
        else { Issue.record("expected a cancel"); return }
        #expect(other.code == .failed)
    }

    // MARK: HOTP

    @Test(arguments: Isolated.modes)
    func hotpCodesAdvanceAndTheCounterSurvivesAFreshLoad(isolation: ProviderIsolation) async throws {
        let file = try write([Self.hotp])
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, settings: ["OTPAuthFile": file], store: store)
        let identity = try Self.identity("Counter:bob", in: store)
        // FNV-1a of "Counter", 0x1F, "bob": pinned, because records and counters are keyed by it.
        #expect(identity.recordIdentifier == "otp-e6c10a3076f3")
        let request = ProviderRequest.credentialWithoutUserInteraction(.oneTimeCode(identity))

        let first = try #require(Self.code(await provider.send(request, deadline: TestDeadline.answer)))
        let second = try #require(Self.code(await provider.send(request, deadline: TestDeadline.answer)))
        #expect(first == (try Self.oathtool(["--hotp", "-b", "-c", "5", "-"], key: Self.hotpSecret)))
        #expect(second == (try Self.oathtool(["--hotp", "-b", "-c", "6", "-"], key: Self.hotpSecret)))
        #expect(first != second)

        // The state file next to the OTPAuthFile: the next counter, mode 0600.
        let state = "\(file).state.json"
        let attributes = try FileManager.default.attributesOfItem(atPath: state)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: state))) as? [String: Any]
        let counters = json?["counters"] as? [String: Any]
        #expect((counters?[identity.recordIdentifier ?? ""] as? NSNumber)?.intValue == 7)
        let stateText = try String(contentsOfFile: state, encoding: .utf8)
        #expect(!stateText.contains(Self.hotpSecret) && !stateText.contains(first) && !stateText.contains(second))

        // A fresh load (another copy of the bundle) continues at 7.
        let other = try TemporaryFolder()
        let fresh = try load(isolation, settings: ["OTPAuthFile": file], into: other.path)
        let third = try #require(Self.code(await fresh.send(request, deadline: TestDeadline.answer)))
        #expect(third == (try Self.oathtool(["--hotp", "-b", "-c", "7", "-"], key: Self.hotpSecret)))
        // …and so does the first load, which reads the state file again for every code.
        let fourth = try #require(Self.code(await provider.send(request, deadline: TestDeadline.answer)))
        #expect(fourth == (try Self.oathtool(["--hotp", "-b", "-c", "8", "-"], key: Self.hotpSecret)))
        expectLogsClean(of: [Self.hotpSecret], codes: [first, second, third, fourth])
    }

    @Test(arguments: Isolated.modes)
    func theStateFileSettingIsHonouredAndADamagedOneIsNotReset(isolation: ProviderIsolation) async throws {
        let file = try write([Self.hotp])
        let state = "\(folder.path)/counters.json"
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, settings: ["OTPAuthFile": file, "StateFile": state], store: store)
        let request = ProviderRequest.credentialWithoutUserInteraction(.oneTimeCode(try Self.identity("Counter:bob", in: store)))
        #expect(Self.code(await provider.send(request, deadline: TestDeadline.answer)) != nil)
        #expect(FileManager.default.fileExists(atPath: state))
        #expect(!FileManager.default.fileExists(atPath: "\(file).state.json"))

        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: state))
        guard case .canceled(let error) = await provider.send(request, deadline: TestDeadline.answer)
        else { Issue.record("a damaged state file was reset"); return }
        #expect(error.code == .failed)
        #expect(error.failureReason?.contains("damaged") == true)
    }

    // MARK: The list

    @Test(arguments: Isolated.modes)
    func theListPutsMatchingEntriesFirstAndCompletesWithTheChosenOne(isolation: ProviderIsolation) async throws {
        let file = try write([
            "otpauth://totp/Other:zoe?secret=\(Self.totpSecret)&issuer=Other&af_domain=a.test",
            "otpauth://totp/Example:carol?secret=\(Self.listSecret)&issuer=Example&af_domain=example.com",
            "otpauth://totp/Ample:dan?secret=\(Self.totpSecret)&af_domain=ample.com",  // a suffix, not a parent
            Self.hotp,
            "otpauth://totp/Login:eve?secret=\(Self.totpSecret)&af_domain=login.example.com",
        ])
        let ui = ScriptedUI([.success(.choice(0)), .success(.choice(3)), .failure(.canceled)])
        let provider = try load(isolation, settings: ["OTPAuthFile": file], ui: ui)
        let services = [ServiceIdentifier(identifier: "https://user@Login.Example.com:8443/sign-in?next=/", type: .url)]

        let start = Date()
        let chosen = try #require(Self.code(await provider.send(.oneTimeCodeList(services), deadline: nil)))
        #expect(try Self.oathtoolTOTP(Self.listSecret, from: start, to: Date()).contains(chosen))
        guard case .choose(_, let items) = ui.asked.first else { Issue.record("no list shown"); return }
        #expect(items == ["Example:carol — example.com", "Login:eve — login.example.com",
                          "Other:zoe — a.test", "Ample:dan — ample.com", "Counter:bob — counter"])

        // With no service identifiers the list is in file order; an HOTP entry uses (and advances) its counter.
        let hotp = try #require(Self.code(await provider.send(.oneTimeCodeList([]), deadline: nil)))
        #expect(hotp == (try Self.oathtool(["--hotp", "-b", "-c", "5", "-"], key: Self.hotpSecret)))
        guard case .choose(_, let unsorted) = ui.asked.last else { Issue.record("no list shown"); return }
        #expect(unsorted.map { $0.prefix(3) } == ["Oth", "Exa", "Amp", "Cou", "Log"])

        #expect(await provider.send(.oneTimeCodeList(services), deadline: nil) == .canceled(ExtensionError(.userCanceled)))
        guard case .canceled(let unavailable) = await provider.send(.oneTimeCodeList(services), deadline: nil)
        else { Issue.record("expected a cancel"); return }
        #expect(unavailable.code == .failed)
        #expect(unavailable.failureReason?.contains("needs the host's UI") == true)
        expectLogsClean(of: [Self.totpSecret, Self.listSecret, Self.hotpSecret], codes: [chosen, hotp])
    }

    @Test(arguments: Isolated.modes)
    func aDomainIdentifierMatchesItsParentDomainEntries(isolation: ProviderIsolation) async throws {
        let file = try write([
            "otpauth://totp/Other:zoe?secret=\(Self.totpSecret)&af_domain=a.test",
            "otpauth://totp/Example:carol?secret=\(Self.listSecret)&issuer=Example&af_domain=example.com",
        ])
        let ui = ScriptedUI([.success(.choice(0))])
        let provider = try load(isolation, settings: ["OTPAuthFile": file], ui: ui)
        let start = Date()
        let code = try #require(Self.code(await provider.send(
            .oneTimeCodeList([ServiceIdentifier(identifier: "www.example.com.", type: .domain)]), deadline: nil)))
        #expect(try Self.oathtoolTOTP(Self.listSecret, from: start, to: Date()).contains(code))
        guard case .choose(_, let items) = ui.asked.first else { Issue.record("no list shown"); return }
        #expect(items == ["Example:carol — example.com", "Other:zoe — a.test"])
    }

    // MARK: Malformed URIs

    @Test(arguments: Isolated.modes)
    func aMalformedURIIsSkippedAndItsSecretIsInNoLogLine(isolation: ProviderIsolation) async throws {
        let secrets = ["MFRGGZDFMZTWQ2LKNNWG23TP", "OBYXE43UOV3HO6DZPIZDEMZU", "GEZDGNBVGY3TQOJQGEZDGNBV",
                       "NBSWY3DPEB3W64TMMQQQ2LKN", "KRSXG5BAONSWG4TFOQQSCIJB", "ONSWG4TFOQQGC5BAOBXXG2LU"]
        let file = try write([
            "otpauth://totp/Bad:one?secret=\(secrets[0])1",  // not Base32
            "otpauth://totp/Bad:two?secret=\(secrets[1])&digits=9",
            "otpauth://hotp/Bad:three?secret=\(secrets[2])",  // no counter
            "otpauth://totp/Bad:four?sercet=\(secrets[3])",  // misspelt: the value is still redacted
            secrets[4],  // a bare secret, not a URI
            "otpauth://sotp/Bad:six?secret=\(secrets[5])",
            Self.totp,
        ])
        let store = InMemoryIdentityStore()
        let provider = try load(isolation, settings: ["OTPAuthFile": file], store: store)
        #expect(store.allIdentities.map(\.displayUser) == ["Example:alice@example.com"])
        let warnings = log.all.filter { $0.contains("skipped") }
        #expect(warnings.count == 6, "\(log.all)")
        #expect(warnings.allSatisfy { $0.hasPrefix("warning") })
        #expect(log.contains("OTPAuthFile line 2 skipped: invalid digits in otpauth://totp/Bad:two?secret=<REDACTED>&digits=9"))
        // The good entry still serves codes.
        let code = try #require(Self.code(await provider.send(
            .credentialWithoutUserInteraction(.oneTimeCode(try Self.identity("Example:alice@example.com", in: store))),
            deadline: TestDeadline.answer)))
        expectLogsClean(of: secrets + [Self.totpSecret], codes: [code])
    }

    @Test(arguments: Isolated.modes)
    func aSecretAnywhereButSecretEqualsIsInNoLogLine(isolation: ProviderIsolation) throws {
        let secrets = ["GAYTEMZUGU3DOOBZGAYTEMZU", "ORSXG5BAONSWG4TFOQQGC3TE", "MJQWIIDMNFXGKIDTMVRXEZLU",
                       "NVUXG4DMMFRWKZBAONSWG4TF", "NBUWIZDFNYQGM4TBM5WWK3TU"]
        let file = try write([
            "otpauth://totp/Bad:one?issuer=Bad;secret=\(secrets[0])",  // ; is no separator: no secret
            "otpauth://totp/Bad:two?secret=\(secrets[1])&issuer=Bad;SECRET=\(secrets[1])",  // a secret in the issuer
            "otpauth://totp/secret=\(secrets[2])?issuer=Bad",  // in the label
            "otpauth://totp/Bad:\(secrets[3].lowercased())?secret=\(secrets[3])&issuer=Bad",  // the label repeats it
            "otpauth://totp/Bad:five?issuer=Bad#secret=\(secrets[4])",  // in the fragment
            Self.totp,
        ])
        let store = InMemoryIdentityStore()
        _ = try load(isolation, settings: ["OTPAuthFile": file], store: store)
        #expect(store.allIdentities.map(\.displayUser) == ["Example:alice@example.com"])
        #expect(log.all.filter { $0.contains("skipped") }.count == 5, "\(log.all)")
        #expect(log.contains("OTPAuthFile line 1 skipped: no secret in otpauth://totp/Bad:one?issuer=Bad;secret=<REDACTED>"))
        #expect(log.contains("OTPAuthFile line 2 skipped: the issuer parameter of otpauth://totp/Bad:two?secret=<REDACTED>&issuer=Bad;SECRET=<REDACTED> holds a secret"))
        #expect(log.contains("OTPAuthFile line 3 skipped: no secret in otpauth://totp/secret=<REDACTED>?issuer=Bad"))
        #expect(log.contains("OTPAuthFile line 4 skipped: the label of otpauth://totp/<REDACTED>?secret=<REDACTED>&issuer=Bad holds a secret"))
        #expect(log.contains("OTPAuthFile line 5 skipped: no secret in otpauth://totp/Bad:five?issuer=Bad#<REDACTED>"))
        expectLogsClean(of: secrets + secrets.map { String($0.prefix(8)) })
    }
}
