import ArgumentParser
import AutofillCore
import AutofillHost
import AutofillMatching
import AutofillSystem

/// `autofill save`: save a password with a provider that declares SupportsSavePasswordCredentials.
struct SaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",
        abstract: "Save a password for a site: a new login, or a new password for the user's login there.",
        discussion: """
            The password comes from stdin when stdin is not a terminal (one line; the trailing newline is \
            removed; an empty line is refused), else autofill asks for it twice at the terminal without \
            echo. It is never printed, logged or traced.

            Which provider saves: --provider ID; else the first enabled provider (in your order) whose \
            store holds a login for that user at the site and that declares SupportsSavePasswordCredentials; \
            else the first enabled provider that declares it (a writable one: `autofill providers list` \
            shows capabilities). autofill finds it before asking for the password: with no writable \
            provider it asks nothing and exits 1. Replacing a login the stores already show is \
            authenticated like a fill (UserAuthentication policy); adding one is not.

            Examples:
              autofill save github.com --user octocat              # asks twice at the terminal
              printf '%s\\n' "$NEW" | autofill save https://example.com/login --user alice
              autofill save example.com --user alice --provider org.autofill.vault < password.txt

            Exit status: 0 saved (a line on stderr names user, site and provider); 1 no enabled provider \
            saves passwords (nothing was asked); 20 cancelled; 21 a UI was needed (a locked vault) and there is no terminal or UI \
            script; 22 you were not authenticated; 64 bad argument; 65 empty or unreadable password, or \
            the two differ; 69 the provider failed.
            """).parsedAlone

    @OptionGroup var global: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Argument(help: ArgumentHelp("The site: a URL or a domain.", valueName: "url|domain")) var service: String
    @Option(help: ArgumentHelp("The account's user name.", valueName: "name")) var user: String
    @Option(help: ArgumentHelp("The provider that saves (default: see below).", valueName: "id")) var provider: String?

    func run() async throws {
        global.bootstrapLogging()
        try await reportingFillErrors(session) {
            let query = try serviceQuery(service)
            let setup = try global.setup()
            let router = try session.router(setup)
            // Which provider saves is known before the password is asked: with none, nothing is asked.
            _ = try router.saveTarget(for: query, user: user, providerID: provider)
            let password = try PasswordInput.read(for: "\(user) at \(query.name.description)")
            let result = try await router.savePassword(PasswordCredential(user: user, password: password), for: query, providerID: provider)
            printError("Saved \(user)'s password for \(query.name.description) in \(result.providerName) (\(result.providerID)).")
        }
    }
}

/// The site argument as a query; a usage error names what is wrong with it.
func serviceQuery(_ text: String) throws(AutofillError) -> ServiceQuery {
    do {
        return try ServiceQuery(text)
    } catch {
        throw AutofillError(.invalidData, "\(error)")
    }
}

/// The password of `autofill save`: one line of stdin, or asked twice at the terminal.
enum PasswordInput {
    /// The longest password read.
    static let maximumBytes = 65536

    static func read(for whose: String) throws(AutofillError) -> Secret {
        let console = ClientContext.current.console
        if !Descriptors.isTerminal(console.input) {
            return try readLine(console.input)
        }
        let ui = HostPrompts.open()
        let first = try ask(ui, "New password for \(whose):")
        let second = try ask(ui, "The same password again:")
        guard first == second else { throw AutofillError(.invalidData, "the two passwords differ; nothing was saved") }
        return first
    }

    private static func ask(_ ui: any ProviderUserInterface, _ message: String) throws(AutofillError) -> Secret {
        let answer: UserInterfaceAnswer
        do {
            answer = try ui.present(.prompt(title: "Save a password", message: message, secret: true, maxLength: maximumBytes),
                                    providerName: "autofill")
        } catch {
            throw AutofillError(.usage, "no password: pipe it on stdin or run at a terminal (\(error))")
        }
        guard case .text(let password) = answer, !password.isEmpty else {
            throw AutofillError(.invalidData, "the password is empty; nothing was saved")
        }
        return password
    }

    /// The first line of `fd` without its newline (and a carriage return before it).
    static func readLine(_ fd: Int32) throws(AutofillError) -> Secret {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer { for index in buffer.indices { buffer[index] = 0 } }
        reading: while bytes.count <= maximumBytes {
            let read = buffer.withUnsafeMutableBytes { raw in Result { () throws(SystemError) in try Descriptors.read(fd, into: raw) } }
            let count: Int
            switch read {
            case .success(let got): count = got
            case .failure(let error): throw AutofillError(.io, "stdin could not be read (\(error.reason))")
            }
            guard count > 0 else { break }
            for byte in buffer[0..<count] {
                if byte == UInt8(ascii: "\n") { break reading }
                bytes.append(byte)
            }
        }
        guard bytes.count <= maximumBytes else { throw AutofillError(.invalidData, "stdin: the password is longer than \(maximumBytes) bytes") }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        guard !bytes.isEmpty else { throw AutofillError(.invalidData, "stdin: the password is empty; nothing was saved") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw AutofillError(.invalidData, "stdin: the password is not UTF-8 text")
        }
        return Secret(text)
    }
}
