internal import AutofillCore

/// Imports a password manager's CSV export: Bitwarden's, or a browser's (Chrome, Firefox).
///
/// * Bitwarden: `folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp`.
///   `login` rows become logins (the first of several URIs; a favorite gets rank 1); a `login_totp`
///   (an otpauth URI or a bare Base32 secret) also becomes a one-time-code entry; `note` rows become
///   text snippets; other types are reported and skipped.
/// * Browsers: `name,url,username,password[,note]` (Chrome) or Firefox's `url,username,password,…`;
///   extra columns are ignored.
///
/// The format is detected from the header. Rows that cannot be imported are reported by row number
/// (the header is row 1) and never with their contents; logins already in the vault (same service
/// and user) are skipped.
public struct CSVImport: Sendable {
    /// The two export formats.
    public enum Format: String, Hashable, Sendable, CaseIterable {
        case bitwarden, browser
    }

    /// A row that was not imported, or imported only in part.
    public struct Problem: Hashable, Sendable, CustomStringConvertible {
        /// The row number; the header is row 1.
        public var row: Int
        /// What was wrong; never a field's contents.
        public var message: String

        public var description: String { "row \(row): \(message)" }
    }

    /// The detected format.
    public var format: Format
    /// The entries to add, in file order.
    public var entries: [VaultEntry]
    /// The rows skipped or imported in part.
    public var problems: [Problem]

    /// Reads `text` (the file `name`, for messages), given the vault's current contents to skip duplicates.
    public init(text: String, name: String, existing: VaultContents) throws(VaultError) {
        let (records, parseProblems) = CSVParser.parse(text)
        guard let header = records.first, header.row == 1 else {
            throw VaultError(.invalidInput, "\(name) has no header row; \(Self.expectedHeaders)")
        }
        let columns = header.fields.map { $0.trimmingWhitespace.lowercased() }
        guard let format = Self.detect(columns) else {
            throw VaultError(.invalidInput, Self.headerProblem(columns, file: name, line: header.line))
        }
        self.format = format
        entries = []
        problems = parseProblems.map { Problem(row: $0.row, message: $0.message + "; skipped") }
        var index = ImportIndex(existing)
        for record in records.dropFirst() {
            guard record.fields.count == columns.count else {
                problems.append(Problem(row: record.row, message: "has \(record.fields.count) fields, the header \(columns.count); skipped"))
                continue
            }
            var row: [String: String] = [:]
            for (column, value) in zip(columns, record.fields) where row[column] == nil { row[column] = value }
            switch format {
            case .bitwarden: importBitwarden(row, number: record.row, index: &index)
            case .browser: importBrowser(row, number: record.row, index: &index)
            }
        }
        problems.sort { $0.row < $1.row }
    }

    /// The columns each format needs; detection looks for these.
    static let required: [(format: String, columns: [String])] = [
        ("a Bitwarden export", ["type", "name", "login_uri", "login_username", "login_password"]),
        ("a browser export", ["url", "username", "password"]),
    ]

    /// Every column name of the exports this reads (Firefox's extras included), lowercased.
    static let knownColumns: Set<String> = [
        "folder", "favorite", "type", "name", "notes", "fields", "reprompt", "login_uri", "login_username", "login_password",
        "login_totp", "url", "username", "password", "note", "httprealm", "formactionorigin", "guid", "timecreated",
        "timelastused", "timepasswordchanged",
    ]

    /// Bitwarden item types other than login and note, which a message may name.
    static let otherBitwardenTypes: Set<String> = ["card", "identity", "securenote", "sshkey"]

    /// The headers this reads, for messages.
    static let expectedHeaders = """
        expected a Bitwarden export (header folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,\
        login_password,login_totp) or a browser export (header name,url,username,password[,note], or at least url,username,password)
        """

    static func detect(_ columns: [String]) -> Format? {
        let set = Set(columns)
        if set.isSuperset(of: required[0].columns) { return .bitwarden }
        if set.isSuperset(of: required[1].columns) { return .browser }
        return nil
    }

    /// Why the first row is not a header this reads, never quoting it: without a header row it is a
    /// login, password included. Column names are named only when the row is a header (at least two
    /// known names), and then only the known ones.
    static func headerProblem(_ columns: [String], file: String, line: Int) -> String {
        var recognised: [String] = []
        for column in columns where knownColumns.contains(column) && !recognised.contains(column) { recognised.append(column) }
        guard recognised.count >= 2 else {
            return """
                \(file) line \(line): the first row is not a header of an export this reads (it is not shown: without a \
                header row it is a login, password included); \(expectedHeaders). Export the file again with its header \
                row, or add the header as the first line
                """
        }
        let missing = required.map { format in (format: format.format, columns: format.columns.filter { !recognised.contains($0) }) }
        let nearest = missing[1].columns.count < missing[0].columns.count ? missing[1] : missing[0]
        let others = columns.count - columns.filter(knownColumns.contains).count
        let unknown = others == 0 ? "" : "; \(others) other \(others == 1 ? "column is" : "columns are") not recognised (not shown)"
        return """
            \(file) line \(line): the header has \(recognised.joined(separator: ", ")) but not \(nearest.columns.joined(separator: ", ")), \
            which \(nearest.format) needs\(unknown); \(expectedHeaders)
            """
    }

    /// Imports one Bitwarden row (`number`), keeping `index` up to date.
    private mutating func importBitwarden(_ row: [String: String], number: Int, index: inout ImportIndex) {
        let name = (row["name"] ?? "").trimmingWhitespace
        let type = (row["type"] ?? "").trimmingWhitespace.lowercased()
        switch type {
        case "login":
            let uri = (row["login_uri"] ?? "").split(whereSeparator: { $0 == "," || $0.isNewline }).first.map(String.init) ?? ""
            let notes = row["notes"].flatMap { $0.isEmpty ? nil : Secret($0) }
            guard let login = addLogin(uri: uri, user: row["login_username"] ?? "", password: row["login_password"] ?? "",
                                       rank: row["favorite"] == "1" ? 1 : 0, notes: notes, number: number, column: "login_uri",
                                       index: &index)
            else { return }
            let totp = (row["login_totp"] ?? "").trimmingWhitespace
            guard !totp.isEmpty else { return }
            let label = login.user.isEmpty ? (name.isEmpty ? login.service.identifier : name) : login.user
            do {
                let input = try OneTimeCodeEntry.parseInput(Secret(totp), issuer: name.isEmpty ? nil : name, account: label)
                let entry = OneTimeCodeEntry(id: VaultContents.newID(), service: login.service, label: input.label ?? label, uri: input.uri)
                guard !index.hasOneTimeCode(service: entry.service, label: entry.label) else {
                    problems.append(Problem(row: number, message: "the one-time code for \(entry.label) at \(entry.service.identifier) is in the vault already; login imported without it"))
                    return
                }
                try add(.oneTimeCode(entry), index: &index)
            } catch {
                problems.append(Problem(row: number, message: "login_totp is not usable (\(error.message)); login imported without it"))
            }
        case "note":
            let text = row["notes"] ?? ""
            guard !text.isEmpty else {
                problems.append(Problem(row: number, message: "the note is empty; skipped"))
                return
            }
            try? add(.text(TextEntry(id: VaultContents.newID(), title: name.isEmpty ? "Note" : name, text: Secret(text))), index: &index)
        default:
            // Only a known type is named: in a row whose columns are out of place, this field may hold a password.
            let named = type.isEmpty ? "type (empty)" : Self.otherBitwardenTypes.contains(type) ? "type \(type)" : "this type (not shown)"
            problems.append(Problem(row: number, message: "\(named) is not imported (only login and note); skipped"))
        }
    }

    /// Imports one browser row (`number`), keeping `index` up to date.
    private mutating func importBrowser(_ row: [String: String], number: Int, index: inout ImportIndex) {
        let notes = (row["note"] ?? row["notes"]).flatMap { $0.isEmpty ? nil : Secret($0) }
        addLogin(uri: row["url"] ?? "", user: row["username"] ?? "", password: row["password"] ?? "", rank: 0, notes: notes,
                 number: number, column: "url", index: &index)
    }

    /// Adds a login from row `number` (its site from `column`) unless a problem keeps it out, or the
    /// vault or an earlier row has a login for the same service and user; returns it if added.
    @discardableResult
    private mutating func addLogin(
        uri: String, user: String, password: String, rank: Int, notes: Secret?, number: Int, column: String,
        index: inout ImportIndex
    ) -> PasswordEntry? {
        guard !uri.trimmingWhitespace.isEmpty else {
            problems.append(Problem(row: number, message: "\(column) is empty: a login needs the site it is for; skipped"))
            return nil
        }
        let parsed: ServiceInput.Parsed
        do {
            parsed = try ServiceInput.parse(uri, naming: column)
        } catch {
            problems.append(Problem(row: number, message: "\(error.message); skipped"))
            return nil
        }
        let service = parsed.service
        guard !password.isEmpty else {
            problems.append(Problem(row: number, message: "the password is empty; skipped"))
            return nil
        }
        let user = user.trimmingWhitespace
        guard !index.hasLogin(service: service, user: user) else {
            problems.append(Problem(row: number, message: "\(user.isEmpty ? "the login" : user) at \(service.identifier) is in the vault already; skipped"))
            return nil
        }
        let entry = PasswordEntry(id: VaultContents.newID(), service: service, user: user, password: Secret(password), rank: rank, notes: notes)
        try? add(.password(entry), index: &index)
        if let warning = parsed.warning(naming: column) {
            problems.append(Problem(row: number, message: "\(warning); the login was imported for \(service.identifier)"))
        }
        return entry
    }

    /// Appends `entry` to ``entries`` if its id is valid and new (the checks of ``VaultContents/add(_:)``).
    private mutating func add(_ entry: VaultEntry, index: inout ImportIndex) throws(VaultError) {
        try index.insert(entry)
        entries.append(entry)
    }
}

extension VaultContents {
    /// Imports the CSV export `text` (the file `name`, for messages) into these contents: reads it
    /// with ``CSVImport/init(text:name:existing:)`` and adds its entries. Returns what was read,
    /// for the report; nothing is added when it throws.
    public mutating func importCSV(_ text: String, name: String) throws(VaultError) -> CSVImport {
        let imported = try CSVImport(text: text, name: name, existing: self)
        try add(contentsOf: imported.entries)
        return imported
    }
}

/// What an import looks up for each row, as sets: the entry ids in use, the logins' service and
/// user, and the one-time codes' service and label, of the vault and of the rows added so far.
///
/// Built once per import, so that an import costs time in proportion to its rows; looking these up
/// in the entries themselves, row by row, made importing 10,000 rows into an empty vault take 10 s
/// (docs/PERFORMANCE.md).
private struct ImportIndex {
    /// A service with a user name (a login) or a label (a one-time code).
    private struct Account: Hashable {
        var service: ServiceIdentifier
        var name: String
    }

    private var ids: Set<String> = []
    private var logins: Set<Account> = []
    private var oneTimeCodes: Set<Account> = []

    /// The index of `contents`.
    init(_ contents: VaultContents) {
        for entry in contents.entries { record(entry) }
    }

    /// Whether there is a login for `service` and `user`.
    func hasLogin(service: ServiceIdentifier, user: String) -> Bool {
        logins.contains(Account(service: service, name: user))
    }

    /// Whether there is a one-time code for `service` labelled `label`.
    func hasOneTimeCode(service: ServiceIdentifier, label: String) -> Bool {
        oneTimeCodes.contains(Account(service: service, name: label))
    }

    /// Adds `entry`, after the checks ``VaultContents/add(_:)`` makes: its id is valid and not in use.
    mutating func insert(_ entry: VaultEntry) throws(VaultError) {
        try VaultContents.checkID(entry.id)
        guard !ids.contains(entry.id) else { throw VaultContents.idInUse(entry.id) }
        record(entry)
    }

    /// Notes `entry`'s id and, for a login or a one-time code, its account.
    private mutating func record(_ entry: VaultEntry) {
        ids.insert(entry.id)
        switch entry {
        case .password(let login): logins.insert(Account(service: login.service, name: login.user))
        case .oneTimeCode(let code): oneTimeCodes.insert(Account(service: code.service, name: code.label))
        case .text, .passkey, .unknown: break
        }
    }
}
