import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillStore
import FoundationEssentials
import Glibc
import Logging

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Host configuration file (or folder holding config.plist).", valueName: "path"))
    var config: String?

    @Flag(name: .shortAndLong, help: "Print providers' log lines and the host's progress to stderr.")
    var verbose = false

    /// Sends log lines to stderr at the level the flags ask for (warnings by default).
    func bootstrapLogging() {
        let level: Logger.Level = verbose ? .debug : .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return EscapingLogHandler(handler)
        }
    }

    /// The configuration, found in lookup order. With `announcing` (commands that use its providers or
    /// change it), its warnings (unknown keys) and, for the built-in demo, the notice that the demo is
    /// in use go to stderr.
    func configurationFile(announcing: Bool = false) throws(AutofillError) -> ConfigurationFile {
        let file = try ConfigurationFile.locate(option: config, environment: ProcessInfo.processInfo.environment)
        guard announcing else { return file }
        for warning in file.warnings { printError("autofill: warning: the configuration \(file.path): \(warning)") }
        if let notice = file.demoNotice { printError("autofill: note: \(notice)") }
        return file
    }

    /// The configuration, the plugins found, the identity stores and the user's trust and fault records
    /// (`$XDG_STATE_HOME/autofill`, whatever the configuration says). A provider the user never approved
    /// is asked about at the terminal, or refused.
    func setup() throws(AutofillError) -> ProviderSetup {
        let environment = ProcessInfo.processInfo.environment
        let file = try configurationFile(announcing: true)
        HostHardening.apply(configuration: file.configuration)
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
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as AutofillError {
        printError("autofill: \(error)")
        throw ExitCode(error.exitStatus)
    }
}

/// Writes a line to stderr, control characters and escape sequences escaped (``DisplayText``): the
/// host made provider text safe where it entered, and this is the second line of defence.
func printError(_ text: String) {
    // write(2) on fd 2: no C stdio globals (not concurrency-safe) and no Foundation FileHandle.
    var bytes = Array((DisplayText.escaped(text, keepingNewlines: true) + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 { if written < 0 && errno == EINTR { continue }; return }
        offset += written
    }
}

/// Prints `value` as pretty, key-sorted JSON on stdout.
func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
