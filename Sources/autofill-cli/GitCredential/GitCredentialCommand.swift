import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillMatching
import AutofillWire

/// `autofill git-credential get|store|erase`: git's credential helper protocol (gitcredentials(7)).
/// git runs it as `git-credential-autofill`, a small client beside `autofill` that sends `get` to the
/// agent like a fill.
struct GitCredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-credential",
        abstract: "git's credential helper (git runs it as git-credential-autofill).",
        discussion: """
            git reads what to fill (protocol, host and port, and the path when credential.useHttpPath is \
            on) from the helper's stdin; autofill never asks anything there or on stdout.

            get: fills a password from the suggestions for protocol://host[:port][/path] and prints \
            username= and password=: for git's user name when git names one, else the one saved for that \
            very path, else the only one for that very host (the site's other hosts' logins never replace \
            it), else the one you choose. A choice, a locked provider or autofill's confirmation is asked at \
            the terminal, as `autofill fill` asks; without a terminal, for anything but http and https, or \
            when nothing matches, it prints nothing and git asks its other helpers or you.

            store: saves the password git used successfully, as `autofill save SITE --user USER` does (not \
            when it is the one autofill gave git: that one is saved already).

            erase: reports a password the server rejected: `autofill report unused-password SITE --user USER`. \
            git takes an erased password as gone: get does not give git that login (every login at the \
            host when git names no user) until git stores one; the agent remembers this, a process of \
            its own does not. An empty user name with an empty password (single sign-on) that git \
            stores is given back the same way, from the agent's memory, until git erases it. With a path (credential.useHttpPath), get never gives a login saved for \
            another path of the host.

            store goes to the provider holding that login, else the first writable one in your order \
            (one that declares SupportsSavePasswordCredentials). A store that no provider took says so in \
            one line on stderr (user and site, never the password); -v says why. Without the agent, a \
            store of a login autofill filled in the last 5 minutes is quiet: git stores the password that \
            worked right after a get, and a process of its own cannot tell it from a new one (-v says it).

            store and erase print nothing else; they do nothing for short-lived tokens \
            (password_expiry_utc) and ephemeral credentials. Other operations are ignored, as git asks. \
            -v says on stderr why nothing was given, saved or reported.

            Examples:
              git config --global credential.helper autofill
              git config --global credential.https://git.example.com.useHttpPath true
              printf 'protocol=https\\nhost=git.example.com\\n\\n' | git credential fill
              printf 'protocol=https\\nhost=git.example.com\\npath=team/app.git\\n\\n' | autofill git-credential get
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Argument(help: ArgumentHelp("What git asks: get, store or erase (anything else is ignored).", valueName: "operation"))
    var operation: String

    func run() async throws {
        global.bootstrapLogging()
        switch operation {
        case "get": try await get()
        case "store", "erase": await hand(operation)
        default: note("git asked for \(operation), which autofill does not do; ignored")
        }
    }

    /// A note on stderr with `--verbose`; otherwise the helper is quiet, so git falls back as usual.
    func note(_ text: String) {
        if global.verbose { printError("autofill: git-credential: \(text)") }
    }

    /// The site of git's description on stdin, or nil (noted) when autofill has nothing to do with it.
    func readSite() -> (GitCredentialDescription, String)? {
        let description: GitCredentialDescription
        do {
            let context = ClientContext.current
            description = try GitCredentialDescription.read(from: context.console.input, cancellation: context.cancellation?.descriptor)
        } catch {
            note("git's description is not valid: \(error)")
            return nil
        }
        switch description.site {
        case .success(let site): return (description, site)
        case .failure(let refusal):
            note(refusal.description)
            return nil
        }
    }

    private func get() async throws {
        guard let (description, site) = readSite() else { return }
        let query: ServiceQuery
        do {
            query = try ServiceQuery(site)
        } catch {
            return note("\(error)")
        }
        if description.username?.isEmpty ?? true, GitEmptyLogins.shared.contains(origin: description.origin) {
            ClientContext.current.console.write("username=\npassword=\n", to: .output)
            return note("git stored an empty user name and password for \(description.origin) (single sign-on); given back")
        }
        try await reportingFillErrors(session) {
            do {
                guard try global.configurationFile().source != .embeddedDefault else {
                    return note("you have no autofill configuration, and the built-in demo never answers git")
                }
                let setup = try global.setup()
                setup.prestartHelper()  // its start overlaps reading the stores and ranking
                let router = try session.router(setup)
                // After a failure, another suggestion only for the user git named: never someone else's
                // password in place of the one the path chose.
                let result = try await router.fillFromSuggestions(
                    for: .site(query), kind: .password, pick: { pick(from: $0, for: description) },
                    fallback: description.username.map { !$0.isEmpty } ?? false, accept: { accepts($0, for: description) })
                guard case .password(let credential) = result.credential else { return }
                guard let answer = GitCredentialDescription.answer(user: credential.user, password: credential.password.revealed) else {
                    printError("autofill: \(result.providerName) gave a password for \(credential.user) that git cannot be given: its user name or password holds a line break or NUL, or is longer than git's lines; nothing was given (fix the entry in \(result.providerName))")
                    return
                }
                ClientContext.current.console.write(answer, to: .output)
                GitDeliveries.shared.record(site: site, user: credential.user, password: credential.password.revealed)
            } catch let failure as FillFailure where isQuiet(failure) {
                note(failure.description)
            }
        }
    }

    /// git's user name, when it names one; else the one suggestion saved for the very path git asks
    /// about (credential.useHttpPath: one repository's token among a host's); else the one login for
    /// git's very host (logins of the site's other hosts rank after it, and never replace it: no
    /// fallback); else the user's choice.
    func pick(from candidates: [Suggestion], for description: GitCredentialDescription) -> FillPick {
        if let user = description.username, !user.isEmpty { return .user(user) }
        let exact = candidates.indices.filter { candidates[$0].match == .exactURL }
        if description.path != nil, exact.count == 1, let only = exact.first { return .position(only + 1) }
        let sameHost = candidates.indices.filter { [.exactURL, .exactHost].contains(candidates[$0].match) }
        if sameHost.count == 1, let only = sameHost.first { return .position(only + 1) }
        return .interactive
    }

    /// Whether `get` may give git this suggestion: not a login git erased (until git stores one), and,
    /// when git names a path (credential.useHttpPath), not one saved for another path of the host.
    func accepts(_ suggestion: Suggestion, for description: GitCredentialDescription) -> Bool {
        if GitErasures.shared.isErased(origin: description.origin, user: suggestion.identity.displayUser) { return false }
        guard let path = description.path, !path.isEmpty, suggestion.match != .exactURL else { return true }
        let savedPath = IdentityIndex.serviceName(for: suggestion.identity)?.path ?? ""
        return savedPath.isEmpty || savedPath == "/"
    }

    /// Whether a failure leaves git to its other helpers without a word: nothing matched, the user
    /// said no or cancelled, or a question needed a terminal there is not.
    func isQuiet(_ failure: FillFailure) -> Bool {
        switch failure {
        case .nothingToFill, .canceled, .authenticationFailed, .authenticationUnavailable, .declined: true
        case .userInterfaceUnavailable: session.uiScript == nil  // a UI script that did not fit is an error, as for fill
        case .providersFailed, .providersRefused, .excludedCredential: false
        }
    }
}
