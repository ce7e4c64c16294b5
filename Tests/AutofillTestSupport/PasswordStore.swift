public import Foundation

/// A real password store for the pass provider's tests: a GnuPG home of its own holding a
/// passphrase-protected key, the gpg-agent of that home, and a store made with the `pass` command.
///
/// The key is made by gpg itself (`--quick-gen-key` with a passphrase), once per test process,
/// because gpg-agent takes seconds to make one; each store then gets a copy of that home's files and
/// an agent of its own (a fresh agent has nothing cached). Every process it starts ends with it:
/// `deinit` stops the agent (`gpgconf --kill gpg-agent`).
public final class PasswordStore: Sendable {
    /// The passphrase of the store's key.
    public static let passphrase = "correct horse battery staple"

    /// The folder holding everything (removed with the store).
    public let folder: TemporaryFolder
    /// The GnuPG home (mode 0700), with its own gpg-agent.
    public let gnupgHome: String
    /// The password store (what `PASSWORD_STORE_DIR` names).
    public let path: String
    /// The fingerprint of the key the store is encrypted to.
    public let fingerprint: String

    /// A store encrypted to the test key, with its gpg-agent running and nothing cached. With
    /// `protected: false`, to a key without a passphrase instead (nothing is ever asked: for runs
    /// that cannot answer a passphrase, such as git's own test harness).
    public init(protected: Bool = true) throws {
        let key = try protected ? Self.testKey.get() : Self.otherKey.get()
        folder = try TemporaryFolder("pass")
        gnupgHome = "\(folder.path)/gnupg"
        path = "\(folder.path)/store"
        fingerprint = key.fingerprint
        try key.write(to: gnupgHome)
        // gpg-agent forgets a passphrase 10 minutes after its last use by default; a test that counts
        // on the cache (asked once, then not again) can spend longer than that waiting for a thread of
        // a loaded run's pool between two requests. A day, as a user who set it so would have.
        try "default-cache-ttl 86400\nmax-cache-ttl 86400\n".write(toFile: "\(gnupgHome)/gpg-agent.conf", atomically: true, encoding: .utf8)
        try startAgent()
        try pass(["init", fingerprint])
    }

    deinit { stopAgent() }

    /// `PASSWORD_STORE_DIR`, `GNUPGHOME`, `HOME` and `PATH` for `pass` and gpg.
    public var environment: [String: String] {
        ["PASSWORD_STORE_DIR": path, "GNUPGHOME": gnupgHome, "HOME": folder.path, "PATH": "/usr/bin:/bin"]
    }

    /// Starts this home's gpg-agent (`gpgconf --launch gpg-agent`), with nothing cached.
    public func startAgent() throws {
        try Self.run("/usr/bin/gpgconf", ["--homedir", gnupgHome, "--launch", "gpg-agent"])
    }

    /// Stops this home's gpg-agent, forgetting every passphrase it cached.
    public func stopAgent() {
        _ = try? ChildProcess.run("/usr/bin/gpgconf", ["--homedir", gnupgHome, "--kill", "gpg-agent"])
    }

    /// Runs `pass arguments` on this store.
    @discardableResult
    public func pass(_ arguments: [String], input: String = "") throws -> String {
        try Self.run("/usr/bin/pass", arguments, environment: environment, input: input)
    }

    /// Adds entry `name` with `text` as pass users do: `pass insert -m` (multi-line, from standard input).
    public func insert(_ name: String, _ text: String) throws {
        try pass(["insert", "-m", "-f", name], input: text)
    }

    /// `pass show name`, as the user runs it once gpg-agent holds the passphrase (given here first, by a
    /// loopback decryption of that entry, since no pinentry can ask in a test).
    public func show(_ name: String) throws -> String {
        try Self.run("/usr/bin/gpg", ["--homedir", gnupgHome, "--batch", "--pinentry-mode", "loopback", "--passphrase", Self.passphrase,
                                      "--output", "/dev/null", "--decrypt", "\(path)/\(name).gpg"], environment: environment)
        return try pass(["show", name])
    }

    /// Makes the store a git repository as pass users do (`pass git init`), with an identity of its own in
    /// the repository (whoever commits later, pass or autofill, needs one).
    public func gitInit() throws {
        try Data("[user]\n\tname = Pass Test\n\temail = pass@example.invalid\n".utf8).write(to: URL(fileURLWithPath: "\(folder.path)/.gitconfig"))
        try pass(["git", "init"])
        try pass(["git", "config", "user.name", "Pass Test"])
        try pass(["git", "config", "user.email", "pass@example.invalid"])
    }

    /// Writes `bytes` encrypted as entry `name` with gpg directly (for contents `pass insert` cannot
    /// take, such as bytes that are not UTF-8), to the store's key or to `recipient`'s public key
    /// (`publicKey`, armored, imported into this home first).
    public func encrypt(_ bytes: Data, as name: String, publicKey: String? = nil) throws {
        var recipient = fingerprint
        if let publicKey {
            let file = "\(folder.path)/public.asc"
            try Data(publicKey.utf8).write(to: URL(fileURLWithPath: file))
            try Self.run("/usr/bin/gpg", ["--homedir", gnupgHome, "--batch", "--import", file])
            recipient = try Self.fingerprints(in: gnupgHome, secret: false).first { $0 != fingerprint } ?? fingerprint
        }
        let plain = "\(folder.path)/plain"
        try bytes.write(to: URL(fileURLWithPath: plain))
        defer { try? FileManager.default.removeItem(atPath: plain) }
        let target = "\(path)/\(name).gpg"
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Self.run("/usr/bin/gpg", ["--homedir", gnupgHome, "--batch", "--yes", "--trust-model", "always", "--encrypt",
                                      "--recipient", recipient, "--output", target, plain])
    }

    // MARK: The keys, made once per process

    /// A GnuPG home's key files, kept in memory.
    struct Key: Sendable {
        let fingerprint: String
        let files: [String: Data]
        let publicKey: String

        func write(to home: String) throws {
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for (name, data) in files {
                let file = "\(home)/\(name)"
                try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
                try data.write(to: URL(fileURLWithPath: file))
                chmod(file, 0o600)
            }
        }
    }

    /// The store's key, with the passphrase.
    static let testKey = Result { try makeKey(passphrase: passphrase, user: "Autofill Test <test@example.com>") }
    /// Another key (no passphrase): entries encrypted to it cannot be decrypted with the store's home;
    /// the key of a store made with `protected: false`.
    static let otherKey = Result { try makeKey(passphrase: "", user: "Someone Else <else@example.org>") }

    /// The armored public key of a key that is not the store's.
    public static func otherPublicKey() throws -> String { try otherKey.get().publicKey }

    /// Makes a key in a throwaway home with gpg, keeps its files, stops that home's agent, removes the home.
    static func makeKey(passphrase: String, user: String) throws -> Key {
        let folder = try TemporaryFolder("gnupg-key")
        let home = "\(folder.path)/gnupg"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { _ = try? ChildProcess.run("/usr/bin/gpgconf", ["--homedir", home, "--kill", "gpg-agent"]) }
        try run("/usr/bin/gpgconf", ["--homedir", home, "--launch", "gpg-agent"])
        try run("/usr/bin/gpg", ["--homedir", home, "--batch", "--pinentry-mode", "loopback", "--passphrase", passphrase,
                                 "--quick-gen-key", user, "future-default", "default", "never"])
        let fingerprint = try fingerprints(in: home, secret: true).first ?? ""
        let publicKey = try run("/usr/bin/gpg", ["--homedir", home, "--batch", "--armor", "--export", fingerprint])
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: home)
        while let name = enumerator?.nextObject() as? String {
            guard name == "pubring.kbx" || name == "trustdb.gpg" || name.hasPrefix("private-keys-v1.d/") else { continue }
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(home)/\(name)", isDirectory: &isFolder), !isFolder.boolValue {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: "\(home)/\(name)"))
            }
        }
        return Key(fingerprint: fingerprint, files: files, publicKey: publicKey)
    }

    /// The primary keys' fingerprints in `home`.
    static func fingerprints(in home: String, secret: Bool) throws -> [String] {
        let listing = try run("/usr/bin/gpg", ["--homedir", home, "--batch", "--with-colons", secret ? "--list-secret-keys" : "--list-keys"])
        var result: [String] = []
        var wantFingerprint = false
        for line in listing.split(separator: "\n") {
            let fields = line.split(separator: ":", omittingEmptySubsequences: false)
            if fields.first == "sec" || fields.first == "pub" { wantFingerprint = true }
            if fields.first == "fpr", wantFingerprint, fields.count > 9 {
                result.append(String(fields[9]))
                wantFingerprint = false
            }
        }
        return result
    }

    /// Runs a program; its standard output, or an error with what it said.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil, input: String = "") throws -> String {
        let result = try ChildProcess.run(program, arguments, environment: environment ?? ["PATH": "/usr/bin:/bin"], input: input)
        guard result.status == 0 else {
            throw ChildProcessError("\(program) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.stdout
    }
}
