internal import AutofillCore

/// What a provider's Info.plist says it needs, in its `AFProviderSandbox` dictionary, read before any
/// of its code runs (docs/SANDBOX.md, "Declaring what your provider needs"). Nothing declared means
/// nothing beyond its own folders.
///
/// ```xml
/// <key>AFProviderSandbox</key>
/// <dict>
///   <key>Files</key>
///   <array>
///     <dict><key>Setting</key><string>VaultFile</string><key>Access</key><string>read-write</string></dict>
///     <dict><key>Setting</key><string>NetrcFile</string><key>Default</key><string>~/.netrc</string><key>Access</key><string>read</string></dict>
///     <dict><key>Path</key><string>~/.password-store</string><key>Access</key><string>read</string></dict>
///     <dict><key>Setting</key><string>GnuPGHome</string>
///       <key>Default</key><array><string>$GNUPGHOME</string><string>~/.gnupg</string></array>
///       <key>Access</key><string>read</string></dict>
///   </array>
///   <key>OutboundTCPPorts</key><array><integer>443</integer></array>
///   <key>SessionBus</key><true/>
///   <key>SessionBusNames</key><array><string>org.freedesktop.secrets</string></array>
///   <key>SessionBusVisibleNames</key><array><string>org.gnome.keyring</string></array>
///   <key>Executables</key><array><string>gpg</string></array>
///   <key>Environment</key><array><string>PASSWORD_STORE_DIR</string><string>GNUPGHOME</string></array>
///   <key>GPGAgent</key><string>GnuPGHome</string>
/// </dict>
/// ```
///
/// `GPGAgent` names the declared folder setting that is a GnuPG home: before running the provider, autofill
/// starts your gpg-agent for that home (`gpgconf --homedir HOME --launch gpg-agent`) outside the sandbox,
/// as `pass` or `gpg` would; a sandboxed provider cannot start a daemon itself. That home is granted `read`
/// only (gpg decrypts and encrypts without writing there): gpg-agent runs the programs its configuration
/// names outside the sandbox, so no provider may change a GnuPG home (``SandboxContext/checkGnuPG``).
///
/// ```xml
/// ```
public struct SandboxDeclaration: Hashable, Sendable {
    /// The plist key.
    public static let key = "AFProviderSandbox"

    /// How a declared file may be used.
    public enum Access: String, Hashable, Sendable {
        /// Read the file (or everything beneath the folder).
        case read
        /// Read and change: the file's *folder* (saving atomically means a temporary file renamed over it).
        case readWrite = "read-write"
        /// Read and change the folder itself, which the setting or path names (a GnuPG home): never
        /// its parent, so a folder that does not exist grants nothing.
        case readWriteFolder = "read-write-folder"
        /// Read the folder; the host (never the provider) adds and replaces files named `*Suffix` in it, on
        /// the provider's request (`add_file`), never its hidden files or folders (``FileGrantWriter``).
        case addFiles = "add-files"
        /// Read the file; the host (never the provider) replaces it with contents the provider hands it
        /// (`replace_file`), only while the file is still the version the provider read. Nothing beside
        /// the file is granted, so a file in the home folder may be saved into (``FileGrantWriter``).
        case replaceFile = "replace-file"
    }

    /// One declared file or folder: named by a provider setting (with defaults when unset) or by path.
    public struct File: Hashable, Sendable {
        public var setting: String?
        public var path: String?
        /// What an unset setting stands for: candidates in order, the first that resolves (every
        /// variable it names is set) wins. A `Default` string is one candidate.
        public var defaults: [String]
        public var access: Access
        /// `add-files`: how the names of the files the host adds end (`Suffix`, such as `.gpg`).
        public var suffix: String?
        /// `add-files`: the host commits each file it adds when the folder is in a git work tree (`GitCommit`).
        public var gitCommit: Bool

        public init(setting: String? = nil, path: String? = nil, defaults: [String] = [], access: Access,
                    suffix: String? = nil, gitCommit: Bool = false) {
            self.setting = setting
            self.path = path
            self.defaults = defaults
            self.access = access
            self.suffix = suffix
            self.gitCommit = gitCommit
        }

        /// The permission key recorded when the user approves it (`add-files` also records the suffix
        /// and whether the host commits, so a change of either is asked again).
        package var permissionKey: String {
            var kind = access.rawValue
            if access == .addFiles { kind += ":\(suffix ?? ""):\(gitCommit ? "git" : "no-git")" }
            if let setting { return "file:setting:\(setting):\(kind)" }
            return "file:path:\(path ?? ""):\(kind)"
        }
    }

    public var files: [File]
    public var outboundTCPPorts: [UInt16]
    public var sessionBus: Bool
    /// The bus names it may talk to on the session bus (`--talk` of the filtering proxy); required with `sessionBus`.
    public var sessionBusNames: [String]
    /// Names it may see on the session bus (whether they are there: `--see` of the proxy), not call.
    public var sessionBusVisibleNames: [String]
    public var executables: [String]
    public var environment: [String]
    /// The declared setting naming the GnuPG home whose gpg-agent autofill starts first (`GPGAgent`).
    public var gpgAgentHomeSetting: String?

    public init(files: [File] = [], outboundTCPPorts: [UInt16] = [], sessionBus: Bool = false, sessionBusNames: [String] = [],
                sessionBusVisibleNames: [String] = [], executables: [String] = [], environment: [String] = []) {
        self.files = files
        self.outboundTCPPorts = outboundTCPPorts
        self.sessionBus = sessionBus
        self.sessionBusNames = sessionBusNames
        self.sessionBusVisibleNames = sessionBusVisibleNames
        self.executables = executables
        self.environment = environment
    }

    /// The permissions as stable keys, recorded with the user's approval (``TrustRecord``).
    public var permissionKeys: [String] {
        var keys = files.map(\.permissionKey)
        keys += outboundTCPPorts.map { "net:tcp:\($0)" }
        if sessionBus {
            keys += sessionBusNames.map { "bus:name:\($0)" }
            keys += sessionBusVisibleNames.map { "bus:see:\($0)" }
        }
        keys += executables.map { "exec:\($0)" }
        keys += environment.map { "env:\($0)" }
        if let gpgAgentHomeSetting { keys.append("agent:gpg:\(gpgAgentHomeSetting)") }
        return keys
    }

    /// The permission keys this declaration asks for beyond `approved`.
    public func asksMore(than approved: [String]) -> [String] {
        let known = Set(approved)
        return permissionKeys.filter { !known.contains($0) }
    }

    /// A permission key in plain words ("connect to the internet on TCP port 443").
    public static func describe(permissionKey key: String) -> String {
        let parts = key.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        func safe(_ text: String) -> String { DisplayText.line(text, limit: 200) }
        switch parts.first {
        case "file" where parts.count == 4:
            let what = parts[1] == "setting" ? "the file named by its \(safe(parts[2])) setting" : safe(parts[2])
            if parts[3].hasPrefix(Access.addFiles.rawValue + ":") {
                let detail = parts[3].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                let folder = parts[1] == "setting" ? "the folder named by its \(safe(parts[2])) setting" : safe(parts[2])
                let commit = detail.count > 2 && detail[2] == "git" ? ", committing each to git when the folder is a git repository" : ""
                return "read \(folder), and have autofill add and replace files named *\(safe(detail.count > 1 ? detail[1] : "")) in it\(commit), never its hidden files or folders"
            }
            switch Access(rawValue: parts[3]) {
            case .readWrite: return "read and change files in the folder of \(what)"
            case .replaceFile: return "read \(what), and have autofill replace that one file with what it hands over, only while the file is still the version it read"
            case .readWriteFolder: return "read and change the folder named by \(parts[1] == "setting" ? "its \(safe(parts[2])) setting" : safe(parts[2]))"
            default: return "read \(what)"
            }
        case "grant" where parts.count >= 3:
            let path = safe(parts[2...].joined(separator: ":"))
            return parts[1] == "read-write" ? "read and change \(path)" : "read \(path)"
        case "net" where parts.count == 3: return "connect to the internet on TCP port \(safe(parts[2]))"
        case "bus" where parts.count == 3 && parts[1] == "name": return describe(busName: safe(parts[2]))
        case "bus" where parts.count == 3 && parts[1] == "see": return "see whether \(safe(parts[2])) is on your session bus (not call it)"
        case "bus": return "talk to your D-Bus session bus"
        case "exec" where parts.count == 2: return "run the program \(safe(parts[1])) inside its sandbox"
        case "env" where parts.count == 2: return "see the environment variable \(safe(parts[1]))"
        case "agent" where parts.count == 3 && parts[1] == "gpg":
            return "have autofill start your gpg-agent for the GnuPG home named by its \(safe(parts[2])) setting"
        default: return safe(key)
        }
    }

    /// What talking to `name` on the session bus lets a provider do, in plain words.
    package static func describe(busName name: String) -> String {
        switch name {
        case "org.freedesktop.secrets":
            return "read and change the items of your unlocked keyrings, including other applications' passwords (the Secret Service, org.freedesktop.secrets on your session bus)"
        case "org.freedesktop.systemd1":
            return "start any program as you, outside its sandbox (systemd, org.freedesktop.systemd1 on your session bus)"
        default:
            return "talk to \(name) on your session bus, and do whatever that service lets any program of yours do"
        }
    }

    /// Why `name` is not a bus name a provider may declare, or nil: a well-known name (two or more
    /// dot-separated elements of letters, digits, `_` and `-`, not starting with a digit), never the
    /// bus itself (`org.freedesktop.DBus`: its activation calls would run programs outside the sandbox).
    static func busNameProblem(_ name: String) -> String? {
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name.utf8.count <= 255, elements.count >= 2, elements.allSatisfy({ element in
            guard let first = element.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            return element.unicodeScalars.allSatisfy { $0 == "_" || $0 == "-" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
        }) else { return "is not a well-known D-Bus name (such as org.freedesktop.secrets)" }
        if name == "org.freedesktop.DBus" { return "is the bus itself, which the filter answers for the few harmless calls every client needs" }
        return nil
    }

    /// Environment variables a provider may never ask for: they would change how programs load, leak
    /// the user's agents, or are the sandbox's own.
    static func isRefusedEnvironmentName(_ name: String) -> Bool {
        name.hasPrefix("LD_") || name.hasPrefix("AUTOFILL_") || name.hasPrefix("SWIFT_")
            || ["DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "PATH", "HOME", "TMPDIR",
                "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "PYTHONPATH", "PERL5LIB", "BASH_ENV", "ENV", "IFS"].contains(name)
    }

    /// Reads the `AFProviderSandbox` value; every mistake goes to `problem(keyPath, message, fix)`.
    static func read(_ value: PlistValue?, problem: (String, String, String) -> Void) -> SandboxDeclaration {
        var declaration = SandboxDeclaration()
        guard let value else { return declaration }
        let key = Self.key
        guard case .dictionary(let top) = value else {
            problem(key, "expected a Dictionary, found \(value.typeNameWithArticle)", "see docs/SANDBOX.md for its keys")
            return declaration
        }
        let known = ["Files", "OutboundTCPPorts", "SessionBus", "SessionBusNames", "SessionBusVisibleNames", "Executables", "Environment", "GPGAgent"]
        for name in top.keys.sorted() where !known.contains(name) {
            problem("\(key).\(DisplayText.line(name, limit: 100))", "is not a sandbox key",
                    "use only \(known.joined(separator: ", ")) (docs/SANDBOX.md)")
        }
        declaration.environment = strings(top["Environment"], path: "\(key).Environment", problem: problem) { name in
            guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic),
                name.unicodeScalars.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) })
            else { return "is not an environment variable name" }
            return isRefusedEnvironmentName(name) ? "is not a variable a provider may see (it would change how programs load, reach your agents, or is autofill's own)" : nil
        }
        if let files = top["Files"] {
            if case .array(let entries) = files {
                for (index, entry) in entries.enumerated() {
                    if let file = readFile(entry, path: "\(key).Files[\(index)]", environment: declaration.environment, problem: problem) { declaration.files.append(file) }
                }
            } else {
                problem("\(key).Files", "expected an Array, found \(files.typeNameWithArticle)", "write an <array> of <dict>s with Setting or Path, and Access")
            }
        }
        if let ports = top["OutboundTCPPorts"] {
            if case .array(let entries) = ports {
                for (index, entry) in entries.enumerated() {
                    if case .integer(let port) = entry, (1...65535).contains(port) {
                        if !declaration.outboundTCPPorts.contains(UInt16(port)) { declaration.outboundTCPPorts.append(UInt16(port)) }
                    } else {
                        problem("\(key).OutboundTCPPorts[\(index)]", "is not a TCP port", "write an <integer> from 1 to 65535")
                    }
                }
            } else {
                problem("\(key).OutboundTCPPorts", "expected an Array, found \(ports.typeNameWithArticle)", "write an <array> of <integer> ports")
            }
        }
        switch top["SessionBus"] {
        case .bool(let value): declaration.sessionBus = value
        case .none: break
        case .some(let other): problem("\(key).SessionBus", "expected a Boolean, found \(other.typeNameWithArticle)", "write <true/> or <false/>")
        }
        declaration.sessionBusNames = strings(top["SessionBusNames"], path: "\(key).SessionBusNames", problem: problem, check: busNameProblem)
        if declaration.sessionBus && declaration.sessionBusNames.isEmpty {
            problem("\(key).SessionBus", "names no bus name to talk to: the session bus reaches a provider only through a filter that lets through the names it declares",
                    "add SessionBusNames, an <array> of the names it talks to (the Secret Service: <string>org.freedesktop.secrets</string>)")
        }
        declaration.sessionBusVisibleNames = strings(top["SessionBusVisibleNames"], path: "\(key).SessionBusVisibleNames", problem: problem,
                                                     check: busNameProblem).filter { !declaration.sessionBusNames.contains($0) }
        if !declaration.sessionBus && !(declaration.sessionBusNames.isEmpty && declaration.sessionBusVisibleNames.isEmpty) {
            problem("\(key).SessionBusNames", "names bus names without SessionBus", "add <key>SessionBus</key><true/>, or remove the names")
        }
        declaration.executables = strings(top["Executables"], path: "\(key).Executables", problem: problem) { name in
            if name.hasPrefix("/") { return name.contains("/../") || name.hasSuffix("/..") ? "is not a plain absolute path" : nil }
            return name.contains("/") || name == "." || name == ".." ? "is neither a program name nor an absolute path" : nil
        }
        switch top["GPGAgent"] {
        case .none: break
        case .string(let setting) where declaration.files.contains(where: { $0.setting == setting && $0.access == .read }):
            declaration.gpgAgentHomeSetting = setting
        case .string(let setting) where declaration.files.contains(where: { $0.setting == setting }):
            problem("\(key).GPGAgent", "names a GnuPG home the provider could change: gpg-agent runs the programs its configuration names outside the sandbox",
                    "declare the \(DisplayText.line(setting, limit: 100)) Files entry with <string>read</string> Access (gpg decrypts and encrypts without writing there; docs/SANDBOX.md)")
        default:
            problem("\(key).GPGAgent", "does not name a declared read Setting",
                    "write <string>NAME</string> of the Files entry that is the GnuPG home, declared with read Access (docs/SANDBOX.md)")
        }
        return declaration
    }

    private static func readFile(_ entry: PlistValue, path: String, environment: [String], problem: (String, String, String) -> Void) -> File? {
        guard case .dictionary(let dict) = entry else {
            problem(path, "expected a Dictionary, found \(entry.typeNameWithArticle)", "write <dict> with Setting or Path, and Access")
            return nil
        }
        for name in dict.keys.sorted() where !["Setting", "Path", "Default", "Access", "Suffix", "GitCommit"].contains(name) {
            problem("\(path).\(DisplayText.line(name, limit: 100))", "is not a file key", "use Setting or Path, Default, Access, and with add-files Suffix and GitCommit")
        }
        func text(_ name: String) -> String?? {
            switch dict[name] {
            case .none: return .some(nil)
            case .string(let value) where !value.isEmpty && !value.contains("\0"): return .some(value)
            default:
                problem("\(path).\(name)", "is not a non-empty String", "write <string>…</string>")
                return nil
            }
        }
        guard let setting = text("Setting"), let filePath = text("Path") else { return nil }
        var defaults: [String] = []
        switch dict["Default"] {
        case .none: break
        case .string(let value) where !value.isEmpty && !value.contains("\0"): defaults = [value]
        case .array(let values) where !values.isEmpty:
            for value in values {
                guard case .string(let text) = value, !text.isEmpty, !text.contains("\0") else {
                    problem("\(path).Default", "is not a non-empty String or an Array of them", "write <string>…</string> or <array> of <string>s")
                    return nil
                }
                defaults.append(text)
            }
        default:
            problem("\(path).Default", "is not a non-empty String or an Array of them", "write <string>…</string> or <array> of <string>s")
            return nil
        }
        let access: Access
        switch dict["Access"] {
        case .string(let value) where Access(rawValue: value) != nil: access = Access(rawValue: value)!
        default:
            problem("\(path).Access", "is missing or not read, read-write, read-write-folder, add-files or replace-file",
                    "write <string>read</string>, <string>read-write</string>, <string>read-write-folder</string>, <string>add-files</string> or <string>replace-file</string>")
            return nil
        }
        guard let (suffix, gitCommit) = readAddFiles(dict, access: access, path: path, problem: problem) else { return nil }
        switch (setting, filePath) {
        case (nil, nil), (.some, .some):
            problem(path, "names \(setting == nil ? "neither" : "both") a Setting \(setting == nil ? "nor" : "and") a Path", "give exactly one of them")
            return nil
        case (.some, nil):
            for candidate in defaults {
                if let wrong = pathProblem(candidate, allowingSettings: true, environment: environment) {
                    problem("\(path).Default", wrong, "write an absolute path, ~/…, $XDG_DATA_HOME/…, $AUTOFILL_PROVIDER_DATA_DIR/…, or $NAME/… of a variable your Environment declares (docs/SANDBOX.md)")
                    return nil
                }
            }
        case (nil, .some(let filePath)):
            if !defaults.isEmpty { problem("\(path).Default", "goes with a Setting only", "remove it, or name a Setting"); return nil }
            if let wrong = pathProblem(filePath, allowingSettings: false) {
                problem("\(path).Path", wrong, "write an absolute path, ~/…, or $XDG_DATA_HOME/… (docs/SANDBOX.md)")
                return nil
            }
        }
        return File(setting: setting, path: filePath, defaults: defaults, access: access, suffix: suffix, gitCommit: gitCommit)
    }

    /// `Suffix` and `GitCommit` of a Files entry: required (a suffix of a dot and 1 to 16 letters or
    /// digits) and allowed only with `add-files`. Nil after a problem.
    private static func readAddFiles(_ dict: [String: PlistValue], access: Access, path: String,
                                     problem: (String, String, String) -> Void) -> (String?, Bool)? {
        guard access == .addFiles else {
            for name in ["Suffix", "GitCommit"] where dict[name] != nil {
                problem("\(path).\(name)", "goes with add-files Access only", "remove it, or declare <string>add-files</string>")
                return nil
            }
            return (nil, false)
        }
        guard case .string(let suffix)? = dict["Suffix"], suffix.hasPrefix("."), (2...17).contains(suffix.count),
            suffix.dropFirst().unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) })
        else {
            problem("\(path).Suffix", "is missing or not a dot and 1 to 16 letters or digits",
                    "write the ending of the files autofill may add, such as <string>.gpg</string> (docs/SANDBOX.md)")
            return nil
        }
        switch dict["GitCommit"] {
        case .none: return (suffix, false)
        case .bool(let value): return (suffix, value)
        case .some(let other):
            problem("\(path).GitCommit", "expected a Boolean, found \(other.typeNameWithArticle)", "write <true/> or <false/>")
            return nil
        }
    }

    /// The variables a declared path may start with.
    /// `$AUTOFILL_PROVIDER_DATA_DIR` is the provider's own data folder (a default there needs no grant beyond it).
    static let pathVariables = ["$HOME", "$XDG_CONFIG_HOME", "$XDG_DATA_HOME", "$XDG_STATE_HOME", "$XDG_CACHE_HOME", "$XDG_RUNTIME_DIR",
                                "$AUTOFILL_PROVIDER_DATA_DIR"]

    /// Why `path` is not a declarable path, or nil. A default (`allowingSettings`) may also start with
    /// `${Setting}` or with `$NAME` of a variable in `environment` (the declaration's `Environment`).
    static func pathProblem(_ path: String, allowingSettings: Bool, environment: [String] = []) -> String? {
        let components = path.split(separator: "/")
        if components.contains("..") { return "contains .." }
        if path.hasPrefix("/") || path == "~" || path.hasPrefix("~/") { return nil }
        if pathVariables.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) { return nil }
        if allowingSettings && path.hasPrefix("${") { return nil }
        if allowingSettings, path.hasPrefix("$"), let name = components.first.map({ String($0.dropFirst()) }) {
            return environment.contains(name) ? nil : "names $\(name), which its Environment does not declare"
        }
        return "is not an absolute path, ~/… or a path starting with \(pathVariables.joined(separator: ", "))"
    }

    private static func strings(_ value: PlistValue?, path: String, problem: (String, String, String) -> Void,
                                check: (String) -> String?) -> [String] {
        guard let value else { return [] }
        guard case .array(let entries) = value else {
            problem(path, "expected an Array, found \(value.typeNameWithArticle)", "write an <array> of <string>s")
            return []
        }
        var result: [String] = []
        for (index, entry) in entries.enumerated() {
            guard case .string(let text) = entry, !text.isEmpty else {
                problem("\(path)[\(index)]", "is not a non-empty String", "write <string>…</string>")
                continue
            }
            if let wrong = check(text) {
                problem("\(path)[\(index)]", "\"\(DisplayText.line(text, limit: 100))\" \(wrong)", "see docs/SANDBOX.md")
                continue
            }
            if !result.contains(text) { result.append(text) }
        }
        return result
    }
}
