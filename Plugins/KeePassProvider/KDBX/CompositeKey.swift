public import AutofillCore
internal import Crypto

/// What opens a database: a master password, a key file, or both (KeePass's composite key).
///
/// Only the composite hash is kept (SHA-256 over SHA-256(password) and the key file's key): the
/// password itself is not held, and the hash is what a provider keeps to read the file again after
/// KeePassXC saves it.
public struct CompositeKey: Sendable, CustomStringConvertible {
    /// SHA-256 over SHA-256(password) and the key file's key, in that order.
    let hash: [UInt8]

    /// A key of `password` and/or `keyFile`; at least one of them.
    public init(password: Secret?, keyFile: KeyFile?) {
        var parts: [UInt8] = []
        if let password { parts += SHA256.hash(data: Array(password.revealed.utf8)) }
        if let keyFile { parts += keyFile.key }
        hash = Array(SHA256.hash(data: parts))
        for index in parts.indices { parts[index] = 0 }
    }

    public var description: String { "CompositeKey(<REDACTED>)" }

    /// Whether `other` is the same key (compared in constant time).
    public func matches(_ other: CompositeKey) -> Bool {
        constantTimeEqual(hash, other.hash)
    }
}
