import ArgumentParser
import AutofillCore
import VaultCore

/// `autofill-vault edit`: change a login's or code's user, password, site, notes or seed.
struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Change an entry's user, password, site, notes or one-time-code seed.",
        discussion: """
            The entry is named as for `show`. --new-password asks for the new password twice at the terminal \
            without echo (with --password-stdin: the line after the master password); it is never an argument. \
            --new-otp asks for the new otpauth:// URI or Base32 secret the same way. Only the fields given change; \
            the identity store follows.

            Examples:
              autofill-vault edit github.com --new-password
              autofill-vault edit github.com --user alice --generate --length 32
              autofill-vault edit github.com --user alice --set-user alice@example.com
              autofill-vault edit example.com --kind otp --new-otp
              printf '%s\\n' "$MASTER" "$NEW" | autofill-vault edit github.com --new-password --password-stdin
            """)

    @OptionGroup var options: VaultOptions
    @OptionGroup var selection: EntrySelection

    @Option(help: ArgumentHelp("The new user name (a code's label).", valueName: "user"))
    var setUser: String?

    @Option(name: [.customLong("set-url"), .customLong("set-site")], help: ArgumentHelp(
        "The new site: a domain or URL (as `rename --site`).", valueName: "url"))
    var setURL: String?

    @Option(help: ArgumentHelp("The login's new notes (visible in the process list while this runs).", valueName: "text"))
    var setNotes: String?

    @Flag(help: "Remove the login's notes.")
    var clearNotes = false

    @Flag(help: "Ask for the login's new password (twice, without echo; or the next line of standard input).")
    var newPassword = false

    @Flag(help: "Give the login a new random password.")
    var generate = false

    @Option(help: ArgumentHelp("The generated password's length.", valueName: "n"))
    var length = 24

    @Flag(help: "Ask for the code's new otpauth:// URI or Base32 secret (without echo; or the next line of standard input).")
    var newOtp = false

    @Option(help: ArgumentHelp("The entry's new rank (larger ranks are suggested first).", valueName: "n"))
    var setRank: Int?

    func validate() throws {
        guard setUser != nil || setURL != nil || setNotes != nil || clearNotes || newPassword || generate || newOtp || setRank != nil else {
            throw ValidationError("say what to change: --set-user, --set-url, --new-password, --generate, --set-notes, --clear-notes, --new-otp or --set-rank")
        }
        guard !(newPassword && generate) else { throw ValidationError("--new-password and --generate do not go together: choose one") }
        guard !(setNotes != nil && clearNotes) else { throw ValidationError("--set-notes and --clear-notes do not go together") }
        guard !((newPassword || generate || setNotes != nil || clearNotes) && newOtp) else {
            throw ValidationError("--new-otp changes a one-time-code entry, the password and notes options a login: edit them one at a time")
        }
    }

    /// The kinds the requested changes apply to.
    private var kinds: Set<EntryQuery.Kind> {
        if newPassword || generate || setNotes != nil || clearNotes { return [.password] }
        if newOtp { return [.otp] }
        return [.password, .otp]
    }

    func run() throws {
        try CommandFailure.reporting {
            let access = VaultAccess(options)
            let site = try setURL.map { (text) throws(VaultError) in try ServiceInput.parse(text, naming: "--set-url") }
            try access.update({ contents -> (id: String, changed: [String], generated: Bool) in
                let entry = try selection.resolve(in: contents, path: access.path, kinds: kinds)
                var changed: [String] = []
                switch entry {
                case .password(var login):
                    if let setUser { login.user = setUser; changed.append("user") }
                    if let site { login.service = site.service; changed.append("site") }
                    if let setRank { login.rank = setRank; changed.append("rank") }
                    if let setNotes { login.notes = Secret(setNotes); changed.append("notes") }
                    if clearNotes { login.notes = nil; changed.append("notes") }
                    if generate { login.password = try PasswordGenerator.generate(length: length); changed.append("password") }
                    if newPassword {
                        let prompt = "New password for \(EntryDisplay.safe(login.user)) at \(EntryDisplay.safe(login.service.identifier)): "
                        login.password = try access.secrets.secret(prompt: prompt, what: "the new password", confirm: true)
                        guard !login.password.isEmpty else { throw CommandFailure(.badInput, "the new password is empty; nothing was changed") }
                        changed.append("password")
                    }
                    try contents.update(.password(login))
                case .oneTimeCode(var code):
                    if let setUser { code.label = setUser; changed.append("label") }
                    if let site { code.service = site.service; changed.append("site") }
                    if let setRank { code.rank = setRank; changed.append("rank") }
                    if newOtp {
                        let text = try access.secrets.secret(prompt: "New otpauth:// URI or Base32 secret: ", what: "the otpauth URI or secret")
                        code.uri = try OneTimeCodeEntry.parseInput(text, account: code.label).uri
                        changed.append("seed")
                    }
                    try contents.update(.oneTimeCode(code))
                default:
                    throw CommandFailure(.usage, "edit changes logins and one-time codes; \(entry.id) is a \(EntryDisplay.kind(entry)) entry")
                }
                return (entry.id, changed, generate)
            }, announce: { outcome in
                if let warning = site?.warning(naming: "--set-url") { printWarning(warning + ".") }
                let reveal = outcome.generated ? " (generated password; `show --reveal` shows it)" : ""
                print("Changed the \(outcome.changed.joined(separator: ", ")) of \(EntryDisplay.safe(outcome.id))\(reveal).")
            })
        }
    }
}
