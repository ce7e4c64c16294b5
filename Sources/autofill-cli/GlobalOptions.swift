import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillStore
import FoundationEssentials
import Logging

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Host configuration file (or folder holding config.plist).", valueName: "path"))
    var config: String?

    @Flag(name: .shortAndLong, help: "Print providers' log lines and the host's progress to stderr.")
    var verbose = false

    @Flag(help: ArgumentHelp(
        "Run in this process, not through the agent (as AUTOFILL_AGENT=off does; docs/AGENT.md).",
        visibility: .default))
    var noAgent = false

    /// Sends log lines to the client's stderr at the level the flags ask for (warnings by default).
    func bootstrapLogging() {
        ConsoleLogHandler.bootstrap(level: verbose ? .debug : .warning)
    }

    /// The configuration, found in lookup order. With `announcing` (commands that use its providers or
    /// change it), its warnings (unknown keys) and, for the built-in demo, the notice that the demo is
    /// in use go to stderr.
    func configurationFile(announcing: Bool = false) throws(AutofillError) -> ConfigurationFile {
        let file = try ConfigurationFile.locate(option: config, environment: ClientContext.current.environment)
        guard announcing else { return file }
        for warning in file.warnings { printError("autofill: warning: the configuration \(file.path): \(warning)") }
        if let notice = file.demoNotice { printError("autofill: note: \(notice)") }
        return file
    }

    /// The configuration, the plugins found, the identity stores and the user's trust and fault records
    /// (`$XDG_STATE_HOME/autofill`, whatever the configuration says). A provider the user never approved
    /// is asked about at the terminal, or refused.
    func setup() throws(AutofillError) -> ProviderSetup {
        try setup(file: try configurationFile(announcing: true))
    }

    /// ``setup()`` for a configuration found (or made, by `init`) already.
    func setup(file: ConfigurationFile) throws(AutofillError) -> ProviderSetup {
        let environment = ClientContext.current.environment
        HostHardening.apply(configuration: file.configuration)
        // The agent holds the user's policy: a request's configuration may not ask for less.
        if let pool = ClientContext.current.pool { try pool.userPolicy.admit(file) }
        if ClientContext.current.isAgentRequest { AgentServer.current?.adoptIdleTimeout(from: file) }
        var setup = ProviderSetup(
            catalog: ProviderCatalog(file: file), stores: try file.identityStores(environment: environment),
            records: HostRecords(environment: environment), logger: Logger(label: "autofill.provider"))
        setup.notify = { printError("autofill: note: \($0)") }
        for warning in setup.catalog.warnings { printError("autofill: warning: \(warning)") }
        setup.unapprovedProviders = .askAtTerminal
        return setup
    }
}

/// Runs a command body, turning an ``AutofillError`` into its message on stderr and its exit status.
func reportingErrors<Result>(_ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch let error as AutofillError {
        throw reported(error)
    }
}
