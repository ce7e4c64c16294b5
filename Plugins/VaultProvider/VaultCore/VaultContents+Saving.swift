public import AutofillCore

/// What the provider's iOS 26 entry points change: saved passwords, unused-password reports and
/// WebAuthn's signals.
extension VaultContents {
    /// Saves `password` for `user` at `service`: updates the login of that user whose service has
    /// the same host (else a parent or child domain of it), or adds a login when there is none.
    /// The saved entry, and whether it was added.
    public mutating func savePassword(_ password: Secret, user: String, for service: ServiceIdentifier) throws(VaultError)
        -> (entry: PasswordEntry, added: Bool)
    {
        guard !password.isEmpty else { throw VaultError(.invalidInput, "the password to save is empty") }
        let candidates = passwords.filter { $0.user == user }
        if var existing = ServiceInput.ordered(candidates, by: \.service, for: [service]).first,
            ServiceInput.closeness(of: existing.service, to: [service]) > 0
        {
            existing.password = password
            try update(.password(existing))
            return (existing, false)
        }
        let entry = PasswordEntry(id: Self.newID(), service: service, user: user, password: password)
        try add(.password(entry))
        return (entry, true)
    }

    /// The rank the Vault gives a login a site reported unused: below the default 0 of every other login.
    public static let unusedRank = -1

    /// Applies a credential-update report; a summary of what changed, without secrets.
    ///
    /// - unused password: the user's logins at that domain (same host, or a parent or child domain)
    ///   are kept but demoted to ``unusedRank``, so the site's other logins are suggested first
    ///   (a report is the site's word, not proof the password is gone);
    /// - unknown passkey: the passkey with that credential id at the relying party is removed;
    /// - accepted passkeys: the account's other passkeys at the relying party are removed (never
    ///   another account's: the user handle must match);
    /// - user details: the account's passkeys at the relying party take the new user name (the
    ///   Vault keeps no display name).
    public mutating func apply(_ update: CredentialUpdate) throws(VaultError) -> String {
        switch update {
        case .unusedPassword(let domain, let user):
            let service = ServiceIdentifier(identifier: domain, type: .domain)
            var demoted = 0
            for var login in passwords where login.user == user && ServiceInput.closeness(of: login.service, to: [service]) > 0 {
                guard login.rank > Self.unusedRank else { continue }
                login.rank = Self.unusedRank
                try self.update(.password(login))
                demoted += 1
            }
            return "\(demoted) login\(demoted == 1 ? "" : "s") of \(user) at \(domain) marked unused (rank \(Self.unusedRank))"
        case .unknownPasskey(let relyingParty, let credentialID):
            guard let passkey = passkey(relyingParty: relyingParty, credentialID: credentialID) else {
                return "no passkey with that credential id at \(relyingParty)"
            }
            _ = remove(id: passkey.id)
            return "removed the passkey of \(passkey.userName) at \(relyingParty), unknown to the relying party"
        case .acceptedPasskeys(let relyingParty, let userHandle, let accepted):
            let stale = passkeys.filter { $0.relyingParty == relyingParty && $0.userHandle == userHandle && !accepted.contains($0.credentialID) }
            for passkey in stale { _ = remove(id: passkey.id) }
            return "removed \(stale.count) passkey\(stale.count == 1 ? "" : "s") at \(relyingParty) the relying party no longer accepts"
        case .passkeyUserDetails(let relyingParty, let userHandle, let name, _):
            try PasskeyEntry.checkAccount(relyingParty: relyingParty, userName: name, userHandle: userHandle)
            var renamed = 0
            for var passkey in passkeys where passkey.relyingParty == relyingParty && passkey.userHandle == userHandle && passkey.userName != name {
                passkey.userName = name
                try self.update(.passkey(passkey))
                renamed += 1
            }
            return "\(renamed) passkey\(renamed == 1 ? "" : "s") at \(relyingParty) renamed to \(name)"
        }
    }
}
