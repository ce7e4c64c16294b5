import ArgumentParser
import AutofillCore
import AutofillHost

/// `autofill generate`: a password from a provider that declares SupportsGeneratePasswordCredentials.
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate a password for a site, honouring its password rules; printed on stdout.",
        discussion: """
            --rules takes Apple's passwordrules syntax: rules separated by ";", classes by ",":
              minlength: N; maxlength: N; max-consecutive: N (identical characters in a row)
              required: CLASSES (one rule per requirement: "required: digit, upper" is digit OR upper)
              allowed: CLASSES (what else the password may use)
            Classes: upper, lower, digit, special, ascii-printable, unicode, or the characters in [ ]. \
            Without allowed or required, any ASCII printable character is allowed. autofill checks the \
            rules before any provider runs, and checks the provider's password against them. Nothing \
            is saved: `autofill save` does that.

            Which provider generates: --provider ID; else, with --user, the first enabled provider (in \
            your order) whose store holds that user's login at the site and that declares \
            SupportsGeneratePasswordCredentials; else the first enabled provider that declares it.

            Examples:
              autofill generate --for example.com
              autofill generate --for example.com --rules 'minlength: 20; required: lower; required: upper; required: digit; required: [-_!]'
              autofill generate --for bank.example --rules 'maxlength: 12; allowed: digit; max-consecutive: 2'
              NEW=$(autofill generate --for github.com --user octocat) && printf '%s\\n' "$NEW" | autofill save github.com --user octocat

            Exit status: 0 printed; 1 no provider generates passwords; 64 invalid rules (the message names \
            the rule) or bad argument; 69 the provider failed or broke the rules.
            """).parsedAlone

    @OptionGroup var global: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Option(name: .customLong("for"), help: ArgumentHelp("The site: a URL or a domain.", valueName: "url|domain")) var service: String
    @Option(help: ArgumentHelp("The site's password rules (Apple's passwordrules syntax).", valueName: "rules")) var rules: String?
    @Option(help: ArgumentHelp("The account's user name: the provider holding that login generates.", valueName: "name"))
    var user: String?
    @Option(help: ArgumentHelp("The provider that generates (default: see below).", valueName: "id"))
    var provider: String?

    func validate() throws {
        guard let rules else { return }
        do {
            _ = try PasswordRules.parse(rules)
        } catch {
            throw ValidationError("--rules: \(error.message)")
        }
    }

    func run() async throws {
        global.bootstrapLogging()
        try await reportingFillErrors(session) {
            let query = try serviceQuery(service)
            let setup = try global.setup()
            let router = try session.router(setup)
            let result = try await router.generatePassword(for: query, rules: rules, user: user, providerID: provider)
            try FillOutput(result).print(as: .plain)
        }
    }
}
