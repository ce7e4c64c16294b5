import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillMatching
import FoundationEssentials
import AutofillSystem

/// `autofill passkey`: WebAuthn sign-in and registration with the providers' passkeys.
struct PasskeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey",
        abstract: "Sign in with a passkey or create one (WebAuthn), as a browser would.",
        discussion: """
            autofill plays the browser's part: it checks the relying party id against the origin (https, \
            a registrable suffix of the origin's host, never a public suffix), builds clientDataJSON, and \
            asks a provider to sign. The options are the relying party's JSON (as its server sends them \
            to navigator.credentials), read from --options FILE or stdin.

            Examples:
              autofill passkey get --origin https://example.com --options request.json --json
              autofill passkey create --origin https://example.com --options creation.json --json
            """,
        subcommands: [PasskeyGetCommand.self, PasskeyCreateCommand.self, PasskeySignalCommand.self])
}

/// Options shared by `passkey get` and `passkey create`.
struct PasskeyInput: ParsableArguments {
    @Option(help: ArgumentHelp("The page's origin, as https://example.com (http:// for localhost only).", valueName: "origin"))
    var origin: String

    @Option(help: ArgumentHelp("The relying party's options JSON; - or nothing reads stdin.", valueName: "file"))
    var options: String?

    @Option(help: ArgumentHelp(
        "Sign this SHA-256 client data hash (base64url) instead of building clientDataJSON; the output then omits clientDataJSON. Write it as --client-data-hash=HASH: a hash may start with -.",
        valueName: "hash"))
    var clientDataHash: String?

    @Option(help: ArgumentHelp(
        "The top-level page's origin, for a request of a frame not same-origin with its ancestors: clientDataJSON then says crossOrigin true and this topOrigin.",
        valueName: "origin"))
    var topOrigin: String?

    @Flag(help: "Print the PublicKeyCredential as JSON (toJSON(): base64url members) on stdout.")
    var json = false

    /// The options file's bytes and the name errors use for it.
    func readOptions() throws(AutofillError) -> (bytes: [UInt8], source: String) {
        guard let path = options, path != "-" else {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let input = ClientContext.current.console.input
                let count = (try? buffer.withUnsafeMutableBytes { raw in try Descriptors.read(input, into: raw) }) ?? -1
                guard count > 0 else { break }
                bytes += buffer[0..<count]
                guard bytes.count <= 1 << 20 else { throw AutofillError(.invalidData, "stdin: the options are larger than 1 MiB") }
            }
            guard !bytes.isEmpty else {
                throw AutofillError(.usage, "no options: give the relying party's options JSON with --options FILE or on stdin")
            }
            return (bytes, "stdin")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw AutofillError(.notFound, "\(path): no such file (the relying party's options JSON)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AutofillError(.io, "\(path): cannot be read")
        }
        return (Array(data), path)
    }

    /// The ceremony for this origin: the relying party id checked against it, the client data built
    /// for `challenge` (or the caller's `--client-data-hash` taken).
    func ceremony(_ kind: PasskeyCeremony.Kind, relyingPartyID: String?, challenge: [UInt8]) throws(AutofillError) -> PasskeyCeremony {
        let origin = try checkedOrigin()
        let clientDataHash = try givenClientDataHash()
        var top: WebAuthnOrigin?
        if let topOrigin {
            do {
                top = try WebAuthnOrigin(topOrigin)
            } catch {
                throw AutofillError(.invalidData, "--top-origin: \(error.message)")
            }
        }
        return try invalidInput { () throws(WebAuthnRequestError) in
            try PasskeyCeremony(kind: kind, origin: origin, requestedRelyingParty: relyingPartyID, challenge: challenge,
                                clientDataHash: clientDataHash, topOrigin: top)
        }
    }

    /// The checked origin.
    func checkedOrigin() throws(AutofillError) -> WebAuthnOrigin {
        do {
            return try WebAuthnOrigin(origin)
        } catch {
            throw AutofillError(.invalidData, error.message)
        }
    }

    /// The caller's client data hash, if given.
    func givenClientDataHash() throws(AutofillError) -> [UInt8]? {
        guard let clientDataHash else { return nil }
        guard let bytes = Base64URL.decode(clientDataHash) else {
            throw AutofillError(.invalidData, "--client-data-hash is not base64url (the alphabet A–Z a–z 0–9 - _)")
        }
        return bytes
    }
}

/// Turns a WebAuthn request error into the CLI's invalid-input error.
func invalidInput<T>(_ body: () throws(WebAuthnRequestError) -> T) throws(AutofillError) -> T {
    do {
        return try body()
    } catch {
        throw AutofillError(.invalidData, error.message)
    }
}

/// `autofill passkey get`: sign in.
struct PasskeyGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Sign in with a passkey: PublicKeyCredentialRequestOptionsJSON in, an assertion out.",
        discussion: """
            Suggestions are the providers' passkeys for the relying party id, filtered by allowCredentials \
            (empty: any). autofill authenticates you first (UserAuthentication policy: pam is user \
            verification, confirm is presence only), then asks the passkey's provider without UI; a \
            locked provider shows its own UI. userVerification "required" is met only by pam or by the \
            provider's own verification (its master password).

            Exit status: 0 signed; 1 no passkey fits; 20 cancelled; 21 a UI was needed and there is no \
            terminal; 22 you were not authenticated; 65 bad options, origin or relying party id; 69 the \
            providers failed.

            Examples:
              autofill passkey get --origin https://example.com --options request.json --json
              curl -s https://example.com/webauthn/options | autofill passkey get --origin https://example.com --json
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var session: SessionOptions
    @OptionGroup var input: PasskeyInput
    @Option(help: ArgumentHelp("Use the Nth suggestion without asking.", valueName: "n")) var pick: Int?
    @Option(help: ArgumentHelp("Use the passkey of this user name without asking.", valueName: "name")) var user: String?
    @Flag(help: "If a provider fails, try the next passkey automatically.") var fallback = false
    @Flag(help: "Open a passkey provider's own list (its passkeys and passwords) instead of the suggestions.") var list = false
    @Option(help: ArgumentHelp("With --list: the provider whose list to open.", valueName: "id")) var provider: String?

    func validate() throws {
        if provider != nil && !list { throw ValidationError("--provider goes with --list") }
        if list && (pick != nil || user != nil) { throw ValidationError("--list lets you choose in the provider's list; drop --pick and --user") }
        if pick != nil && user != nil { throw ValidationError("give --pick or --user, not both") }
        if let pick, pick < 1 { throw ValidationError("--pick takes a position from 1") }
    }

    func run() async throws {
        global.bootstrapLogging()
        try await reportingFillErrors(session) {
            let (bytes, source) = try input.readOptions()
            let options = try invalidInput { () throws(WebAuthnRequestError) in try PasskeyRequestOptions.parse(bytes, source: source) }
            let ceremony = try input.ceremony(.get, relyingPartyID: options.relyingPartyID, challenge: options.challenge)
            let parameters = ceremony.parameters(userVerification: options.userVerification, credentialIDs: options.allowCredentials,
                                                 extensionsJSON: options.extensionsJSON)
            let setup = try global.setup()
            setup.prestartHelper()  // its start overlaps reading the stores and ranking
            let router = try session.router(setup)
            let query = try invalidInput { () throws(WebAuthnRequestError) in
                do throws(ServiceNameError) { return try ServiceQuery(ceremony.relyingParty) } catch { throw WebAuthnRequestError(error.message) }
            }
            if list {
                let services = (try? ServiceQuery(ceremony.origin.serialized).serviceIdentifiers) ?? query.serviceIdentifiers
                let provider = try router.chooseProvider(declaring: .providesPasskeys, id: provider, title: "Whose list?",
                                                         canceled: "Nothing was signed.")
                try printResult(try await router.passkeyFromList(providerID: provider.identifier, services: services, parameters: parameters),
                                ceremony: ceremony)
                return
            }
            let engine = SuggestionEngine(catalog: setup.catalog, directory: setup.stores)
            for warning in engine.warnings { printError("autofill: warning: \(warning)") }
            let all = try AutofillError.fromStore { () throws(IdentityStoreError) in try engine.suggestions(for: query, kinds: [.passkey]) }
            // A passkey signs for its own relying party id only: exact matches, then allowCredentials.
            let forRelyingParty = all.filter { $0.match == .exactHost }
            let candidates = forRelyingParty.filter { suggestion in
                guard case .passkey(let identity) = suggestion.identity else { return false }
                return options.allowCredentials.isEmpty || options.allowCredentials.contains(identity.credentialID)
            }
            guard !candidates.isEmpty else {
                if forRelyingParty.isEmpty {
                    throw FillFailure.nothingToFill("No passkey for \(ceremony.relyingParty) in the enabled providers' stores.")
                }
                throw FillFailure.nothingToFill(
                    "None of your \(forRelyingParty.count) passkey(s) for \(ceremony.relyingParty) is among the \(options.allowCredentials.count) credential id(s) the relying party allows (allowCredentials).")
            }
            let choice: FillPick = pick.map { .position($0) } ?? user.map { .user($0) } ?? .interactive
            try printResult(try await router.fill(candidates, for: query, pick: choice, fallback: fallback, passkey: parameters),
                            ceremony: ceremony)
        }
    }
}

extension PasskeyGetCommand {
    /// A passkey: the PublicKeyCredential (`--json`) or a summary. A provider's list may answer with a
    /// password instead, printed as `fill` prints it.
    func printResult(_ result: FillResult, ceremony: PasskeyCeremony) throws {
        guard case .passkeyAssertion(let assertion) = result.credential else {
            try FillOutput(result).print(as: input.json ? .json : .plain)
            return
        }
        if input.json {
            print(PublicKeyCredentialJSON.assertion(assertion, clientDataJSON: ceremony.clientDataJSON))
        } else {
            let user = result.suggestion.map { " as \($0.identity.displayUser)" } ?? ""
            print("Signed in to \(ceremony.relyingParty)\(user) with \(result.providerName)'s passkey (\(result.authentication.method.rawValue)); --json prints the PublicKeyCredential.")
        }
    }
}

/// `autofill passkey create`: registration, standard or conditional.
struct PasskeyCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a passkey: PublicKeyCredentialCreationOptionsJSON in, a registration out.",
        discussion: """
            Standard: the provider (--provider, the only one that declares ProvidesPasskeys, or your choice) \
            creates the passkey with its own UI after autofill authenticated you.

            --conditional is the automatic passkey upgrade after a password sign-in: only providers that \
            declare SupportsConditionalPasskeyRegistration are asked, without any UI and without asking \
            you; a provider accepts only on its own rules (for the Vault: unlocked, a saved password for \
            this user that was filled recently, no passkey yet). A refusal prints nothing and exits 23; \
            --trace shows each provider's reason.

            Exit status: 0 created; 1 no provider declares passkeys; 20 cancelled; 21 a UI was needed and \
            there is no terminal; 22 you were not authenticated; 23 declined (--conditional); 24 the \
            provider already holds an excluded credential; 65 bad options, origin or relying party id; \
            69 the provider failed.

            Examples:
              autofill passkey create --origin https://example.com --options creation.json --json
              autofill passkey create --origin https://example.com --options creation.json --conditional
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var session: SessionOptions
    @OptionGroup var input: PasskeyInput
    @Option(help: ArgumentHelp("The provider to create the passkey with.", valueName: "id")) var provider: String?
    @Flag(help: "Automatic passkey upgrade: no UI, no prompt; providers that decline exit 23 quietly.") var conditional = false

    func validate() throws {
        if conditional && provider != nil { throw ValidationError("--conditional asks every provider that supports it; drop --provider") }
    }

    func run() async throws {
        global.bootstrapLogging()
        try await reportingFillErrors(session) {
            let (bytes, source) = try input.readOptions()
            let options = try invalidInput { () throws(WebAuthnRequestError) in try PasskeyCreationOptions.parse(bytes, source: source) }
            let ceremony = try input.ceremony(.create, relyingPartyID: options.relyingPartyID, challenge: options.challenge)
            let setup = try global.setup()
            setup.prestartHelper()  // its start overlaps reading the stores and ranking
            let router = try session.router(setup)
            let identity = PasskeyCredentialIdentity(
                relyingPartyIdentifier: ceremony.relyingParty, userName: options.userName, credentialID: [], userHandle: options.userHandle)
            let request = PasskeyRegistrationRequest(
                identity: identity,
                parameters: ceremony.parameters(
                    userVerification: options.userVerification, credentialIDs: options.excludeCredentials, algorithms: options.algorithms,
                    style: conditional ? .conditional : .standard, extensionsJSON: options.extensionsJSON))
            let result = conditional
                ? try await router.registerPasskeyConditionally(request)
                : try await router.registerPasskey(request, providerID: try router.chooseProvider(
                    declaring: .providesPasskeys, id: provider, title: "Create the passkey with",
                    canceled: "No passkey was created.").identifier)
            guard case .passkeyRegistration(let registration) = result.credential else {
                throw AutofillError(.internal, "\(result.providerName) answered a registration with a \(result.credential.kind)")
            }
            if input.json {
                print(try invalidInput { () throws(WebAuthnRequestError) in
                    try PublicKeyCredentialJSON.registration(registration, clientDataJSON: ceremony.clientDataJSON)
                })
            } else {
                print("Created a passkey for \(options.userName) at \(ceremony.relyingParty) with \(result.providerName); --json prints the PublicKeyCredential.")
            }
        }
    }
}
