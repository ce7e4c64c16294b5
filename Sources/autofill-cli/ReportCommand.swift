import ArgumentParser
import AutofillCore
import AutofillHost

/// `autofill report`: credential-update reports to the providers that declare SupportsCredentialUpdate.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Tell the providers a site no longer uses a credential (credential-update reports).",
        discussion: """
            Passkey reports (WebAuthn's signal API) are `autofill passkey signal`.
            """,
        subcommands: [ReportUnusedPasswordCommand.self])
}

/// `autofill report unused-password`.
struct ReportUnusedPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unused-password",
        abstract: "Report that a site no longer uses the user's password (reportUnusedPasswordCredential).",
        discussion: """
            Sent to each enabled provider that declares SupportsCredentialUpdate and whose store holds a \
            login for that user matching the site (or only to --provider ID). Each decides what to do:
            the Vault keeps the login but ranks it below the site's others.

            Examples:
              autofill report unused-password example.com --user alice
              autofill report unused-password https://git.example.com --user ci --provider org.autofill.vault

            Exit status: 0 delivered (stderr names the providers); 1 no provider holds that login; 21 a \
            provider needed UI (a locked vault) and there is no terminal or UI script; 64 bad argument; \
            69 the providers failed.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Argument(help: ArgumentHelp("The site: a domain or a URL.", valueName: "url|domain")) var service: String
    @Option(help: ArgumentHelp("The account's user name.", valueName: "name")) var user: String
    @Option(help: ArgumentHelp("Report to this provider only.", valueName: "id")) var provider: String?

    func run() async throws {
        global.bootstrapLogging()
        try await reportingFillErrors(session) {
            let query = try serviceQuery(service)
            let update = CredentialUpdate.unusedPassword(domain: query.name.hostText, user: user)
            try await deliver(update, global: global, session: session, provider: provider)
        }
    }
}

/// Sends `update` through the router and says on stderr who took it.
func deliver(_ update: CredentialUpdate, global: GlobalOptions, session: SessionOptions, provider: String?) async throws {
    let setup = try global.setup()
    let router = try session.router(setup)
    let handled = try await router.reportCredentialUpdate(update, providerID: provider)
    printError("Reported the \(update) to \(handled.joined(separator: ", ")).")
}
