import ArgumentParser
import AutofillCore
import VaultCore

/// `autofill-vault rename`: a login's or code's site, or a text's title.
struct RenameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename", abstract: "Change a login's or one-time code's site (--site), or a text's title (--title).",
        discussion: """
            The entry is named as for `show`. A passkey keeps its relying party: it is part of the credential.

            Examples:
              autofill-vault rename github.com --user alice --site https://github.com/session
              autofill-vault rename "Postal address" --title "Home address"
            """)

    @OptionGroup var options: VaultOptions
    @OptionGroup var selection: EntrySelection

    @Option(help: ArgumentHelp("The new site of a login or one-time code: a domain or URL.", valueName: "url"))
    var site: String?

    @Option(help: ArgumentHelp("The new title of a text entry.", valueName: "title"))
    var title: String?

    func validate() throws {
        guard (site == nil) != (title == nil) else { throw ValidationError("give the new name with --site (a login or code) or --title (a text), one of them") }
        if let title, title.isEmpty { throw ValidationError("the new title is empty") }
    }

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            let parsed = try site.map { (text) throws(VaultError) in try ServiceInput.parse(text, naming: "--site") }
            try access.update({ contents -> (id: String, from: String, to: String) in
                let entry = try selection.resolve(in: contents, path: access.path, kinds: site != nil ? [.password, .otp] : [.text])
                let from = EntryQuery.site(of: entry) ?? ""
                switch entry {
                case .password(var login):
                    login.service = parsed!.service
                    try contents.update(.password(login))
                case .oneTimeCode(var code):
                    code.service = parsed!.service
                    try contents.update(.oneTimeCode(code))
                case .text(var text):
                    text.title = title!
                    try contents.update(.text(text))
                default:
                    throw CommandFailure(.usage, "rename changes logins, one-time codes and texts; \(entry.id) is a \(EntryDisplay.kind(entry)) entry")
                }
                return (entry.id, from, parsed?.service.identifier ?? title!)
            }, announce: { renamed in
                if let warning = parsed?.warning(naming: "--site") { printWarning(warning + ".") }
                print("Renamed \(EntryDisplay.safe(renamed.id)): \(EntryDisplay.safe(renamed.from)) → \(EntryDisplay.safe(renamed.to)).")
            })
        }
    }
}
