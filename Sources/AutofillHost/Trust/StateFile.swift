internal import AutofillSystem
internal import FoundationEssentials

/// A JSON document of the host's records (``HostRecords``: one per-user folder, whatever the
/// configuration says): read freely, changed under an exclusive lock and replaced atomically (temporary
/// file, fsync, rename; mode 0600).
///
/// Neither is done when users other than the user (and root) could change the file or its folder: the
/// records decide which plugin code runs, so they get the rule plugin bundles get (``PluginPermissions``).
///
/// Readers take no lock: a rename replaces the whole file, so a reader sees the old or the new document.
/// Writers serialise on `flock` of `<file>.lock`, across threads and processes (each `update` opens its
/// own descriptor, and `flock` locks belong to open file descriptions), so no update is lost.
struct StateFile<Document: Codable & Sendable>: Sendable {
    /// The document's path.
    let path: String
    /// What the document is, for messages ("the trust records").
    let what: String
    /// The document when the file does not exist yet.
    let empty: @Sendable () -> Document

    /// The document, or `empty()` when the file does not exist.
    func read() throws(AutofillError) -> Document {
        try checkPermissions()
        guard Paths.exists(path) else { return empty() }
        // Decoded again only when the file changed (the agent reads the records at every request).
        return try StampedCache.value("state \(String(reflecting: Document.self))", of: [path]) { () throws(AutofillError) -> Document in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw AutofillError(.io, "cannot read \(what) \(path): check it is readable")
            }
            do {
                return try Self.decoder.decode(Document.self, from: data)
            } catch {
                throw AutofillError(
                    .io, "\(what) \(path) cannot be read (\(describeDecodingError(error))): restore it, or delete it to start \(what) afresh")
            }
        }
    }

    /// Reads the document under the lock, lets `body` change it, and writes it back (unless `body` throws).
    @discardableResult
    func update<Result>(_ body: (inout Document) throws(AutofillError) -> Result) throws(AutofillError) -> Result {
        try checkPermissions()
        let folder = ConfigurationFile.directory(of: path)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AutofillError(.io, "cannot create the folder \(folder): \(error)")
        }
        let lockPath = "\(path).lock"
        let lock = try RecordLock.take(lockPath)
        defer { Descriptors.closeQuietly(lock) }  // closing the descriptor releases the lock
        var document = try read()
        let result = try body(&document)
        let data: Data
        do {
            data = try Self.encoder.encode(document)
        } catch {
            throw AutofillError(.internal, "cannot encode \(what): \(error)")
        }
        try AtomicFile.write(data, to: path, mode: 0o600)
        return result
    }

    /// Refuses (`refused`, exit 77) a file or folder that users other than the user and root could change.
    func checkPermissions() throws(AutofillError) {
        let problems = HostRecords.problems(ofRecordFile: path)
        guard problems.isEmpty else {
            throw AutofillError(.refused, "autofill does not use \(what) \(path): users other than you could change them:", problems: problems)
        }
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
