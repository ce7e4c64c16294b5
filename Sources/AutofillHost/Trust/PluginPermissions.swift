internal import AutofillSystem

/// Who could change a plugin's files: a bundle that another user could write is refused before any of
/// it is read further, as sshd refuses a world-writable `authorized_keys`.
///
/// The rules, for the user `owner` running autofill:
/// * the bundle directory, every file and folder in it (Info.plist, the library), and the search folder
///   holding the bundle must be owned by `owner` or root and writable by neither group nor others. A
///   group write bit is harmless, and allowed, when the group is the owner's *private* group (Debian's
///   user private groups with umask 002: the owner's primary group, named after the owner, no other
///   members), the rule Debian's OpenSSH applies to `~/.ssh`;
/// * every folder above the search folder must be owned by `owner` or root and not writable by group or
///   others, unless it has the sticky bit (`/tmp`, mode 1777): there only an entry's owner may rename or
///   delete it, so another user cannot swap the user's own folder below it. The search folder itself
///   gets no such exemption: in a sticky folder anyone may still *add* a bundle;
/// * a symbolic link is followed, and its target checked the same way (along its real path).
///
/// The host's own files get the same rule (``problems(hostPath:what:folder:contents:)``): the configuration,
/// the identity-store folder, the trust and fault records, a `PAMConfigurationDirectory` and the files
/// in it. Whoever could write those could make autofill run or trust what the user never approved.
public enum PluginPermissions {
    /// Every permission problem of the bundle at `bundlePath`; empty when only the user running autofill
    /// (its effective uid) and root can change it.
    /// A bundle that does not exist has no problems here (the manifest reader reports it).
    public static func problems(bundle bundlePath: String) -> [PluginProblem] {
        problems(bundle: bundlePath, owner: Users.effective)
    }

    /// The problems for user `owner` (tests).
    static func problems(bundle bundlePath: String, owner: UInt32) -> [PluginProblem] {
        guard !bundlePath.isEmpty else { return [] }
        let bundle = ManifestReader.normalized(ConfigurationFile.absolute(bundlePath))
        guard (try? FileStatus(path: bundle)) != nil else { return [] }
        var checker = Checker(owner: owner, subject: Checker.pluginSubject)
        for path in Set([bundle, realPath(bundle)].compactMap { $0 }).sorted() {
            checker.checkFolders(above: path)
        }
        checker.check(bundle, role: .bundle)
        checker.checkContents(of: bundle, depth: 0)
        return checker.problems
    }

    /// Every permission problem of the host's own file or folder at `path` (`what` names it in messages:
    /// "the configuration"): the path itself must be owned by the user running autofill or root and
    /// writable by neither group nor others (a private group excepted), and so must every folder above
    /// it, where a sticky bit is allowed. With `folder`, the folder holding `path` gets the strict rule
    /// too, named so (no sticky exemption: in a sticky folder anyone may still *add* a file). With
    /// `contents`, every entry of a folder is checked as well (a PAM configuration folder: its service
    /// files and what they include). A path that does not exist yet is not a problem; the folders above
    /// it still are.
    public static func problems(hostPath path: String, what: String, folder: String? = nil, contents: Bool = false) -> [PluginProblem] {
        problems(hostPath: path, what: what, folder: folder, contents: contents, owner: Users.effective)
    }

    /// The problems for user `owner` (tests).
    static func problems(hostPath path: String, what: String, folder: String? = nil, contents: Bool = false, owner: UInt32) -> [PluginProblem] {
        guard !path.isEmpty else { return [] }
        let absolute = ManifestReader.normalized(ConfigurationFile.absolute(path))
        var checker = Checker(owner: owner, subject: what)
        for candidate in Set([absolute, realPath(absolute)].compactMap { $0 }).sorted() {
            if let folder { checker.check(ConfigurationFile.directory(of: candidate), role: .hostFolder(folder)) }
            checker.checkFolders(above: candidate, strictParent: false)
        }
        guard let info = try? FileStatus(path: absolute) else { return checker.problems }
        let role: Role = info.kind == .directory ? .hostFolder(what) : .hostFile(what)
        checker.check(absolute, role: role)
        if let real = realPath(absolute), real != absolute { checker.check(real, role: role) }
        if contents && role.isHostFolder { checker.checkContents(of: absolute, depth: 0) }
        return checker.problems
    }

    /// What a checked path is to the plugin (or to the host), which decides the rule and the wording.
    enum Role: Hashable {
        case bundle, content, searchFolder, ancestor
        /// A file of the host's own ("the configuration"); strict.
        case hostFile(String)
        /// A folder of the host's own ("the identity-store folder"); strict, no sticky exemption.
        case hostFolder(String)

        var isHostFolder: Bool {
            if case .hostFolder = self { return true }
            return false
        }
    }

    struct Checker {
        let owner: UInt32
        /// What the folders above are above, for messages ("the plugin bundle", "the configuration").
        let subject: String
        var problems: [PluginProblem] = []
        var checked: Set<Checked> = []
        var strictlyChecked: Set<String> = []

        /// A path checked under a role (a struct, not text: interpolating the role took reflection).
        struct Checked: Hashable {
            let role: Role
            let path: String
        }

        init(owner: UInt32, subject: String) {
            self.owner = owner
            self.subject = subject
        }

        static let pluginSubject = "the plugin bundle"

        /// Whether the checked paths are a plugin's (the wording differs from the host's own files).
        var isPlugin: Bool { subject == Self.pluginSubject }

        /// The search folder holding `path` (strict, unless `strictParent` is false) and every folder
        /// above it (sticky allowed).
        mutating func checkFolders(above path: String, strictParent: Bool = true) {
            var folder = ConfigurationFile.directory(of: path)
            check(folder, role: strictParent ? .searchFolder : .ancestor)
            while folder != "/" {
                folder = ConfigurationFile.directory(of: folder)
                check(folder, role: .ancestor)
            }
        }

        /// Every entry of `folder`, recursively; symbolic links are followed and their targets checked.
        mutating func checkContents(of folder: String, depth: Int) {
            guard depth < 8, let names = try? Paths.contents(of: folder, limit: 1001) else { return }
            for name in names.sorted() {
                let path = "\(folder)/\(name)"
                guard let link = try? FileStatus(path: path, followingLinks: false) else { continue }
                if link.kind == .symbolicLink {
                    guard let target = realPath(path) else { continue }
                    checkFolders(above: target)
                    check(target, role: .content)
                    continue
                }
                check(path, role: .content)
                if link.kind == .directory { checkContents(of: path, depth: depth + 1) }
            }
        }

        mutating func check(_ path: String, role: Role) {
            // A folder checked by a strict rule needs no second, laxer look (nor a second message).
            if role == .ancestor && strictlyChecked.contains(path) { return }
            guard checked.insert(Checked(role: role, path: path)).inserted else { return }
            if role != .ancestor { strictlyChecked.insert(path) }
            guard let info = RealPath.status(of: path) else { return }  // a folder's once per request in the agent
            if info.owner != owner && info.owner != 0 {
                let chown = "run `chown \(Self.userName(owner, bare: true)) \(shellQuoted(path))` as root"
                problems.append(PluginProblem(
                    .unsafePermissions, file: path,
                    message: "\(what(role)) belongs to \(Self.userName(info.owner)), not to you or root: that user could change \(isPlugin ? "the plugin" : subject)",
                    fix: isPlugin
                        ? "install the plugin in a folder of your own (and add it to PluginSearchPaths), or, if you trust it, \(chown)"
                        : "use a file or folder of your own, or, if you trust that user, \(chown)"))
            }
            // A sticky folder above is fine whoever may write it (/tmp): decided before the group's
            // members are looked up (which reads /etc/passwd and /etc/group).
            let sticky = info.sticky
            guard !(role == .ancestor && sticky) else { return }
            let groupWritable = info.groupWritable && !Self.isPrivateGroup(info.group, of: info.owner)
            guard groupWritable || info.othersWritable else { return }
            let group = "the group \(Self.groupName(info.group))"
            let who = !info.othersWritable ? group : !groupWritable ? "every user" : "\(group) and every user"
            let mode = "0" + String(info.permissions, radix: 8)
            let consequence: String =
                switch role {
                case .searchFolder: "users other than you could add or replace plugins in it"
                case .ancestor where isPlugin: "users other than you could add or replace plugins in it"
                case .ancestor: "users other than you could replace what is below it"
                case .hostFolder: "users other than you could add or replace files in it"
                case .hostFile(let what): "users other than you could change \(what)"
                case .bundle, .content: "users other than you could change the plugin"
                }
            let fix =
                role == .searchFolder && sticky
                ? "keep plugin bundles in a folder only you can write (`mkdir -m 700 FOLDER`) and list it in PluginSearchPaths"
                : role.isHostFolder && sticky
                ? "use a folder only you can write (`mkdir -m 700 FOLDER`) instead"
                : "`chmod go-w \(shellQuoted(path))`"
            problems.append(PluginProblem(
                .unsafePermissions, file: path, message: "\(what(role)) is writable by \(who) (mode \(mode)): \(consequence)", fix: fix))
        }

        func what(_ role: Role) -> String {
            switch role {
            case .bundle: "the plugin bundle"
            case .content: isPlugin ? "this file of the plugin" : "this file in \(subject)"
            case .searchFolder: "the folder holding the plugin bundle"
            case .ancestor: "a folder above \(subject)"
            case .hostFile(let what), .hostFolder(let what): what
            }
        }

        /// Whether `gid` is `uid`'s private group: its primary group, named like it, with no other members.
        static func isPrivateGroup(_ gid: UInt32, of uid: UInt32) -> Bool {
            guard let user = Users.account(uid), user.group == gid, let group = Users.group(gid), group.name == user.name else {
                return false
            }
            return group.members.allSatisfy { $0 == user.name }
        }

        static func groupName(_ gid: UInt32) -> String {
            guard let group = Users.group(gid) else { return "\(gid)" }
            return "\(group.name) (gid \(gid))"
        }

        static func userName(_ uid: UInt32, bare: Bool = false) -> String {
            let name = Users.account(uid)?.name
            if bare { return name ?? "\(uid)" }
            return name.map { "the user \($0) (uid \(uid))" } ?? "uid \(uid)"
        }
    }

    /// What `autofill plugin validate` reports for a bundle refused for its permissions (nothing else of it
    /// is read), or nil when only the user and root can change it.
    public static func refusedValidation(bundle bundlePath: String) -> PluginValidation? {
        let problems = problems(bundle: bundlePath)
        guard !problems.isEmpty else { return nil }
        return PluginValidation(bundlePath: ManifestReader.normalized(bundlePath), manifest: nil, entryPoints: nil, problems: problems)
    }

    /// The path with every symbolic link resolved, or nil.
    static func realPath(_ path: String) -> String? {
        RealPath.resolve(path)  // once per request in the agent
    }

    /// `path` quoted for a POSIX shell when it needs to be.
    static func shellQuoted(_ path: String) -> String {
        let plain = path.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || "/._-+:@".utf8.contains(byte)
        }
        return plain ? path : "'" + path.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
