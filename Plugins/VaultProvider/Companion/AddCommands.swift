import ArgumentParser
import Foundation
import AutofillCompanion
import VaultCore

/// `autofill-vault add-password`: a login.
struct AddPasswordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-password", abstract: "Add a login: a user name and password for a domain or URL.",
        discussion: """
            The password is asked twice at the terminal, or read from the line after the master password with --password-stdin.

            Examples:
              autofill-vault add-password --service example.com --user alice
              autofill-vault add-password --service https://example.com/login --user alice --generate --length 32
              printf '%s\\n%s\\n' "$master" "$password" | autofill-vault add-password --service example.com --user alice --password-stdin
            """)

    @OptionGroup var options: VaultOptions
    @OptionGroup var entry: EntryOptions

    @Option(help: ArgumentHelp("The domain (example.com) or URL (https://example.com/login) the login is for.", valueName: "service"))
    var service: String

    @Option(help: ArgumentHelp("The account's user name.", valueName: "user"))
    var user: String

    @Option(help: ArgumentHelp("Notes kept with the login (visible in the process list while this runs).", valueName: "text"))
    var notes: String?

    @Flag(help: "Generate a random password instead of asking for one.")
    var generate = false

    @Option(help: ArgumentHelp("The generated password's length.", valueName: "n"))
    var length = 24

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            let parsed = try ServiceInput.parse(self.service, naming: "--service")
            let service = parsed.service
            try access.update({ contents in
                let password = generate
                    ? try PasswordGenerator.generate(length: length)
                    : try access.secrets.secret(prompt: "Password for \(user) at \(service.identifier): ", what: "the password", confirm: true)
                guard !password.isEmpty else { throw CommandFailure(.badInput, "the password is empty; nothing was added") }
                let id = entry.id ?? VaultContents.newID()
                try contents.add(.password(PasswordEntry(
                    id: id, service: service, user: user, password: password, rank: entry.rank, notes: notes.map(Secret.init))))
                return id
            }, announce: { id in
                if let warning = parsed.warning(naming: "--service") {
                    let seen = parsed.removedUserInfo == .userAndPassword ? ". Other users can see a command line while it runs" : ""
                    printWarning(warning + seen + ".")
                }
                print("Added the login \(id): \(user) at \(service.identifier)\(generate ? " (generated password; `list --reveal` shows it)" : "").")
            })
        }
    }
}

/// `autofill-vault add-otp`: a one-time-code generator.
struct AddOneTimeCodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-otp", abstract: "Add a one-time-code generator from an otpauth://totp/ URI or a Base32 secret.",
        discussion: """
            The URI or secret is asked at the terminal without echo, or read from the line after the master password with --password-stdin.

            Examples:
              autofill-vault add-otp --service example.com --label alice@example.com
              autofill-vault add-otp --password-stdin < master-and-uri.txt
            """)

    @OptionGroup var options: VaultOptions
    @OptionGroup var entry: EntryOptions

    @Option(help: ArgumentHelp("The domain or URL the codes are for (default: the URI's af_domain).", valueName: "service"))
    var service: String?

    @Option(help: ArgumentHelp("What the user sees (default: the URI's label, else the service).", valueName: "label"))
    var label: String?

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            let given = try service.map { (text) throws(VaultError) in try ServiceInput.parse(text, naming: "--service") }
            try access.update({ contents -> (entry: OneTimeCodeEntry, warning: String?) in
                let text = try access.secrets.secret(prompt: "otpauth:// URI or Base32 secret: ", what: "the otpauth URI or secret")
                let account = label ?? given.flatMap { ServiceInput.host(of: $0.service.identifier) } ?? "account"
                let input = try OneTimeCodeEntry.parseInput(text, account: account)
                let fromURI = try input.domain.map { (domain) throws(VaultError) in try ServiceInput.parse(domain, naming: "the URI's af_domain") }
                guard let parsed = given ?? fromURI else {
                    throw CommandFailure(.usage, "say which site the codes are for with --service (the URI has no af_domain)")
                }
                let entry = OneTimeCodeEntry(
                    id: entry.id ?? VaultContents.newID(), service: parsed.service, label: label ?? input.label ?? account,
                    uri: input.uri, rank: entry.rank)
                try contents.add(.oneTimeCode(entry))
                return (entry, parsed.warning(naming: given == nil ? "the URI's af_domain" : "--service"))
            }, announce: { added, warning in
                if let warning { printWarning(warning + ".") }
                print("Added the one-time code \(added.id): \(added.label) at \(added.service.identifier).")
            })
        }
    }
}

/// `autofill-vault add-text`: a text snippet.
struct AddTextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-text", abstract: "Add a text snippet to insert (an address, a canned reply).",
        discussion: """
            The text comes from --file, or one line at the terminal, or all of standard input after the master password with --password-stdin.

            Examples:
              autofill-vault add-text --title "Home address" --file address.txt
            """)

    @OptionGroup var options: VaultOptions
    @OptionGroup var entry: EntryOptions

    @Option(help: ArgumentHelp("What the user sees in the list.", valueName: "title"))
    var title: String

    @Option(help: ArgumentHelp("Read the text from this file.", valueName: "path"))
    var file: String?

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            var fromFile: Secret?
            if let file {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw CommandFailure(.noInput, "cannot read the text file \(file)")
                }
                fromFile = Secret(String(decoding: data, as: UTF8.self))
            }
            try access.update({ contents in
                let text = try fromFile ?? access.secrets.text(prompt: "Text for \(title): ", what: "the text")
                guard !text.isEmpty else { throw CommandFailure(.badInput, "the text is empty; nothing was added") }
                let id = entry.id ?? VaultContents.newID()
                try contents.add(.text(TextEntry(id: id, title: title, text: text)))
                return id
            }, announce: { id in print("Added the text \(id): \(title).") })
        }
    }
}
