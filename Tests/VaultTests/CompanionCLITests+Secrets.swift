import AutofillCore
import AutofillStore
import Foundation
import Testing

/// autofill-vault never prints a secret it was not asked to print: not in a CSV error, not in a
/// service error, not when it refuses a command line; and a password in a site address never
/// reaches the (unencrypted) identity store.
extension CompanionCLITests {
    /// Every byte of the identity-store folder, as text (the SQLite file and any journal beside it).
    func storeBytes() throws -> String {
        let folder = IdentityStoreDirectory(environment: environment).path
        return try FileManager.default.contentsOfDirectory(atPath: folder).map { name in
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(name)")), as: UTF8.self)
        }.joined()
    }

    @Test func aCSVWithoutAHeaderRowIsRefusedNamingTheLineNotTheRow() throws {
        #expect(try run(["create", "--password-stdin", "--scrypt-log2n", "10"], input: Self.master).status == 0)
        let noHeader = try home.file("no-header.csv", "Example,https://example.com,alice,hunter2\n")
        var result = try run(["import", "--password-stdin", noHeader], input: Self.master)
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("autofill-vault: \(noHeader) line 1: the first row is not a header of an export this reads"), "\(result.stderr)")
        #expect(result.stderr.contains("browser export (header name,url,username,password[,note]"))
        for text in ["hunter2", "alice", "https://example.com"] { #expect(!result.stderr.contains(text), "\(result.stderr)") }

        let partial = try home.file("partial.csv", "name,url,user,password,hunter2col\nExample,https://example.com,alice,hunter2,x\n")
        result = try run(["import", "--password-stdin", partial], input: Self.master)
        #expect(result.status == 65)
        #expect(result.stderr.contains("line 1: the header has name, url, password but not username, which a browser export needs"), "\(result.stderr)")
        #expect(!result.stderr.contains("hunter2"), "\(result.stderr)")
    }

    @Test func aServiceHoldingAPasswordIsNeverPrintedAndNeverStored() throws {
        let store = try enabledStore()
        #expect(try run(["create", "--password-stdin", "--scrypt-log2n", "10"], input: Self.master).status == 0)

        // Refused services: the message names the problem, not the text.
        for service in ["ftp://alice:hunter2@example.com", "https://alice:hunter2@exa mple.com/", "https://alice:hunter2/x@example.com"] {
            let result = try run(["add-password", "--password-stdin", "--service", service, "--user", "alice"], input: Self.master + "pw-1\n")
            #expect(result.status == 65, "\(service): \(result.stderr)")
            #expect(result.stderr.hasPrefix("autofill-vault: --service "), "\(result.stderr)")
            #expect(!(result.stdout + result.stderr).contains("hunter2"), "\(result.stderr)")
        }

        // A valid URL with user:password@: stored without it, and the warning does not repeat it.
        var result = try run(["add-password", "--password-stdin", "--service", "https://alice:hunter3@example.org/login", "--user", "alice", "--id", "v-1"],
                             input: Self.master + "pw-2\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(
            "warning: --service held a user name and password before the host (user:password@); they were left out of the site address"))
        #expect(result.stdout.contains("Added the login v-1: alice at https://example.org/login."))
        #expect(!(result.stdout + result.stderr).contains("hunter3"))

        // The same from a Bitwarden export: the row is imported, the warning names the row.
        let csv = try home.file("export.csv", """
            folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp
            ,,login,Router,,,0,https://admin:hunter4@192.168.1.1/setup,admin,hunter4,
            ,,login,Files,,,0,ftp://carol:hunter5@files.example.com,carol,pw-carol,

            """)
        result = try run(["import", "--password-stdin", csv], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("\(csv) row 2: login_uri held a user name and password before the host (user:password@)"), "\(result.stderr)")
        #expect(result.stderr.contains("the login was imported for https://192.168.1.1/setup"))
        #expect(result.stderr.contains("\(csv) row 3: login_uri is not a web address (ftp://, not http:// or https://)"), "\(result.stderr)")
        #expect(result.stdout.contains("Imported 1 login"))
        for secret in ["hunter4", "hunter5", "carol"] { #expect(!(result.stdout + result.stderr).contains(secret), "\(result.stderr)") }

        let services = try store.allIdentities().compactMap { if case .password(let login) = $0 { login.serviceIdentifier.identifier } else { nil } }
        #expect(Set(services) == ["https://example.org/login", "https://192.168.1.1/setup"])
        let bytes = try storeBytes()
        for secret in ["hunter3", "hunter4", "alice:", "admin:"] { #expect(!bytes.contains(secret)) }
        result = try run(["list", "--password-stdin"], input: Self.master)
        #expect(!result.stdout.contains("hunter"))
    }

    @Test(arguments: [
        (["add-otp", "otpauth://totp/a?secret=JBSWY3DPEHPK3PXP"], "Unexpected argument #2", "JBSWY3DPEHPK3PXP"),
        (["add-password", "--service", "example.com", "--user", "alice", "hunter2hunter2"], "Unexpected argument #6", "hunter2hunter2"),
        (["add-otp", "JBSWY3DPEHPK3PXP", "hunter2hunter2"], "2 unexpected arguments: #2, #3", "hunter2hunter2"),
        (["add-password", "--length", "hunter2hunter2"], "The value #3 is invalid for '--length <n>'", "hunter2hunter2"),
        (["add-password", "--generate=hunter2hunter2"], "The option '--generate' does not take any value, but #2 was specified.", "hunter2hunter2"),
        // A password that starts with "-" (no "h" in these: a group holding h asks for help).
        (["add-password", "--service", "x", "--user", "y", "-Xyz9secret"], "Unknown option #6", "Xyz9secret"),
        (["add-password", "--service", "x", "--user", "y", "-a!zx9"], "Unknown option #6", "!zx9"),
        (["---hunter2hunter2"], "Invalid option: #1", "hunter2hunter2"),
        (["add-pasword", "hunter2hunter2"], "2 unexpected arguments: #1, #2", "hunter2hunter2"),
    ])
    func aRefusedCommandLineNeverRepeatsAnArgument(_ arguments: [String], _ message: String, _ secret: String) throws {
        let result = try run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: \(message)\n"), "\(result.stderr)")
        #expect(result.stderr.contains("are read from standard input or the terminal, never from arguments"), "\(result.stderr)")
        #expect(result.stderr.contains("Usage: autofill-vault"), "\(result.stderr)")
        #expect(!(result.stdout + result.stderr).contains(secret), "\(result.stderr)")
    }

    @Test func aRefusedCommandLineStillNamesOptionsAndCommands() throws {
        var result = try run(["add-otp", "--pasword-stdin"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: Unknown option '--pasword-stdin'. Did you mean '--password-stdin'?\nUsage: autofill-vault add-otp"),
                "\(result.stderr)")
        result = try run(["add-password", "--service", "x"])
        #expect(result.stderr.hasPrefix("Error: Missing expected argument '--user <user>'\n"), "\(result.stderr)")
        result = try run(["list", "list"])
        #expect(result.stderr.hasPrefix("Error: Unexpected argument 'list'\n"), "\(result.stderr)")
        result = try run(["add-otp", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: autofill-vault add-otp"))
    }
}
