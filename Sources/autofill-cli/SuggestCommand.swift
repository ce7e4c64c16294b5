import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillMatching
import AutofillStore
import FoundationEssentials

/// `autofill suggest`: the best identities for a site across the enabled providers, without
/// running any provider.
struct SuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "Suggest identities for a URL or domain, or by name, best first, across the enabled providers.",
        discussion: """
            Reads the providers' identity stores only: no provider code runs. The \
            order is documented in docs/RANKING.md: match quality (exact URL, exact \
            host, parent domains, same site), then rank, then your provider order. \
            Matching rules: docs/MATCHING.md.

            A term that is not a site (no scheme, and no dot or port before its first /: fastmail, \
            github, Email/fastmail), or any term with --name, searches by name: every identity whose \
            name (pass: the entry's path), user or site contains the term, case-insensitively, ranked \
            exact name, then prefix, then substring (docs/MATCHING.md, "Found by name"). A site with \
            no suggestions says on stderr how to search by name.

            Examples:
              autofill suggest https://example.com/login
              autofill suggest example.com --type otp --limit 3
              autofill suggest fastmail
              autofill suggest --name example.com
              autofill suggest example.com --json | jq '.suggestions[].user'
            """).parsedAlone

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case password, passkey, otp

        var identityKind: CredentialIdentity.Kind {
            switch self {
            case .password: .password
            case .passkey: .passkey
            case .otp: .oneTimeCode
            }
        }
    }

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("The site: a URL (https://example.com/login) or a domain (example.com); or a name (fastmail).",
                                 valueName: "url|domain|name"))
    var service: String
    @Flag(help: "Search by name, user and site even when the term looks like a site.") var name = false
    @Option(help: "Only this kind of identity (default: all).") var type: Kind?
    @Option(help: ArgumentHelp("At most this many suggestions.", valueName: "n")) var limit: Int?
    @Flag(help: "Print JSON (schema in docs/CLI.md).") var json = false

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit takes a number of suggestions, at least 1") }
    }

    func run() throws {
        global.bootstrapLogging()
        try reportingErrors {
            let term = try SearchTerm(service, byName: name)
            let setup = try global.setup()
            let engine = SuggestionEngine(catalog: setup.catalog, directory: setup.stores)
            for warning in engine.warnings { printError("autofill: warning: \(warning)") }
            let kinds = type.map { [$0.identityKind] } ?? Set(CredentialIdentity.Kind.allCases)
            var suggestions = try AutofillError.fromStore { () throws(IdentityStoreError) in
                try engine.suggestions(for: term, kinds: kinds)
            }
            if suggestions.isEmpty, let label = term.nameSearchLabel { printError(FlagAdvice.nameSearchHint(command: "suggest", label: label)) }
            if let limit { suggestions = Array(suggestions.prefix(limit)) }
            // At a terminal, without --limit: a screenful, and how many more there are.
            var more = 0
            if !json, limit == nil, let rows = ClientContext.current.console.terminalSize(.output)?.rows {
                let fitting = max(rows - 4, 3)  // the title, the header, the "more" line, the next prompt
                if suggestions.count > fitting {
                    more = suggestions.count - fitting
                    suggestions = Array(suggestions.prefix(fitting))
                }
            }
            let report = SuggestionReport(term: term, suggestions: suggestions)
            if json { try printJSON(report) } else { print(report.text) }
            if more > 0 { print("\(more) more (--limit \(suggestions.count + more) shows them all)") }
        }
    }
}

/// What `autofill suggest` prints.
struct SuggestionReport: Encodable {
    struct Query: Encodable {
        let input: String
        /// "site" or "name".
        let search: String
        let serviceIdentifiers: [ServiceIdentifier]
        let registrableDomain: String?
    }

    struct Entry: Encodable {
        struct Provider: Encodable {
            let id: String
            let displayName: String
        }

        struct Match: Encodable {
            let quality: String
            let description: String
            let service: String
        }

        let position: Int
        let provider: Provider
        let kind: String
        let user: String
        let recordIdentifier: String?
        let rank: Int
        let match: Match
        let identity: IdentityFile.Entry
    }

    let query: Query
    let suggestions: [Entry]

    init(term: SearchTerm, suggestions: [Suggestion]) {
        switch term {
        case .site(let query):
            self.query = Query(input: query.name.description,  // as parsed: never a user:password@ typed before the host
                               search: "site", serviceIdentifiers: query.serviceIdentifiers, registrableDomain: query.registrableDomain)
        case .name(let query):
            self.query = Query(input: query.term, search: "name", serviceIdentifiers: [], registrableDomain: nil)
        }
        self.suggestions = suggestions.enumerated().map { index, suggestion in
            Entry(position: index + 1, provider: .init(id: suggestion.providerID, displayName: suggestion.providerName),
                  kind: suggestion.identity.kind.rawValue, user: suggestion.identity.displayUser,
                  recordIdentifier: suggestion.identity.recordIdentifier, rank: suggestion.identity.rank,
                  match: .init(quality: suggestion.match.code, description: suggestion.match.description, service: suggestion.service),
                  identity: IdentityFile.Entry(suggestion.identity))
        }
    }

    var text: String {
        guard !suggestions.isEmpty else { return "No suggestions for \(query.input)." }
        let rows = suggestions.map { entry in
            ["\(entry.position).", entry.user.isEmpty ? "(no user name)" : entry.user,
             CredentialIdentity.Kind(rawValue: entry.kind)?.label ?? entry.kind, entry.provider.displayName,
             "\(entry.match.description): \(entry.match.service)"]
        }
        return (["Suggestions for \(query.input):"] + Table(header: ["#", "USER", "KIND", "PROVIDER", "WHY"], rows: rows).lines)
            .joined(separator: "\n")
    }
}

extension MatchQuality {
    /// A stable name for JSON: exactURL, exactHost, parentDomain, sameSite; exactName, namePrefix, nameSubstring.
    var code: String {
        switch self {
        case .exactURL: "exactURL"
        case .exactHost: "exactHost"
        case .parentDomain: "parentDomain"
        case .sameRegistrableDomain: "sameSite"
        case .exactName: "exactName"
        case .namePrefix: "namePrefix"
        case .nameSubstring: "nameSubstring"
        }
    }
}
