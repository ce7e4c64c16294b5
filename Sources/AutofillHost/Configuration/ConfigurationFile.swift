public import AutofillCore
public import AutofillStore
internal import AutofillSystem
internal import FoundationEssentials

/// A host configuration together with the file it came from and where writes go.
public struct ConfigurationFile: Sendable {
    /// Where the configuration was found, in lookup order.
    public enum Source: String, Sendable, Codable {
        /// `--config PATH`.
        case option
        /// `$AUTOFILL_CONFIG`.
        case environment
        /// `$XDG_CONFIG_HOME/autofill/config.plist` (default `~/.config/autofill/config.plist`).
        case user
        /// The repository's `Config/config.plist`, built into autofill as the demo default.
        case embeddedDefault
    }

    /// The configuration file's file name inside a configuration folder.
    public static let fileName = "config.plist"

    /// The file read.
    public var path: String
    /// How it was found.
    public var source: Source
    /// Its contents.
    public var configuration: HostConfiguration
    /// Where `save` writes: the file itself, or for the embedded default, the user's file.
    public var writePath: String
    /// The user's home folder, for `~/` settings.
    public var home: String
    /// Unknown keys in the file that are not near misses of known ones: ignored, worth a warning.
    public var warnings: [String] = []
    /// For the built-in demo (set by ``locate(option:environment:)``): its own identity stores,
    /// `$XDG_DATA_HOME/autofill/demo-stores`, used unless it sets `IdentityStoreDirectory`. The demo's
    /// providers answer for demo data only, so they must never meet the user's stores: a fill against
    /// the demo vault would otherwise wipe the user's real Vault identities (`credentialIdentityNotFound`).
    public var demoStores: IdentityStoreDirectory?

    /// The folder relative paths are resolved against.
    public var directory: String { Self.directory(of: path) }

    /// Finds and reads the configuration: `option`, then `$AUTOFILL_CONFIG`, then the user's file, then
    /// the embedded default. A file named by the option or the environment must exist.
    public static func locate(option: String?, environment: [String: String]) throws(AutofillError) -> ConfigurationFile {
        let home = UserFolders(environment: environment).home
        let userPath = userPath(environment: environment)
        let candidates: [(String?, Source)] = [
            (option, .option), (environment["AUTOFILL_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }, .environment),
        ]
        for case (let named?, let source) in candidates {
            let path = resolveFile(absolute(named))
            guard FileManager.default.fileExists(atPath: path) else {
                let origin = source == .option ? "--config" : "$AUTOFILL_CONFIG"
                throw AutofillError(
                    .notFound,
                    "no configuration at \(path) (from \(origin)); create it with `autofill init\(source == .option ? " --config \(path)" : "")` (or by copying Config/config.plist), or leave \(origin) out to use the default")
            }
            return try read(path: path, source: source, writePath: path, home: home)
        }
        if FileManager.default.fileExists(atPath: userPath) {
            return try read(path: userPath, source: .user, writePath: userPath, home: home)
        }
        guard runsFromRepository else {
            throw AutofillError(
                .notFound,
                "no configuration at \(userPath); write one with `autofill init` (or name one with --config or $AUTOFILL_CONFIG)")
        }
        var demo = try read(path: embeddedDefaultPath, source: .embeddedDefault, writePath: userPath, home: home)
        demo.demoStores = IdentityStoreDirectory(
            path: directory(of: IdentityStoreDirectory(environment: environment).path) + "/demo-stores")
        return demo
    }

    /// The user's configuration file: `$XDG_CONFIG_HOME/autofill/config.plist` (default `~/.config/…`).
    public static func userPath(environment: [String: String]) -> String {
        "\(UserFolders(environment: environment).configHome)/autofill/\(fileName)"
    }

    /// The file a new configuration is written to (`autofill init`): the one ``locate(option:environment:)``
    /// would read first, `option`, else `$AUTOFILL_CONFIG`, else the user's file; whether it exists or not.
    public static func newFilePath(option: String?, environment: [String: String]) -> String {
        guard let named = option ?? environment["AUTOFILL_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            return userPath(environment: environment)
        }
        return resolveFile(absolute(named))
    }

    /// Copies the file at `path` to `path.bak-YYYYMMDDTHHMMSSZ` (a free name: `-2`, `-3`… when taken),
    /// mode 0600, before it is replaced; returns the copy's path.
    public static func backUp(_ path: String) throws(AutofillError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AutofillError(.io, "cannot read \(path) to back it up; nothing was changed")
        }
        let stamp = Date().autofillTimestamp.filter { $0 != "-" && $0 != ":" }
        var backup = "\(path).bak-\(stamp)"
        var number = 1
        while FileManager.default.fileExists(atPath: backup) {
            number += 1
            backup = "\(path).bak-\(stamp)-\(number)"
        }
        try AtomicFile.write(data, to: backup, mode: 0o600)
        return backup
    }

    /// The repository's `Config/config.plist`, found from this source file's location at build time.
    public static var embeddedDefaultPath: String {
        repositoryRoot + "/Config/" + fileName
    }

    /// The repository autofill was built from (this source file's location at build time).
    static var repositoryRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // Configuration, AutofillHost, Sources, repo
        return url.path
    }

    /// Whether this program runs from the repository's own build (`.build/` of the checkout it was
    /// built from): only then is the built-in demo the default. An installed autofill (`Scripts/install`,
    /// a distribution package) without a configuration says to write one; it never falls back to a
    /// checkout that may have moved, changed or belong to someone else.
    static var runsFromRepository: Bool {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return false }
        return executable.hasPrefix(repositoryRoot + "/.build/")
    }

    /// Reads one configuration file. Refuses (`refused`, exit 77) a file that users other than the user
    /// and root could change, and a `PAMConfigurationDirectory` they could change; refuses
    /// (`configuration`, exit 78) a file that breaks a rule or misspells a key.
    public static func read(path: String, source: Source, writePath: String, home: String) throws(AutofillError)
        -> ConfigurationFile
    {
        let unsafe = PluginPermissions.problems(hostPath: path, what: "the configuration")
        guard unsafe.isEmpty else {
            throw AutofillError(.refused, "autofill does not use the configuration \(path): users other than you could change it:", problems: unsafe)
        }
        // Parsed again only when the file changed (the agent reads it at every request; ``StampedCache``).
        let (configuration, warnings) = try StampedCache.value("configuration", of: [path]) {
            () throws(AutofillError) -> (HostConfiguration, [String]) in
            try parse(path: path)
        }
        var file = ConfigurationFile(path: path, source: source, configuration: configuration, writePath: writePath, home: home)
        file.warnings = warnings
        try file.checkPAMConfigurationDirectory()
        return file
    }

    /// The configuration in the file at `path` and the warnings about its keys; refuses (`configuration`,
    /// exit 78) a file that breaks a rule or misspells a key.
    private static func parse(path: String) throws(AutofillError) -> (HostConfiguration, [String]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AutofillError(.io, "cannot read the configuration \(path): check it exists and is readable")
        }
        let configuration: HostConfiguration
        let keys: (errors: [String], warnings: [String])
        do {
            try PlistGuard.check(data)  // size, format, nesting, cycles: before Foundation decodes anything
            let document = try PropertyListDecoder().decode(ConfigurationDocument.self, from: data)
            configuration = document.configuration
            keys = ConfigurationKeys.problems(document.keys)
        } catch let failure as ConfigurationDocument.Failure {
            // Misspelt keys first: they often explain what decoding finds missing.
            let problems = ConfigurationKeys.problems(failure.keys).errors + [describeDecodingError(failure.underlying)]
            throw AutofillError(.configuration, "the configuration \(path) is invalid: \(problems.joined(separator: "; "))")
        } catch {
            throw AutofillError(.configuration, "the configuration \(path) is invalid: \(describeDecodingError(error))")
        }
        let problems = keys.errors + configuration.problems()
        guard problems.isEmpty else {
            throw AutofillError(.configuration, "the configuration \(path) is invalid: \(problems.joined(separator: "; "))")
        }
        return (configuration, keys.warnings)
    }

    /// Refuses a `PAMConfigurationDirectory` (with the service files in it) that users other than the
    /// user and root could change: whoever writes a PAM service file decides what "authenticated" means
    /// (`pam_permit`), and `pam_exec` runs any command. Whatever the policy: the agent authenticates
    /// requests that ask for `pam` with the PAM settings of the user's configuration (``AgentPolicy``).
    func checkPAMConfigurationDirectory() throws(AutofillError) {
        guard let settings = configuration.userAuthentication,
            let folder = settings.pamConfigurationDirectory.map(resolve)
        else { return }
        let problems = PluginPermissions.problems(hostPath: folder, what: "the PAM configuration folder", contents: true)
        guard problems.isEmpty else {
            throw AutofillError(
                .refused,
                "autofill does not use the configuration \(path): its PAMConfigurationDirectory \(folder) could be changed by users other than you:",
                problems: problems)
        }
    }

    /// The identity stores' folder: the configuration's `IdentityStoreDirectory`, else the environment's
    /// (`$XDG_DATA_HOME/autofill/stores`); for the built-in demo, a folder of the demo's own
    /// (``demoStores``), so the demo never touches the user's stores. Refuses (`refused`,
    /// exit 77) a folder that users other than the user and root could change.
    public func identityStores(environment: [String: String]) throws(AutofillError) -> IdentityStoreDirectory {
        let stores =
            configuration.identityStoreDirectory.map { IdentityStoreDirectory(path: resolve($0)) }
            ?? demoStores ?? IdentityStoreDirectory(environment: environment)
        let problems = PluginPermissions.problems(hostPath: stores.path, what: "the identity-store folder")
        guard problems.isEmpty else {
            throw AutofillError(
                .refused, "autofill does not use the identity stores in \(stores.path): users other than you could change them:", problems: problems)
        }
        return stores
    }

    /// For the built-in demo: the notice every command prints on stderr, saying the demo is in use and
    /// that it keeps to stores of its own. Nil for any other configuration.
    public var demoNotice: String? {
        guard source == .embeddedDefault, let demoStores else { return nil }
        let stores = configuration.identityStoreDirectory.map(resolve) ?? demoStores.path
        return "no configuration at \(writePath): using the built-in demo (\(path)), with identity stores of its own in \(stores); your stores are not touched. Write your configuration there to use your providers (docs/CONFIGURATION.md)"
    }

    /// The `UserAuthentication` settings: the configuration's (default: `confirm`), the PAM folder made absolute.
    public var authenticationSettings: UserAuthenticationSettings {
        var settings = configuration.userAuthentication ?? UserAuthenticationSettings(policy: .confirm)
        settings.pamConfigurationDirectory = settings.pamConfigurationDirectory.map(resolve)
        return settings
    }

    /// The user authenticator the configuration asks for (default: `confirm`).
    public func userAuthenticator(ui: any ProviderUserInterface) -> any UserAuthenticator {
        authenticationSettings.authenticator(ui: ui)
    }

    /// Plugin search folders as absolute paths: the configuration's `PluginSearchPaths`, or the
    /// ``DefaultPluginFolders`` when it lists none.
    public var searchPaths: [String] {
        usesDefaultPluginFolders ? DefaultPluginFolders.folders(home: home) : configuration.pluginSearchPaths.map { resolve($0) }
    }

    /// Whether the configuration lists no `PluginSearchPaths`, so the default folders are searched.
    public var usesDefaultPluginFolders: Bool { configuration.pluginSearchPaths.isEmpty }

    /// A new, empty configuration to be written at `path` (`autofill init`): no providers, the default
    /// plugin folders. Nothing is written until ``save()``.
    public static func new(at path: String, home: String) -> ConfigurationFile {
        ConfigurationFile(path: path, source: .user, configuration: HostConfiguration(), writePath: path, home: home)
    }

    /// The settings for provider `id`, with path values resolved.
    public func settings(for id: String) -> [String: String] {
        (configuration.providerSettings[id] ?? [:]).mapValues { value in
            value.hasPrefix("./") || value.hasPrefix("../") || value.hasPrefix("~/") ? resolve(value) : value
        }
    }

    /// `path` made absolute against the configuration's folder (or home, for `~/`).
    public func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return LexicalPath.standardized(path) }
        if path == "~" { return home }
        if path.hasPrefix("~/") { return LexicalPath.standardized(home + path.dropFirst()) }
        return LexicalPath.standardized("\(directory)/\(path)")
    }

    /// Writes the configuration to `writePath` atomically (a temporary file, fsync, rename), mode 0600.
    /// When the configuration came from the embedded default, relative paths are made absolute first,
    /// so the user's copy still finds the same plugins, and it names the demo's own identity stores
    /// (``demoStores``), so the demo's providers stay off the user's stores.
    public mutating func save() throws(AutofillError) {
        var toWrite = configuration
        if writePath != path {
            toWrite.pluginSearchPaths = searchPaths
            toWrite.identityStoreDirectory =
                configuration.identityStoreDirectory.map(resolve)
                ?? demoStores?.path
            toWrite.userAuthentication?.pamConfigurationDirectory = configuration.userAuthentication?.pamConfigurationDirectory.map(resolve)
            toWrite.providerSettings = Dictionary(uniqueKeysWithValues: configuration.providerSettings.keys.map { ($0, settings(for: $0)) })
        }
        let data: Data
        do {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .xml
            data = try encoder.encode(toWrite)
        } catch {
            throw AutofillError(.internal, "cannot encode the configuration: \(error)")
        }
        try AtomicFile.write(data, to: writePath, mode: 0o600)
        if writePath != path {
            path = writePath
            source = .user
            configuration = toWrite
            demoStores = nil
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : LexicalPath.standardized(FileManager.default.currentDirectoryPath + "/" + path)
    }

    /// A directory given as a configuration means the config.plist inside it.
    static func resolveFile(_ path: String) -> String {
        var isDirectory = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory {
            return "\(path)/\(fileName)"
        }
        return path
    }
}

/// A `DecodingError` as a sentence naming the key path.
func describeDecodingError(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
        let keys = context.codingPath.reduce(into: "") { text, key in
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return keys.isEmpty ? "the top level" : keys
    }
    switch error {
    case .typeMismatch(let type, let context): return "\(path(context)): expected \(type), \(context.debugDescription)"
    case .valueNotFound(let type, let context): return "\(path(context)): expected \(type), found nothing"
    case .keyNotFound(let key, let context): return "\(path(context)): missing key \(key.stringValue)"
    case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
    @unknown default: return "\(error)"
    }
}

extension AtomicFile {
    /// Writes `data` to `path` atomically (``AtomicFile``: temporary file in the same folder, fsync,
    /// rename, fsync of the folder), creating the folder (mode 0700) if needed.
    static func write(_ data: Data, to path: String, mode: UInt32) throws(AutofillError) {
        let folder = LexicalPath.folder(of: path)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AutofillError(.io, "cannot create the folder \(folder): \(error)")
        }
        do {
            try write([UInt8](data), to: path, mode: mode)
        } catch {
            throw AutofillError(.io, error.description)
        }
    }
}
