public import AutofillABI
internal import AutofillCore
internal import AutofillSystem
internal import CAutofillProvider
internal import CAutofillSandbox
internal import FoundationEssentials
internal import Glibc  // errno right after CAutofillSandbox's afs_open_grant and afs_open_beneath
internal import Synchronization

/// The host's side of `add_file` (docs/SANDBOX.md, "add-files: the host writes for the provider"): a
/// provider reads a folder it declared with `add-files` Access, and asks the host to add or replace one
/// file named `*Suffix` there. The provider never gets write access: a writable store would let it write
/// `.git/config`, `.git/hooks/*` or `.gpg-id`, which the user's own `git` and `pass` run or trust outside
/// the sandbox, and Landlock cannot make parts of a writable folder read-only.
///
/// The host checks the folder is one of the provider's add-files grants (as it resolved them when it
/// launched the provider), that no component of the name is empty, `.`, `..` or hidden (starts with `.`),
/// that the name ends with the declared suffix and that the contents are 1 byte to `AF_MAX_BYTES_LENGTH`;
/// then writes beneath the resolved grant, taking every folder step with `afs_open_beneath` (no link
/// followed, never leaving the grant), creating missing folders 0700, through ``AtomicFile`` (temporary
/// file, fsync, rename), then fsyncs the folder. With `GitCommit` it commits the file as `pass insert`
/// does (``commit(_:in:folder:replaced:)``). Every message names what was wrong, never the contents.
public struct FileGrantWriter: Sendable {
    /// One add-files folder of the provider.
    public struct Folder: Sendable, Equatable {
        /// The folder as the provider's setting or declaration names it (expanded, standardized).
        public var written: String
        /// The folder with every link resolved, when the provider was launched: where the host writes.
        public var path: String
        /// The ending every file name must have (`.gpg`).
        public var suffix: String
        /// Commit each file when the folder is in a git work tree.
        public var gitCommit: Bool

        public init(written: String, path: String, suffix: String, gitCommit: Bool) {
            self.written = written
            self.path = path
            self.suffix = suffix
            self.gitCommit = gitCommit
        }
    }

    /// One replace-file file of the provider (``replace(path:contents:expectedSHA256:provider:)``).
    public struct File: Sendable, Equatable {
        /// The file as the provider's setting or declaration names it (expanded, standardized).
        public var written: String
        /// The file with every link resolved, when the provider was launched: what the host replaces.
        public var path: String

        public init(written: String, path: String) {
            self.written = written
            self.path = path
        }
    }

    /// Why a file was not added: `refused` (nothing written) or `ioError` (written or not, as the message says).
    public struct Failure: Error, Sendable, Equatable {
        public var status: ABIStatus
        public var message: String
    }

    /// The provider's add-files folders.
    public var folders: [Folder]
    /// The provider's replace-file files.
    public var files: [File]
    /// The variables git runs with (HOME, USER, LOGNAME, GNUPGHOME of the user; nothing else).
    public var environment: [String: String]
    /// The provider's declared single files (`read` of a file, `replace-file`): the files the host opens
    /// for it (``open(path:provider:)``).
    public var singleFiles: [File] = []

    /// A writer with no folder and no file: every write is refused.
    public static let none = FileGrantWriter(folders: [], environment: [:])

    public init(folders: [Folder], files: [File] = [], environment: [String: String]) {
        self.folders = folders
        self.files = files
        self.environment = environment
    }

    /// The longest name, and the most components, a file may have.
    static let maximumNameBytes = 1024, maximumComponents = 32

    /// One write at a time in this process: two saves never share a temporary file.
    static let writing = Mutex(())

    /// Adds or replaces `name` in `folder` with `contents` for `provider` (its name, for messages).
    /// Returns what was done, for the log ("added example.com/alice.gpg to /home/u/.password-store and
    /// committed it").
    public func add(folder: String, name: String, contents: [UInt8], provider: String) throws(Failure) -> String {
        guard folder.hasPrefix("/"), let grant = folders.first(where: { [$0.written, $0.path].contains(LexicalPath.standardized(folder)) }) else {
            throw refusal("\(DisplayText.line(folder, limit: 300)) is not a folder \(provider) declared with add-files Access (docs/SANDBOX.md); nothing was written")
        }
        if let problem = Self.nameProblem(name, suffix: grant.suffix) {
            throw refusal("the file name \(DisplayText.line(name, limit: 300)) \(problem); nothing was written in \(grant.path)")
        }
        guard (1...Int(AF_MAX_BYTES_LENGTH)).contains(contents.count) else {
            throw refusal("the file \(name) has \(contents.count) bytes; autofill adds files of 1 byte to \(AF_MAX_BYTES_LENGTH / 1024 / 1024) MiB; nothing was written")
        }
        return try Self.writing.withLock { _ throws(Failure) -> String in
            let replaced = try write(contents, name: name, in: grant)
            var done = "\(replaced ? "replaced" : "added") \(name) in \(grant.path)"
            if grant.gitCommit, let committed = try commit(name, in: grant, replaced: replaced) { done += committed }
            return done
        }
    }

    /// Why `name` may not be added with `suffix`, or nil.
    static func nameProblem(_ name: String, suffix: String) -> String? {
        guard !name.isEmpty else { return "is empty" }
        guard name.utf8.count <= maximumNameBytes else { return "is longer than \(maximumNameBytes) bytes" }
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count <= maximumComponents else { return "has more than \(maximumComponents) components" }
        for component in components {
            if component.isEmpty { return "has an empty component (a / at either end, or //)" }
            if component == "." || component == ".." { return "has a \(component) component" }
            if component.hasPrefix(".") {
                return "has a hidden component (\(component)); autofill never writes hidden files or folders, which tools such as git and pass read outside the sandbox"
            }
            if component.utf8.count > 255 { return "has a component longer than 255 bytes" }
            if component.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) { return "holds a control character" }
        }
        guard let last = components.last, last.hasSuffix(suffix), last.count > suffix.count else {
            return "does not end with \(suffix), the only files the provider may add there"
        }
        return nil
    }

    /// Writes `contents` to `name` beneath `grant`; whether it replaced a file.
    private func write(_ contents: [UInt8], name: String, in grant: Folder) throws(Failure) -> Bool {
        var folder = try openGrantFolder(grant.path)
        defer { close(folder) }
        let components = name.split(separator: "/").map(String.init)
        var reached = grant.path
        for component in components.dropLast() {
            reached += "/" + component
            var next = afs_open_beneath(folder, component, O_RDONLY | O_DIRECTORY, 0)
            if next < 0 && errno == ENOENT {
                do {
                    try Paths.makeFolder(component, in: folder, mode: 0o700)
                } catch where !error.alreadyExists {
                    throw ioFailure("cannot create the folder \(reached) (\(error.reason)); nothing was written")
                } catch {}
                next = afs_open_beneath(folder, component, O_RDONLY | O_DIRECTORY, 0)
            }
            guard next >= 0 else {
                var code = errno
                // O_NOFOLLOW | O_DIRECTORY on a link says ENOTDIR: say what it is.
                if code == ENOTDIR, (try? FileStatus(component, in: folder))?.kind == .symbolicLink { code = ELOOP }
                throw code == ELOOP || code == EXDEV
                    ? refusal("\(reached) is a symbolic link; autofill never follows links in an add-files folder; nothing was written")
                    : code == ENOTDIR ? refusal("\(reached) is not a folder; nothing was written")
                    : ioFailure("cannot open the folder \(reached) (\(SystemError("open", code: code).reason)); nothing was written")
            }
            Descriptors.closeQuietly(folder)
            folder = next
        }
        let last = components.last!
        // The file it replaces must be a plain file: a link there would name something else.
        let info = try? FileStatus(last, in: folder)
        let exists = info != nil
        if let info, info.kind != .regular {
            throw refusal("\(reached)/\(last) is \(info.kind == .symbolicLink ? "a symbolic link" : "not a plain file"); autofill replaces only plain files; nothing was written")
        }
        let written: Result<Void, AtomicFile.Failure> = contents.withUnsafeBytes { bytes in
            do throws(AtomicFile.Failure) {
                try AtomicFile.write(bytes, named: last, in: folder, shownAs: reached, mode: 0o600)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let failure) = written { throw ioFailure(failure.description + "; nothing was written") }
        return exists
    }

    /// The folder `path` (resolved when the provider was launched) opened for writing beneath it, with no
    /// link on the way: a link there now was put there since, and is refused.
    func openGrantFolder(_ path: String, undone: String = "nothing was written") throws(Failure) -> Int32 {
        let grant = afs_open_grant(path)
        let opened: Result<Int32, SystemError> = grant >= 0
            ? Result { () throws(SystemError) in try Descriptors.open(".", in: grant, .directory) }
            : .failure(SystemError("open \(path)", code: errno))
        if grant >= 0 { Descriptors.closeQuietly(grant) }
        switch opened {
        case .success(let folder): return folder
        case .failure(let error):
            throw error.isALink
                ? refusal("\(path) now leads through a symbolic link; autofill uses only the folder it resolved when it started the provider; \(undone)")
                : ioFailure("cannot open the folder \(path) (\(error.reason)); \(undone)")
        }
    }

    func refusal(_ message: String) -> Failure { Failure(status: .refused, message: message) }
    func ioFailure(_ message: String) -> Failure { Failure(status: .ioError, message: message) }
}

extension ProviderSetup {
    /// The add-files folders and replace-file files of `manifest`, as its sandbox grants them now
    /// (``FileGrantWriter``), with the user's variables git needs.
    func fileGrantWriter(for manifest: PluginManifest) -> FileGrantWriter {
        let context = SandboxContext(setup: self)
        let grants = (try? context.declaredFiles(manifest)) ?? []
        let folders = grants.compactMap { grant in
            grant.addFiles.map { FileGrantWriter.Folder(written: grant.written, path: grant.path, suffix: $0.suffix ?? "", gitCommit: $0.gitCommit) }
        }
        let files = grants.filter(\.replaceFile).map { FileGrantWriter.File(written: $0.written, path: $0.path) }
        var environment: [String: String] = ["HOME": context.home]
        for name in ["USER", "LOGNAME", "GNUPGHOME"] { environment[name] = context.environment[name] }
        var writer = FileGrantWriter(folders: folders, files: files, environment: environment)
        writer.singleFiles = context.singleFiles(manifest)
        return writer
    }
}
