import ArgumentParser
import AutofillCore
import AutofillHost

/// `autofill passkey signal`: WebAuthn's signal API, as a browser relays it to the providers.
struct PasskeySignalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signal",
        abstract: "Relay a relying party's WebAuthn signal (unknown credential, accepted credentials, user details).",
        discussion: """
            Sent to each enabled provider that declares SupportsCredentialUpdate and whose store holds a \
            passkey for the relying party (or only to --provider ID). Ids and user handles are base64url. \
            The Vault removes a passkey the relying party does not know, removes the account's passkeys \
            it no longer accepts (never another account's), and renames the account's passkeys.

            Examples:
              autofill passkey signal unknown-credential --rp example.com --credential-id AAECAw
              autofill passkey signal accepted-credentials --rp example.com --user-handle dXNlcg --credential-id AAECAw --credential-id BAUG
              autofill passkey signal user-details --rp example.com --user-handle dXNlcg --name alice@example.com --display-name 'Alice'

            Exit status: 0 delivered; 1 no provider holds a passkey for the relying party; 21 a provider \
            needed UI and there is no terminal or UI script; 64 bad argument; 69 the providers failed.
            """,
        subcommands: [UnknownCredentialSignal.self, AcceptedCredentialsSignal.self, UserDetailsSignal.self])
}

/// Options every signal takes.
struct SignalOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Option(help: ArgumentHelp("The relying party id, as example.com.", valueName: "rp")) var rp: String
    @Option(help: ArgumentHelp("Signal this provider only.", valueName: "id")) var provider: String?

    func send(_ update: CredentialUpdate) async throws {
        global.bootstrapLogging()
        try await reportingFillErrors(session) {
            try await deliver(update, global: global, session: session, provider: provider)
        }
    }
}

/// A base64url argument's bytes; a usage error names the option.
func base64URL(_ text: String, _ option: String) throws -> [UInt8] {
    guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
        throw ValidationError("\(option) is not base64url (the alphabet A–Z a–z 0–9 - _, no padding needed)")
    }
    return bytes
}

/// `signalUnknownCredential`.
struct UnknownCredentialSignal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unknown-credential", abstract: "The relying party does not know this passkey (signalUnknownCredential).")

    @OptionGroup var options: SignalOptions
    @Option(help: ArgumentHelp("The credential id (base64url).", valueName: "b64url")) var credentialId: String

    func validate() throws { _ = try base64URL(credentialId, "--credential-id") }

    func run() async throws {
        try await options.send(.unknownPasskey(relyingParty: options.rp, credentialID: try base64URL(credentialId, "--credential-id")))
    }
}

/// `signalAllAcceptedCredentials`.
struct AcceptedCredentialsSignal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accepted-credentials",
        abstract: "The relying party accepts only these passkeys of the account (signalAllAcceptedCredentials).")

    @OptionGroup var options: SignalOptions
    @Option(help: ArgumentHelp("The account's user handle (base64url).", valueName: "b64url")) var userHandle: String
    @Option(help: ArgumentHelp("An accepted credential id (base64url); repeat for each; none: no passkey is accepted.",
                               valueName: "b64url"))
    var credentialId: [String] = []

    func validate() throws {
        _ = try base64URL(userHandle, "--user-handle")
        for id in credentialId { _ = try base64URL(id, "--credential-id") }
    }

    func run() async throws {
        try await options.send(.acceptedPasskeys(
            relyingParty: options.rp, userHandle: try base64URL(userHandle, "--user-handle"),
            credentialIDs: try credentialId.map { try base64URL($0, "--credential-id") }))
    }
}

/// `signalCurrentUserDetails`.
struct UserDetailsSignal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user-details", abstract: "The account's current name and display name (signalCurrentUserDetails).")

    @OptionGroup var options: SignalOptions
    @Option(help: ArgumentHelp("The account's user handle (base64url).", valueName: "b64url")) var userHandle: String
    @Option(help: ArgumentHelp("The account's user name now.", valueName: "name")) var name: String
    @Option(help: ArgumentHelp("The account's display name now.", valueName: "name")) var displayName: String

    func validate() throws {
        _ = try base64URL(userHandle, "--user-handle")
        guard !name.isEmpty else { throw ValidationError("--name is empty") }
    }

    func run() async throws {
        try await options.send(.passkeyUserDetails(
            relyingParty: options.rp, userHandle: try base64URL(userHandle, "--user-handle"), name: name, displayName: displayName))
    }
}
