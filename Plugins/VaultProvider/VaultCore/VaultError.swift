/// A vault failure: a stable code, a message that names the file and says what to do, and never a secret.
public struct VaultError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, one case per way a user can fix it.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The vault file does not exist.
        case notFound
        /// A vault file exists where a new one was to be created.
        case alreadyExists
        /// The file is not a vault, is truncated, or its header is malformed.
        case corrupt
        /// The file is a vault of a format version this program does not read.
        case unsupportedVersion
        /// AES-GCM refused the file: the master password is wrong, or the file was changed.
        case wrongPasswordOrModified
        /// A file or folder could not be read or written.
        case io
        /// Input the user gave is invalid (an entry, a service, an otpauth URI, a CSV file).
        case invalidInput
        /// Another program holds the vault's write lock longer than the caller can wait.
        case busy
    }

    /// The error's code.
    public var code: Code
    /// What failed, naming the file, and what to do.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The honest message for an authentication failure: GCM cannot tell the two apart.
    static func wrongPasswordOrModified(_ path: String) -> VaultError {
        VaultError(.wrongPasswordOrModified,
                   "cannot open the vault \(path): wrong master password, or the vault file was changed")
    }
}
