// AuthenticatorProvider: the sample provider for one-time codes only.
//
// It reads otpauth:// URIs (one per line) from the file named by its `OTPAuthFile` setting,
// publishes a one-time-code identity for each, and answers with real TOTP and HOTP codes made by
// AutofillOTP. HOTP counters live in the state file (setting `StateFile`, else
// `<OTPAuthFile>.state.json`). See docs/ONE_TIME_CODES.md.
//
// Secrets are read from the file at load (to publish identities) and again for each request,
// and dropped (their key bytes wiped) when the request is answered. No secret and no code is
// ever logged or put in a cancel reason.
import AutofillOTP
import AutofillProviderKit
import FoundationEssentials

/// The exported entry function named by Info.plist's AFProviderEntrySymbol.
@c(authenticator_provider_entry)
public func authenticatorProviderEntry(_ hostABIVersion: UInt32, _ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    ProviderExport.entry(AuthenticatorProvider.self, hostABIVersion: hostABIVersion, host: host)
}

/// A provider that declares only ProvidesOneTimeCodes.
final class AuthenticatorProvider: CredentialProvider, OneTimeCodeListProviding, CredentialProviding {
    let host: ProviderHost
    /// The `OTPAuthFile` setting; nil: not configured, no codes.
    let file: String?
    /// Where HOTP counters are kept.
    let counters: CounterFile?

    init(host: ProviderHost) throws {
        self.host = host
        file = host.setting("OTPAuthFile").flatMap { $0.isEmpty ? nil : $0 }
        counters = file.map { CounterFile(path: host.setting("StateFile").flatMap { $0.isEmpty ? nil : $0 } ?? "\($0).state.json") }
        guard let file else {
            host.log(.info, "no OTPAuthFile setting; serving no codes")
            return
        }
        let identities: [OneTimeCodeCredentialIdentity]
        do {
            identities = try OTPAuthFile.read(file, host: host, logProblems: true).map(\.identity)
        } catch {
            host.log(.warning, "\(error.reason); serving no codes")
            return
        }
        do {
            try host.identityStore.replace(with: identities.map { .oneTimeCode($0) })
            host.log(.info, "published \(identities.count) one-time-code identities")
        } catch {
            host.log(.debug, "identities not published: \(error)")
        }
    }

    // MARK: Entry points

    func provideCredentialWithoutUserInteraction(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        guard case .oneTimeCode(let identity) = credentialRequest else {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: "Authenticator provides one-time codes only"))
            return
        }
        let entries: [OTPEntry]
        switch readEntries() {
        case .success(let all): entries = all
        case .failure(let error):
            context.cancelRequest(withError: error)
            return
        }
        guard let entry = Self.find(identity, in: entries) else {
            context.cancelRequest(withError: ExtensionError(
                .credentialIdentityNotFound, failureReason: "no one-time code for \(identity.label) in the OTPAuthFile"))
            return
        }
        complete(context, with: entry)
    }

    /// No lock to open: the same as without UI.
    func prepareInterfaceToProvideCredential(for credentialRequest: CredentialRequest, context: ExtensionContext) {
        provideCredentialWithoutUserInteraction(for: credentialRequest, context: context)
    }

    func prepareOneTimeCodeCredentialList(for serviceIdentifiers: [ServiceIdentifier], context: ExtensionContext) {
        let entries: [OTPEntry]
        switch readEntries() {
        case .success(let all): entries = Self.matchingFirst(all, for: serviceIdentifiers)
        case .failure(let error):
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: error.failureReason))
            return
        }
        guard !entries.isEmpty else {
            context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the OTPAuthFile has no one-time codes"))
            return
        }
        do throws(UserInterfaceError) {
            let items = entries.map { Self.singleLine("\($0.label) — \($0.service)") }
            let chosen = try context.choose(title: "Authenticator: choose a one-time code", items: items)
            guard entries.indices.contains(chosen) else {
                context.cancelRequest(withError: ExtensionError(.failed, failureReason: "the host chose an item that does not exist"))
                return
            }
            complete(context, with: entries[chosen])
        } catch {
            switch error {
            case .canceled:
                context.cancelRequest(withError: ExtensionError(.userCanceled))
            case .unavailable(let reason):
                context.cancelRequest(withError: ExtensionError(
                    .failed, failureReason: "Authenticator needs the host's UI to choose a code: \(reason)"))
            }
        }
    }

    // MARK: Codes

    /// Completes with the entry's current code. HOTP: the counter is stored, advanced, before
    /// the code leaves, so that no code is served twice.
    func complete(_ context: ExtensionContext, with entry: OTPEntry) {
        let code: String
        switch entry.parameters.kind {
        case .totp:
            code = entry.parameters.code(at: Date())
        case .hotp(let initial):
            guard let counters else {
                context.cancelRequest(withError: ExtensionError(.failed, failureReason: "no HOTP state file"))
                return
            }
            do {
                code = entry.parameters.code(counter: try counters.take(entry.recordIdentifier, initial: initial))
            } catch {
                host.log(.error, "HOTP code for \(entry.label) not served: \(error.reason)")
                context.cancelRequest(withError: ExtensionError(.failed, failureReason: error.reason))
                return
            }
        }
        let result = context.completeOneTimeCodeRequest(using: Secret(code))
        host.log(.debug, "one-time code for \(entry.label): \(result)")
    }

    /// The file's entries now (it may have changed since the load), or why there are none.
    func readEntries() -> Result<[OTPEntry], ExtensionError> {
        guard let file else {
            return .failure(ExtensionError(
                .credentialIdentityNotFound, failureReason: "Authenticator is not configured: set its OTPAuthFile setting"))
        }
        do {
            return .success(try OTPAuthFile.read(file, host: host, logProblems: false))
        } catch {
            return .failure(ExtensionError(.failed, failureReason: error.reason))
        }
    }

    /// The entry for `identity`: by record identifier, else by service and label.
    static func find(_ identity: OneTimeCodeCredentialIdentity, in entries: [OTPEntry]) -> OTPEntry? {
        if let record = identity.recordIdentifier, let entry = entries.first(where: { $0.recordIdentifier == record }) {
            return entry
        }
        return entries.first {
            $0.label == identity.label && $0.service.lowercased() == identity.serviceIdentifier.identifier.lowercased()
        }
    }

    // MARK: Matching (kept simple: host equal to the service or below it)

    /// `entries` with those matching one of `serviceIdentifiers` first, each group in file order.
    static func matchingFirst(_ entries: [OTPEntry], for serviceIdentifiers: [ServiceIdentifier]) -> [OTPEntry] {
        let hosts = serviceIdentifiers.compactMap(host(of:))
        let matches = { (entry: OTPEntry) in
            let service = entry.service.lowercased()
            return hosts.contains { $0 == service || $0.hasSuffix("." + service) }
        }
        return entries.filter(matches) + entries.filter { !matches($0) }
    }

    /// The host of a service identifier, lower-cased: the identifier itself for a domain, the
    /// authority's host for a URL.
    static func host(of identifier: ServiceIdentifier) -> String? {
        var text = Substring(identifier.identifier.lowercased())
        if identifier.type == .url || text.contains("://") {
            guard let scheme = text.firstRange(of: "://") else { return nil }
            text = text[scheme.upperBound...]
            if let end = text.firstIndex(where: { "/?#".contains($0) }) { text = text[..<end] }
            if let at = text.lastIndex(of: "@") { text = text[text.index(after: at)...] }
            if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
                text = text[text.index(after: text.startIndex)..<close]
            } else if let colon = text.lastIndex(of: ":") {
                text = text[..<colon]
            }
        }
        while text.hasSuffix(".") { text = text.dropLast() }
        return text.isEmpty ? nil : String(text)
    }

    /// `text` with control characters (a label may hold a percent-encoded newline) as spaces.
    static func singleLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }
}
