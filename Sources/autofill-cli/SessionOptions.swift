import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillWire
import FoundationEssentials

/// Options of commands that may talk to providers and the user.
struct SessionOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Answer providers' prompts and lists from this file instead of the terminal; never autofill's own confirmation (docs/CLI.md).",
        valueName: "file"))
    var uiScript: String?

    @Flag(help: ArgumentHelp(
        "Ask providers' prompts as JSON lines over standard input, a socket (autofill-browser-host's prompt window; docs/BROWSER.md).",
        visibility: .hidden))
    var uiChannel = false

    @Flag(help: "Print which provider answered what to stderr as it happens (secrets redacted).")
    var trace = false

    /// The UI for providers' prompts and the host's lists: a UI script, else the terminal, else none
    /// (requests then fail with a clear reason). The host's own authentication never uses it.
    func userInterface(progress: ProgressLine? = nil) throws(AutofillError) -> any ProviderUserInterface {
        if let uiScript { return try ScriptedUserInterface(path: uiScript) }
        if uiChannel {
            guard let channel = ChannelUserInterface.open(descriptor: ClientContext.current.console.input) else {
                throw AutofillError(.invalidData, "--ui-channel needs a socket on standard input")
            }
            return channel
        }
        if let terminal = TerminalUserInterface.open(progress: progress) { return terminal }
        return UnavailableUserInterface(reason: "there is no terminal: run in a terminal or pass --ui-script FILE")
    }

    /// A router over the configuration's providers: providers' UI from ``userInterface()``, the
    /// host's own authentication on the controlling terminal only (``HostPrompts``), or, under
    /// `--ui-channel`, in the prompt window (``ChannelHostPrompts``). `progress` is erased
    /// while a provider asks something.
    func router(_ setup: ProviderSetup, progress: ProgressLine? = nil) throws(AutofillError) -> FillRouter {
        let ui = try userInterface(progress: progress)
        // Under --ui-channel (the browser's prompt window) PAM's questions and confirm's yes/no go there, marked as autofill's own.
        let hostUI: any ProviderUserInterface = (ui as? ChannelUserInterface).map { ChannelHostPrompts(channel: $0) } ?? HostPrompts.open()
        var onEntry: (@Sendable (RequestTrace.Entry) -> Void)?
        if trace { onEntry = { entry in printError("trace: " + entry.description) } }
        return FillRouter(
            setup: setup, ui: ui, authenticator: setup.catalog.file.userAuthenticator(ui: hostUI),
            deadline: setup.catalog.file.configuration.noUIDeadline,
            trace: RequestTrace(onEntry: onEntry),
            notify: { printError("autofill: \($0)") }, advice: FlagAdvice.advice)
    }
}

/// How a credential is printed (on stdout: the only place a secret ever goes).
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    /// The secret alone (password, code or text), one line.
    case plain
    /// Shell assignments: AUTOFILL_USER, AUTOFILL_PASSWORD / AUTOFILL_CODE / AUTOFILL_TEXT.
    case env
    /// The documented JSON object (docs/CLI.md).
    case json
}

/// Prints a fill's result in `format`.
struct FillOutput: Encodable {
    struct Provider: Encodable {
        let id: String
        let displayName: String
    }

    let kind: String
    let user: String?
    let password: String?
    let code: String?
    let text: String?
    let service: String?
    let provider: Provider
    let authentication: UserAuthentication

    init(_ result: FillResult) {
        var kind = "", user: String?, password: String?, code: String?, text: String?
        switch result.credential {
        case .password(let credential):
            kind = "password"
            user = credential.user
            password = credential.password.revealed
        case .oneTimeCode(let secret):
            kind = "oneTimeCode"
            code = secret.revealed
            user = result.suggestion?.identity.displayUser
        case .text(let secret):
            kind = "text"
            text = secret.revealed
        case .generatedPassword(let secret):
            kind = "generatedPassword"
            password = secret.revealed
        case .passkeyAssertion, .passkeyRegistration, .configurationCompleted, .passwordSaved, .updateReported:
            kind = "\(result.credential.kind)"
        }
        self.kind = kind
        self.user = user
        self.password = password
        self.code = code
        self.text = text
        service = result.suggestion?.service
        provider = Provider(id: result.providerID, displayName: result.providerName)
        authentication = result.authentication
    }

    func print(as format: OutputFormat) throws {
        switch format {
        case .json:
            try printJSON(self)
        case .plain:
            printLine(password ?? code ?? text ?? "")
        case .env:
            var lines: [String] = []
            if let user { lines.append("AUTOFILL_USER=\(Self.shellQuoted(user))") }
            if let password { lines.append("AUTOFILL_PASSWORD=\(Self.shellQuoted(password))") }
            if let code { lines.append("AUTOFILL_CODE=\(Self.shellQuoted(code))") }
            if let text { lines.append("AUTOFILL_TEXT=\(Self.shellQuoted(text))") }
            lines.append("AUTOFILL_PROVIDER=\(Self.shellQuoted(provider.id))")
            printLine(lines.joined(separator: "\n"))
        }
    }

    /// 'text' with every ' written as '\''.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}

/// Runs an async command body, turning the host's errors into messages and exit statuses
/// (``reported(_:uiScripted:)``). With a UI script, "no UI" means the script did not fit what was
/// asked: bad input (65), not a missing terminal.
func reportingFillErrors(_ session: SessionOptions, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as AutofillError {
        throw reported(error)
    } catch let failure as FillFailure {
        throw reported(failure, uiScripted: session.uiScript != nil)
    }
}
