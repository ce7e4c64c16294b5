/// Why a KeePass database could not be read or saved: a stable ``Code`` and a message for people.
///
/// Messages name what was wrong and what to do; they never carry a byte of the database's contents,
/// the master password or the key file.
public struct KDBXError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable {
        /// The file is not there or cannot be read.
        case unreadable
        /// Not a KeePass 2 database (wrong signature), or a version this reader does not know.
        case notKDBX
        /// The file ends early, or a structure inside it is malformed.
        case corrupt
        /// The master password or key file is wrong (the header's HMAC or the start bytes do not match).
        case wrongKey
        /// The file was changed: a checksum or HMAC of a block failed.
        case tampered
        /// A cipher, key derivation or compression this reader does not support.
        case unsupported
        /// The key file cannot be used.
        case keyFile
        /// The key derivation the file asks for would take longer than the limit (``KeyDerivationCost``); it was not run.
        case tooSlow
        /// Saving could not write the file (its folder is not writable, the disk is full).
        case unwritable
        /// Saving found the file changed on disk since it was read: nothing was written.
        case changedOnDisk
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong and what to do, for people.
    public let message: String

    /// An error of `code` explained by `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
