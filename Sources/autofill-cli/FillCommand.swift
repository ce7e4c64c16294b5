import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillMatching
import FoundationEssentials

/// `autofill fill`: the fill session.
struct FillCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fill",
        abstract: "Fill a password or one-time code for a site: pick a suggestion, get the secret.",
        discussion: """
            Suggestions come from the providers' identity stores (as `autofill suggest` shows them). The \
            picked one's provider is asked without UI first (deadline: NoUIDeadlineSeconds); if it needs \
            you (a locked vault), its own UI runs in this terminal or from --ui-script. When it answered \
            without UI, autofill authenticates you itself (UserAuthentication policy: pam, confirm or \
            none). The secret is printed on stdout only.

            A term that is not a site (fastmail, github, Email/fastmail), or any term with --name, \
            searches by name, user and site as `autofill suggest` does; you pick from the list (or with \
            --pick / --user), and the login fills for its own site.

            Exit status: 0 filled; 1 nothing to fill; 20 cancelled; 21 a UI was needed and there is no \
            terminal or UI script; 22 you were not authenticated; 69 the providers failed; 65 bad input \
            or UI script; see `autofill --help` for the rest.

            Examples:
              autofill fill https://example.com/login
              autofill fill example.com --type otp --clip
              password=$(autofill fill example.com --user alice)
              eval "$(autofill fill example.com --pick 1 --format env)"
              autofill fill example.com --list --provider org.autofill.vault
              autofill fill fastmail --pick 1
            """).parsedAlone

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case password, otp

        var identityKind: CredentialIdentity.Kind { self == .otp ? .oneTimeCode : .password }
    }

    @OptionGroup var global: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Argument(help: ArgumentHelp("The site: a URL or a domain; or a name (fastmail).", valueName: "url|domain|name")) var service: String
    @Flag(help: "Search by name, user and site even when the term looks like a site.") var name = false
    @Option(help: "What to fill (default: password).") var type: Kind = .password
    @Flag(help: "Open a provider's full credential list instead of the suggestions.") var list = false
    @Option(help: ArgumentHelp("With --list: the provider whose list to open.", valueName: "id")) var provider: String?
    @Option(help: ArgumentHelp("Fill the Nth suggestion without asking.", valueName: "n")) var pick: Int?
    @Option(help: ArgumentHelp("Fill the best suggestion for this user name without asking.", valueName: "name")) var user: String?
    @Flag(help: "If a provider fails, try the next suggestion automatically.") var fallback = false
    @Option(help: "How to print the result: plain (the secret alone), env or json.") var format: OutputFormat = .plain
    @Flag(help: "Same as --format json.") var json = false
    @OptionGroup var clipboard: ClipboardOptions

    func validate() throws {
        if pick != nil && user != nil { throw ValidationError("give --pick or --user, not both") }
        if let pick, pick < 1 { throw ValidationError("--pick takes a position from 1") }
        if provider != nil && !list { throw ValidationError("--provider goes with --list") }
    }

    func run() async throws {
        global.bootstrapLogging()
        let clipboard = try self.clipboard.clipboard(format: format, json: json)
        try await reportingFillErrors(session) {
            let term = try SearchTerm(service, byName: name)
            let setup = try global.setup()
            setup.prestartHelper()  // its start overlaps reading the stores and ranking
            let router = try session.router(setup)
            let result: FillResult
            if list {
                guard case .site(let query) = term else {
                    throw AutofillError(.usage, "--list opens a provider's list for a site; \(term) is a name (a site has a dot: \(term).com)")
                }
                result = try await router.fillFromList(
                    providerID: try router.chooseProvider(
                        declaring: type == .otp ? .providesOneTimeCodes : .providesPasswords, id: provider,
                        title: "Whose list?", canceled: "Nothing was filled.").identifier,
                    kind: type.identityKind, services: query.serviceIdentifiers)
            } else {
                let choice: FillPick = pick.map { .position($0) } ?? user.map { .user($0) } ?? .interactive
                result = try await router.fillFromSuggestions(for: term, kind: type.identityKind, pick: { _ in choice }, fallback: fallback)
            }
            try FillOutput(result).deliver(as: json ? .json : format, clipboard: clipboard)
        }
    }
}

/// `autofill text`: text to insert, from a provider that declares ProvidesTextToInsert.
struct TextCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "text",
        abstract: "Choose text to insert from a provider (ProvidesTextToInsert); printed on stdout.", discussion: """
            Examples:
              autofill text
              autofill text --provider org.autofill.vault --clip
            """).parsedAlone

    @OptionGroup var global: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Option(help: ArgumentHelp("The provider to ask (default: the first enabled one that offers text).", valueName: "id"))
    var provider: String?
    @Option(help: "How to print the result: plain, env or json.") var format: OutputFormat = .plain
    @Flag(help: "Same as --format json.") var json = false
    @OptionGroup var clipboard: ClipboardOptions

    func run() async throws {
        global.bootstrapLogging()
        let clipboard = try self.clipboard.clipboard(format: format, json: json)
        try await reportingFillErrors(session) {
            let setup = try global.setup()
            setup.prestartHelper()  // its start overlaps reading the stores and ranking
            let router = try session.router(setup)
            let offering = setup.catalog.enabledIDs.filter { id in
                (try? setup.catalog.manifest(for: id))?.capabilities.contains(.providesTextToInsert) ?? false
            }
            guard let chosen = provider ?? offering.first else {
                throw FillFailure.nothingToFill("No enabled provider declares ProvidesTextToInsert.")
            }
            let result = try await router.insertText(providerID: chosen)
            try FillOutput(result).deliver(as: json ? .json : format, clipboard: clipboard)
        }
    }
}
