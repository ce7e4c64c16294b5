public import AutofillCore
internal import Crypto

/// What opens a database: a master password, a key file, or both (KeePass's composite key).
public struct CompositeKey: Sendable, CustomStringConvertible {
    let password: Secret?
    let keyFile: KeyFile?

    /// A key of `password` and/or `keyFile`; at least one of them.
    public init(password: Secret?, keyFile: KeyFile?) {
        self.password = password
        self.keyFile = keyFile
    }

    public var description: String { "CompositeKey(<REDACTED>)" }

    /// SHA-256 over SHA-256(password) and the key file's key, in that order.
    var hash: [UInt8] {
        var parts: [UInt8] = []
        if let password { parts += SHA256.hash(data: Array(password.revealed.utf8)) }
        if let keyFile { parts += keyFile.key }
        defer { for index in parts.indices { parts[index] = 0 } }
        return Array(SHA256.hash(data: parts))
    }
}
