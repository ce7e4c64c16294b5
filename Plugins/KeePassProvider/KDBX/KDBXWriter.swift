internal import Crypto
internal import Foundation

/// Saves a change into a KeePass database (KDBX 3.1 and 4.x) the way KeePassXC saves: the file's own
/// format version, cipher, compression, key derivation and parameters, and composite key kept; a new
/// master seed, encryption IV, key derivation seed or salt and inner stream key (KDBX 3.1: also new
/// stream start bytes) at every save; every protected value re-encrypted in document order; KDBX 4's
/// header hash, HMAC and HMAC blocks, KDBX 3.1's hashed blocks and Meta/HeaderHash made anew.
/// Everything the edit does not touch is copied as read: entries, groups, history, custom data,
/// deleted objects, icons, and attachments (KDBX 4's inner-header binaries byte for byte; KDBX 3.1's
/// Meta/Binaries as text).
///
/// The file is read at the save (reload, then apply: a change another program saved before is kept)
/// and replaced atomically, only if it did not change on disk meanwhile (``KDBXError/Code/changedOnDisk``).
/// Saving holds the file, its decrypted XML (at most ``maximumXMLSize``) and the attachments in
/// memory; reading for filling never does.
public enum KDBXWriter {
    /// The largest decrypted XML saved into: larger ends in an error before anything is written.
    public static let maximumXMLSize = 128 << 20

    /// Reads the database at `path` with `key`, asks `decide` what to change in it (nil: nothing),
    /// and saves the change. Returns the database as saved (or as read, when nothing changed).
    /// `beforeReplace` runs after the new file is made, before the one on disk is checked and
    /// replaced (tests change the file there).
    public static func save(
        at path: String, key: CompositeKey, kdfLimit: Duration = KeyDerivationCost.defaultLimit,
        beforeReplace: (() -> Void)? = nil, _ decide: (KDBXDatabase) throws(KDBXError) -> KDBXEdit?
    ) throws(KDBXError) -> KDBXDatabase {
        try save(SavedFile(reading: path), key: key, kdfLimit: kdfLimit, beforeReplace: beforeReplace,
                 replace: { contents, saved throws(KDBXError) in try saved.replace(with: contents) }, decide)
    }

    /// Saves a change into `saved` (the database as read, ``SavedFile``) as ``save(at:key:kdfLimit:beforeReplace:_:)``
    /// does, handing the new file's bytes to `replace` instead of writing them here: a sandboxed provider
    /// asks the host to replace the file (`replace_file`), only while it is still `saved`.
    public static func save(
        _ saved: SavedFile, key: CompositeKey, kdfLimit: Duration = KeyDerivationCost.defaultLimit,
        beforeReplace: (() -> Void)? = nil, replace: (_ contents: [UInt8], _ saved: SavedFile) throws(KDBXError) -> Void,
        _ decide: (KDBXDatabase) throws(KDBXError) -> KDBXEdit?
    ) throws(KDBXError) -> KDBXDatabase {
        let path = saved.path
        let header = try KDBXHeader(reading: saved.bytes)
        let version = "\(header.majorVersion).\(header.minorVersion)"
        let xml = CollectingSink(limit: maximumXMLSize, tooLarge: """
            the database \(path) holds more than \(maximumXMLSize >> 20) MiB of XML: autofill does not save into it (use KeePassXC); nothing was written
            """)
        var parameters: InnerStream.Parameters?
        let collect = { (found: InnerStream.Parameters) throws(KDBXError) -> any PayloadSink in
            parameters = found
            return xml
        }
        let innerHeader = InnerHeaderSink(keepsBinaries: true, makeDocument: collect)
        try KDBXReader.decrypt(saved.bytes, header: header, key: key, kdfLimit: kdfLimit, name: "the database \(path)",
                               innerHeader: innerHeader, makeDocument: collect)
        guard let parameters else { throw KDBXError(.corrupt, "the inner header ends early: the file is truncated or damaged") }

        let read = KDBXDocument(stream: try InnerStream(parameters), binaryTimes: header.isVersion4)
        try read.write(xml.bytes)
        try read.finish()
        try KDBXReader.checkHeaderHash(read.headerHash, of: header)
        let before = KDBXDatabase(formatVersion: version, name: read.name, entries: read.entries())
        guard let edit = try decide(before) else { return before }

        let renewed = try header.renewed()
        let newStream = try newInnerStream(renewed, like: parameters)
        let file = CollectingSink()
        let payload = try payloadSink(renewed, key: key, innerStream: newStream, binaries: innerHeader.binaries, file: file)
        let written = KDBXDocument(stream: try InnerStream(newStream), binaryTimes: header.isVersion4)
        let output = XMLOutput(sink: TeeSink(payload, written), stream: try InnerStream(newStream))
        output.declaration()
        let rewriter = KDBXRewriter(reading: try InnerStream(parameters), output: output, binaryTimes: header.isVersion4, edit: edit,
                                    headerHash: renewed.isVersion4 ? nil : Array(SHA256.hash(data: renewed.bytes)))
        try rewriter.rewrite(xml.bytes)
        let after = KDBXDatabase(formatVersion: version, name: written.name, entries: written.entries())
        try check(after, against: before, edit: edit)
        beforeReplace?()
        try replace(file.bytes, saved)
        return after
    }

    /// The new inner stream: the same algorithm with a new key (KDBX 3.1: the renewed header's).
    private static func newInnerStream(_ header: KDBXHeader, like old: InnerStream.Parameters) throws(KDBXError) -> InnerStream.Parameters {
        if let parameters = header.innerStream { return parameters }
        var random = SystemRandomNumberGenerator()
        return try InnerStream.Parameters(id: old.id, key: (0..<64).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    /// The sink the XML is written to: through KDBX 4's inner header (written here) or KDBX 3.1's
    /// start bytes and hashed blocks, gzip when the file is compressed, encryption with the key
    /// derived anew, and KDBX 4's HMAC blocks, into `file`, which gets the header first.
    private static func payloadSink(
        _ header: KDBXHeader, key: CompositeKey, innerStream: InnerStream.Parameters, binaries: [[UInt8]], file: CollectingSink
    ) throws(KDBXError) -> any PayloadSink {
        var transformed = try KDBXReader.transformedKey(key, with: header.keyDerivation)
        defer { for index in transformed.indices { transformed[index] = 0 } }
        let cipherKey = Array(SHA256.hash(data: header.masterSeed + transformed))
        try file.write(header.bytes)
        guard header.isVersion4 else {
            guard let start = header.streamStartBytes else { throw KDBXError(.corrupt, "the database header has no stream start bytes") }
            let encrypting = try EncryptingSink(header.cipher, key: cipherKey, iv: header.encryptionIV, next: file)
            try encrypting.write(start)
            let hashed = HashedBlockWriter(next: encrypting)
            return header.isCompressed ? try DeflatingSink(next: hashed) : hashed
        }
        let hmacBase = Array(SHA512.hash(data: header.masterSeed + transformed + [1]))
        try file.write(Array(SHA256.hash(data: header.bytes)))
        let headerKey = SymmetricKey(data: BlockStreams.blockKey(index: UInt64.max, hmacBase: hmacBase))
        try file.write(Array(HMAC<SHA256>.authenticationCode(for: header.bytes, using: headerKey)))
        let encrypting = try EncryptingSink(header.cipher, key: cipherKey, iv: header.encryptionIV, next: HMACBlockWriter(hmacBase: hmacBase, next: file))
        let plain: any PayloadSink = header.isCompressed ? try DeflatingSink(next: encrypting) : encrypting
        func field(_ id: UInt8, _ data: [UInt8]) throws(KDBXError) {
            try plain.write([id] + [UInt8](littleEndian: UInt64(data.count), size: 4) + data)
        }
        try field(1, [UInt8](littleEndian: UInt64(innerStream.id), size: 4))
        try field(2, innerStream.key)
        for binary in binaries { try field(3, binary) }
        try field(0, [])
        return plain
    }
}
