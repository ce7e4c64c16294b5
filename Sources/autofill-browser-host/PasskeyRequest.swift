internal import AutofillMatching
import FoundationEssentials

/// A passkey request of the extension's background (docs/BROWSER.md, "Passkeys"): a page's
/// `navigator.credentials.get` or `.create`, its `publicKey` options as the relying party's JSON
/// (`PublicKeyCredentialRequestOptionsJSON` or `…CreationOptionsJSON`, binary members base64url),
/// and the origin the browser reported for the frame (the background takes it from `sender`, never
/// from the page). The relying party id is checked against that origin here, under the rules
/// `autofill passkey` applies (``WebAuthnOrigin``), before anything is asked of the stores; the
/// command checks it again and builds clientDataJSON with that origin.
struct PasskeyRequest: Decodable {
    enum Action: String, Decodable {
        /// The passkeys the stores hold for the relying party id (those `allowCredentials` allows):
        /// positions, user names and provider names; never a secret. Nothing is signed.
        case suggest = "passkey-suggest"
        /// An assertion with `user`'s passkey (`autofill passkey get --user`), after the user picked it.
        case get = "passkey-get"
        /// A new passkey (`autofill passkey create`); `conditional` is the automatic upgrade after a
        /// password sign-in (`--conditional`: no UI, no prompt; a provider declines on its own rules).
        case create = "passkey-create"
        /// A page's WebAuthn signal (`signalUnknownCredential`, `signalAllAcceptedCredentials`,
        /// `signalCurrentUserDetails`): only its relying party id is checked against the origin; the
        /// stores are not asked, so the answer is the same whatever they hold.
        case signal = "passkey-signal"
    }

    let type: Action
    let origin: String
    /// The `publicKey` options as JSON text.
    let options: String
    /// What `options` are: "get" (sign in) or "create" (registration); for `passkey-suggest`.
    let ceremony: String?
    let user: String?
    let conditional: Bool?
    /// The top-level page's origin, for a frame not same-origin with its ancestors (the background
    /// takes it from the browser's frame tree): clientDataJSON then says crossOrigin and topOrigin.
    let topOrigin: String?

    /// The largest options the host takes (the CLI's own limit).
    static let maximumOptionsBytes = 1 << 20

    /// The members of the options the host reads itself: the relying party id and the allowed credentials.
    private struct Options: Decodable {
        struct RelyingParty: Decodable { let id: String? }
        struct Descriptor: Decodable { let id: String }
        let rpId: String?
        let rp: RelyingParty?
        let allowCredentials: [Descriptor]?
    }

    /// Whether these options create a passkey (else they sign in).
    var creates: Bool { type == .create || (type == .suggest && ceremony == "create") }

    /// The relying party id the options ask for, checked against the origin; or why it is refused.
    func relyingParty() -> Result<String, PasskeyRefusal> {
        guard BrowserRequest.isWebOrigin(origin) else {
            return .failure(PasskeyRefusal("the origin must be a web origin (http or https, a host, an optional port, nothing else)"))
        }
        guard options.utf8.count <= Self.maximumOptionsBytes, let parsed = try? JSONDecoder().decode(Options.self, from: Data(options.utf8)) else {
            return .failure(PasskeyRefusal("the passkey options are not the relying party's JSON (at most 1 MiB)"))
        }
        if let topOrigin, !BrowserRequest.isWebOrigin(topOrigin) {
            return .failure(PasskeyRefusal("the top origin must be a web origin (http or https, a host, an optional port, nothing else)"))
        }
        if type == .signal, parsed.rpId == nil {
            return .failure(PasskeyRefusal("a passkey signal names its relying party id (rpId)"))
        }
        if type == .get, !(user.map { !$0.isEmpty && $0.utf8.count <= 1_000 && !$0.contains(where: \.isNewline) } ?? false) {
            return .failure(PasskeyRefusal("passkey-get needs the user name the list showed"))
        }
        do {
            let checked = try WebAuthnOrigin(origin)
            return .success(try checked.relyingParty(creates ? parsed.rp?.id : parsed.rpId))
        } catch {
            return .failure(PasskeyRefusal(error.message))
        }
    }

    /// The credential ids (base64url) the options allow; empty allows any.
    var allowedCredentials: [String] {
        (try? JSONDecoder().decode(Options.self, from: Data(options.utf8)))?.allowCredentials?.map(\.id) ?? []
    }
}

/// Why a passkey request was refused before any command ran.
struct PasskeyRefusal: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
