import Foundation

/// The real `keepassxc-cli` (Debian package keepassxc), which makes the KeePass databases the
/// KeePass tests read. Passwords go to its standard input, never on its command line.
public enum KeePassXC {
    public static let cli = "/usr/bin/keepassxc-cli"

    /// Whether keepassxc-cli is installed (`Scripts/bootstrap test` installs it).
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: cli) }

    /// What opens a database: a password, a key file, or both.
    public struct Key: Sendable {
        public let password: String?
        public let keyFile: String?
        public init(password: String?, keyFile: String? = nil) {
            self.password = password
            self.keyFile = keyFile
        }

        /// The options that name the key file, or say there is no password.
        var openOptions: [String] {
            (keyFile.map { ["-k", $0] } ?? []) + (password == nil ? ["--no-password"] : [])
        }
        /// What to type at a prompt for the database password.
        var typed: String { password.map { "\($0)\n" } ?? "" }
        /// What to type when setting the password (twice), and the options.
        var settingOptions: [String] { (password == nil ? [] : ["-p"]) + (keyFile.map { ["--set-key-file", $0] } ?? []) }
        var typedTwice: String { password.map { "\($0)\n\($0)\n" } ?? "" }
    }

    /// A failed run, with what keepassxc-cli said.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `db-create`: an empty database (keepassxc-cli 2.7 writes KDBX 3.1 with AES-KDF, 100 ms of rounds).
    /// A key file that does not exist is created (KeePassXC's XML 2.0 format).
    public static func create(_ path: String, key: Key) throws {
        try run(["db-create", "-q", "-t", "100"] + key.settingOptions + [path], input: key.typedTwice)
    }

    /// `import`: a database made from KeePass XML. KeePassXC writes KDBX 4 when the XML needs it
    /// (entry CustomData, for one), else KDBX 3.1; AES-KDF either way.
    public static func importXML(_ xml: String, to path: String, key: Key) throws {
        try run(["import", "-q", "-t", "100"] + key.settingOptions + [xml, path], input: key.typedTwice)
    }

    /// `add`: an entry with a user name, a URL and a password typed at its prompt.
    public static func add(_ path: String, key: Key, title: String, user: String, url: String, password: String) throws {
        try run(["add", "-q", "-p", "-u", user, "--url", url] + key.openOptions + [path, title], input: key.typed + "\(password)\n")
    }

    /// `edit -p`: a new password for an entry (KeePassXC keeps the old one in the entry's history).
    public static func changePassword(_ path: String, key: Key, title: String, to password: String) throws {
        try run(["edit", "-q", "-p"] + key.openOptions + [path, title], input: key.typed + "\(password)\n")
    }

    /// `mkdir`: a group under the root group.
    public static func makeGroup(_ path: String, key: Key, name: String) throws {
        try run(["mkdir", "-q"] + key.openOptions + [path, name], input: key.typed)
    }

    /// `show -s -a Password`: an entry's password as keepassxc-cli reads it.
    public static func password(_ path: String, key: Key, title: String) throws -> String {
        try run(["show", "-q", "-s", "-a", "Password"] + key.openOptions + [path, title], input: key.typed)
            .trimmingCharacters(in: .newlines)
    }

    /// `attachment-import`: the file at `file` attached to an entry as `name`.
    public static func importAttachment(_ path: String, key: Key, title: String, name: String, file: String) throws {
        try run(["attachment-import", "-q"] + key.openOptions + [path, title, name, file], input: key.typed)
    }

    /// `export -f xml`: the database as KeePass XML (protected values in clear).
    public static func exportXML(_ path: String, key: Key) throws -> String {
        try run(["export", "-q", "-f", "xml"] + key.openOptions + [path], input: key.typed)
    }

    /// A KDBX 4 database with Argon2 (`argon2d` or `argon2id`) and `cipher` (`aes256`, `chacha20` or
    /// `twofish`) holding one entry. keepassxc-cli cannot choose a KDF or cipher, so pykeepass seeds an
    /// empty database with them (light parameters: `memoryMiB`, 1 MiB unless given, and 2 iterations)
    /// and keepassxc-cli `add` writes the file, keeping them: every byte read by the tests is KeePassXC's.
    public static func createArgon2(
        _ path: String, password: String, variant: String, cipher: String, title: String, user: String, url: String, entryPassword: String,
        memoryMiB: Int = 1
    ) throws {
        let uuid = variant == "argon2id" ? "9e298b1956db4773b23dfc3ec6f0a1e6" : "ef636ddf8c29444b91f7a9a403e30a0c"
        let script = """
            import sys
            from pykeepass import create_database
            db = create_database(sys.argv[1], password=sys.stdin.readline().rstrip("\\n"))
            header = db.kdbx.header.value.dynamic_header
            header.cipher_id.data = sys.argv[2]
            kdf = header.kdf_parameters.data.dict
            kdf["$UUID"].value = bytes.fromhex(sys.argv[3])
            kdf["M"].value = int(sys.argv[4]) * 1024 * 1024
            kdf["I"].value = 2
            db.save()
            """
        let result = try ChildProcess.run("/usr/bin/env", ["python3", "-c", script, path, cipher, uuid, "\(memoryMiB)"], input: "\(password)\n")
        guard result.status == 0 else { throw Failure(description: "pykeepass could not seed \(path): \(result.stderr)") }
        try add(path, key: Key(password: password), title: title, user: user, url: url, password: entryPassword)
    }

    @discardableResult
    static func run(_ arguments: [String], input: String) throws -> String {
        let result = try ChildProcess.run(cli, arguments, input: input)
        guard result.status == 0 else {
            throw Failure(description: "keepassxc-cli \(arguments.first ?? "") failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }
}
