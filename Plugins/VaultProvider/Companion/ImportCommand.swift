import ArgumentParser
import Foundation
import VaultCore

/// `autofill-vault import`: a password manager's CSV export.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import a Bitwarden or browser (Chrome, Firefox) CSV export.",
        discussion: """
            The format is detected from the header row. Logins already in the vault (same service and \
            user) are skipped; rows that cannot be imported are reported by row number (the header is \
            row 1), never with their contents. Delete the export afterwards: it holds your passwords in \
            the clear.

            Examples:
              autofill-vault import bitwarden_export.csv
              autofill-vault import ~/Downloads/Chrome\\ Passwords.csv
            """)

    @OptionGroup var options: VaultOptions

    @Argument(help: ArgumentHelp("The CSV file.", valueName: "file"))
    var file: String

    func run() throws {
        try CommandFailure.reporting {
            guard let data = FileManager.default.contents(atPath: file) else {
                let exists = FileManager.default.fileExists(atPath: file)
                throw CommandFailure(exists ? .io : .noInput, exists ? "cannot read \(file)" : "\(file) does not exist")
            }
            guard let text = String(validating: Array(data), as: UTF8.self) else {
                throw CommandFailure(.badInput, "\(file) is not UTF-8 text; export the CSV again as UTF-8")
            }
            let access = VaultAccess(options)
            try withProgress("Importing \(file)") {
                try access.update({ contents in try contents.importCSV(text, name: file) }, announce: { imported in withoutProgress { report(imported) } })
            }
        }
    }

    /// Prints the rows that need a look (standard error) and what was imported.
    private func report(_ imported: CSVImport) {
        for problem in imported.problems { printWarning("\(file) \(problem)") }
        let logins = imported.entries.filter { if case .password = $0 { true } else { false } }.count
        let codes = imported.entries.filter { if case .oneTimeCode = $0 { true } else { false } }.count
        let texts = imported.entries.count - logins - codes
        let problems = imported.problems.count
        let look = problems == 0 ? "" : "; \(problems) \(problems == 1 ? "row needs" : "rows need") a look (above)"
        print("Imported \(count(logins, "login")), \(count(codes, "one-time code")) and \(count(texts, "text")) from \(file) (\(imported.format.rawValue) format)\(look).")
    }

    private func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
