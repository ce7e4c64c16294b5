internal import AutofillCore

extension ProviderSetup {
    /// What `autofill lock` did for one provider that declares `GPGAgent` (``GPGAgentCache``).
    public struct GPGAgentLock: Sendable, Equatable {
        public var id: String
        /// Whether gpg-agent holds no passphrase of its keys now.
        public var locked: Bool
        /// What to tell the user, or nil when there was nothing to say (no passphrase was cached).
        public var message: String?
    }

    /// Asks the gpg-agent of each enabled provider declaring `GPGAgent` (only `id`'s, when given) to forget the
    /// passphrases of the keys the provider listed (``GPGAgentCache``): whether its helper runs or not, since
    /// the passphrases live in gpg-agent. Says plainly what it could not clear.
    public func forgetGPGAgentPassphrases(of id: String?) -> [GPGAgentLock] {
        let context = SandboxContext(setup: self)
        var result: [GPGAgentLock] = []
        for enabled in catalog.enabledIDs where id == nil || enabled == id {
            guard let manifest = try? catalog.manifest(for: enabled), manifest.sandbox.gpgAgentHomeSetting != nil else { continue }
            let named = "\(manifest.displayName) (\(manifest.identifier))"
            guard let home = gpgAgentHome(of: manifest) else { continue }  // no GnuPG home: nothing to cache
            let keygrips = context.runtimeFolder(enabled).flatMap(GPGAgentCache.keygrips(inFolder:))
            let outcome = GPGAgentCache.clear(home: home, keygrips: keygrips, environment: context.environment)
            if let problem = outcome.problem {
                result.append(GPGAgentLock(id: enabled, locked: false, message: "\(named) is not locked: \(problem)"))
            } else if !outcome.cleared.isEmpty {
                let keys = outcome.cleared.count == 1 ? "1 key" : "\(outcome.cleared.count) keys"
                result.append(GPGAgentLock(id: enabled, locked: true, message: "gpg-agent forgot the passphrase of \(keys) of \(named) (GnuPG home \(home))."))
            } else {
                result.append(GPGAgentLock(id: enabled, locked: true, message: nil))
            }
        }
        return result
    }
}
