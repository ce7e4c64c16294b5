import AutofillCore
import Foundation
import KDBX

/// An unlocked database's entries as the host sees them: identities (never a secret) and the
/// entry behind each record identifier. Recycle-bin entries are left out; expired ones are kept,
/// ranked last and marked in lists.
struct KeePassIndex: Sendable {
    /// The entries offered, by UUID.
    let entries: [String: KDBXEntry]
    /// Offered entries in database order.
    let ordered: [KDBXEntry]

    /// The passkeys stored in offered entries.
    let passkeys: [KeePassPasskey]

    /// The suffix of a one-time-code identity's record identifier (a password's is the UUID alone).
    static let oneTimeCodeSuffix = "#otp"

    /// The database's entries, placeholders and references resolved (``KeePassPlaceholders``).
    init(_ database: KDBXDatabase) {
        let placeholders = KeePassPlaceholders(database.entries)
        ordered = database.entries.filter { !$0.isInRecycleBin }.map(placeholders.resolved)
        entries = Dictionary(ordered.map { ($0.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        passkeys = ordered.compactMap(KeePassPasskey.init)
    }

    /// The passkey for `relyingParty` with `credentialID`.
    func passkey(relyingParty: String, credentialID: [UInt8]) -> KeePassPasskey? {
        passkeys.first { $0.relyingParty == relyingParty && $0.credentialID == credentialID }
    }

    /// Every identity: a password identity per URL of each entry with a password, a one-time-code
    /// identity per URL of each entry with a code, and one per passkey.
    func identities(now: Date = Date()) -> [CredentialIdentity] {
        passkeys.map { .passkey($0.identity) } + ordered.flatMap { entry -> [CredentialIdentity] in
            let services = entry.urls.compactMap(KeePassServices.service(for:))
            let rank = entry.isExpired(at: now) ? -1 : 0
            var identities: [CredentialIdentity] = []
            if !entry.password.isEmpty {
                identities += services.map { .password(PasswordCredentialIdentity(serviceIdentifier: $0, user: entry.userName, recordIdentifier: entry.uuid, rank: rank)) }
            }
            if KeePassOneTimeCode.has(entry) {
                identities += services.map {
                    .oneTimeCode(OneTimeCodeCredentialIdentity(serviceIdentifier: $0, label: Self.label(entry),
                                                               recordIdentifier: entry.uuid + Self.oneTimeCodeSuffix, rank: rank))
                }
            }
            return identities
        }
    }

    /// What the user sees for an entry: its user name, else its title.
    static func label(_ entry: KDBXEntry) -> String {
        entry.userName.isEmpty ? entry.title : entry.userName
    }

    /// The entry behind a password identity.
    func entry(for identity: PasswordCredentialIdentity) -> KDBXEntry? {
        identity.recordIdentifier.flatMap { entries[$0] }
    }

    /// The entry behind a one-time-code identity.
    func entry(for identity: OneTimeCodeCredentialIdentity) -> KDBXEntry? {
        guard let record = identity.recordIdentifier, record.hasSuffix(Self.oneTimeCodeSuffix) else { return nil }
        return entries[String(record.dropLast(Self.oneTimeCodeSuffix.count))]
    }

    /// Entries with a password, those for `services` first; for a list.
    func logins(for services: [ServiceIdentifier]) -> [KDBXEntry] {
        ordering(ordered.filter { !$0.password.isEmpty }, for: services)
    }

    /// Entries with a one-time code, those for `services` first.
    func oneTimeCodes(for services: [ServiceIdentifier]) -> [KDBXEntry] {
        ordering(ordered.filter(KeePassOneTimeCode.has), for: services)
    }

    /// `list` with the entries closest to `services` first (stable within each group).
    private func ordering(_ list: [KDBXEntry], for services: [ServiceIdentifier]) -> [KDBXEntry] {
        let scored = list.enumerated().map { item in
            (index: item.offset, entry: item.element, score: item.element.urls.compactMap(KeePassServices.service(for:))
                .map { KeePassServices.closeness(of: $0, to: services) }.max() ?? 0)
        }
        return scored.sorted { ($0.score, -$0.index) > ($1.score, -$1.index) }.map(\.entry)
    }

    /// A list line for an entry: "user — title (url)", marked when expired; control characters as spaces.
    static func line(_ entry: KDBXEntry, now: Date = Date()) -> String {
        let text = "\(label(entry)) — \(entry.title)\(entry.url.isEmpty ? "" : " (\(entry.url))")\(entry.isExpired(at: now) ? " [expired]" : "")"
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }
}
