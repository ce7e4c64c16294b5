import AutofillCore
import AutofillHost
import AutofillMatching

/// `store` and `erase`: what git learned about a password, handed to the save-password entry point
/// and the unused-password report (as `autofill save` and `autofill report unused-password` do),
/// quietly, except a `store` that no provider took: that says so in one line on stderr. They run where `get` runs, in the agent when one is running: its providers are the ones
/// the user unlocked, and its questions go to the terminal of git's user.
extension GitCredentialCommand {
    func hand(_ operation: String) async {
        guard let (description, site) = readSite() else { return }
        guard let user = description.username, !user.isEmpty else {
            if operation == "store", description.username != nil, description.password == "" {
                GitEmptyLogins.shared.stored(origin: description.origin)
                return note("git stored an empty user name and password for \(description.origin) (single sign-on): given back to git while autofill remembers it; no provider was told")
            }
            if operation == "erase" {
                GitEmptyLogins.shared.forget(origin: description.origin)
                GitErasures.shared.erase(origin: description.origin, user: nil)
                return note("git names no user name: no login at \(description.origin) is given to git until it stores one; no provider was told")
            }
            return note("git names no user name; nothing to \(operation)")
        }
        guard !user.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return note("git's user name holds control characters; nothing to \(operation)")
        }
        do {
            let query = try serviceQuery(site)
            if operation == "store" {
                guard let password = description.password, !password.isEmpty else { return note("git gave no password; nothing to store") }
                guard !description.expires && !description.ephemeral else {
                    return note("git's password is a short-lived token (password_expiry_utc or ephemeral); not saved")
                }
                // git stores every password that worked, the ones autofill gave it too: those are
                // already saved, and replacing them would ask the user after every fetch.
                guard !GitDeliveries.shared.gave(site: site, user: user, password: password) else {
                    return note("git gives back the password autofill gave it for \(user) at \(site); nothing to store")
                }
                let setup = try global.setup()
                let router = try session.router(setup)
                let result = try await router.savePassword(PasswordCredential(user: user, password: Secret(password)), for: query, providerID: nil)
                GitErasures.shared.stored(origin: description.origin, user: user)
                GitEmptyLogins.shared.forget(origin: description.origin)
                note("saved \(user)'s password for \(site) in \(result.providerName)")
            } else {
                // git takes an erased password as gone: it is not given to git again until git stores one.
                GitErasures.shared.erase(origin: description.origin, user: user)
                let setup = try global.setup()
                let router = try session.router(setup)
                let update = CredentialUpdate.unusedPassword(domain: query.name.hostText, user: user)
                let handled = try await router.reportCredentialUpdate(update, providerID: nil)
                note("reported the \(update) to \(handled.joined(separator: ", "))")
            }
        } catch {
            note("nothing was \(operation == "store" ? "saved" : "reported"): \(error)")
            // A password git asked to store and no store took is never dropped without a word: one
            // line, whatever -v says (the user name and site only; -v adds why, above).
            if operation == "store" && !global.verbose && !isHeldWithoutAgent(user: user, site: site) {
                printError("autofill: git's password for \(user) at \(site) was not saved (credential.helper 'autofill -v' says why)")
            }
        }
    }

    /// Whether this runs in a process of its own (no agent: ``GitDeliveries`` cannot know what `get`
    /// gave git) and autofill filled that very login at `site` within the last minutes
    /// (``RecentFills``): git stores the password that worked right after a `get`, and a store no
    /// provider can take is then not said after every fetch (`-v` says it).
    private func isHeldWithoutAgent(user: String, site: String) -> Bool {
        guard ClientContext.current.pool == nil, let setup = try? global.setup(), let router = try? session.router(setup),
              let query = try? ServiceQuery(site) else { return false }
        return (try? router.filledRecently(user: user, for: query)) ?? false
    }
}
