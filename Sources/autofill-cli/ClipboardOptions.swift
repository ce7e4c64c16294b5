import ArgumentParser
import AutofillHost

/// `--clip` of the commands that fill: the secret goes to the clipboard, cleared after a while, and
/// not to stdout.
struct ClipboardOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(
        "Copy the secret to the clipboard instead of printing it (wl-copy, else xclip or xsel); cleared after 45 s unless it changed (AUTOFILL_CLIP_SECONDS)."))
    var clip = false

    /// The clipboard to copy to, found before anything is asked (so a missing tool fails first), or
    /// nil without `--clip`. With `--clip`, only the plain format applies.
    func clipboard(format: OutputFormat, json: Bool) throws -> (clipboard: Clipboard, delay: Double)? {
        guard clip else { return nil }
        if json || format != .plain {
            throw ValidationError("--clip copies the secret alone; it does not go with --json or --format \(json ? "json" : format.rawValue)")
        }
        let environment = ClientContext.current.environment
        return try reportingErrors {
            let delay = try ClipboardClearer.delay(environment: environment)
            return (try Clipboard.find(environment: environment), delay)
        }
    }
}

extension FillOutput {
    /// Prints the result in `format`, or, with a clipboard (`--clip`), copies the secret there.
    func deliver(as format: OutputFormat, clipboard: (clipboard: Clipboard, delay: Double)?) throws {
        if let clipboard { try copy(to: clipboard) } else { try print(as: format) }
    }

    /// Copies the secret to `clipboard` and starts its clearer; says on stderr which tool it used and when
    /// the clipboard is cleared.
    func copy(to clipboard: (clipboard: Clipboard, delay: Double)) throws {
        var secret = Array((password ?? code ?? text ?? "").utf8)
        defer { for index in secret.indices { secret[index] = 0 } }
        try reportingErrors {
            try clipboard.clipboard.copy(secret)
            try ClipboardClearer.start(clipboard.clipboard, secret: secret, delay: clipboard.delay,
                                       watchingAgent: ClientContext.current.isAgentRequest)
        }
        let what = password != nil ? "password" : code != nil ? "one-time code" : "text"
        let whose = user.map { "\($0)'s " } ?? ""
        let seconds = clipboard.delay == clipboard.delay.rounded() ? "\(Int(clipboard.delay))" : "\(clipboard.delay)"
        printError("autofill: copied \(whose)\(what) to the clipboard with \(clipboard.clipboard.tool.rawValue); it is cleared in \(seconds) s unless it changes before.")
    }
}

/// `autofill-cli clipboard-clearer`: the process `--clip` leaves behind (``ClipboardClearer``). Not for
/// people: the secret comes on standard input.
struct ClipboardClearerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ClipboardClearer.commandName, abstract: "Clears the clipboard after --clip (internal).", shouldDisplay: false)

    @Option var tool: String
    @Option var seconds: Double
    @Flag var watchAgent = false

    func validate() throws {
        // The same range as AUTOFILL_CLIP_SECONDS (ClipboardClearer.delay): a number of milliseconds
        // that fits, never infinity or NaN.
        guard seconds.isFinite, seconds >= 0.1, seconds <= 3600 else {
            throw ValidationError("--seconds takes a number of seconds from 0.1 to 3600")
        }
    }

    func run() throws {
        guard let tool = Clipboard.Tool(rawValue: tool) else { throw ValidationError("unknown clipboard tool") }
        throw ExitCode(ClipboardClearer.run(tool: tool, delay: seconds, watchingAgent: watchAgent,
                                            environment: ClientContext.current.environment))
    }
}
