import AutofillCore
@_exported import AutofillTestSupport
import Foundation
@testable import VaultCore


/// Values the tests share.
enum Fixture {
    /// Cheap scrypt parameters, recorded in the file like any others.
    static let fast = ScryptParameters(log2N: 10)
    static let password = Secret("correct horse battery staple")
    static let example = ServiceIdentifier(identifier: "example.com", type: .domain)

    static let alice = PasswordEntry(id: "vault-1", service: example, user: "alice", password: Secret("alice-secret-1"), rank: 2)
    static let bob = PasswordEntry(id: "vault-2", service: example, user: "bob", password: Secret("bob-secret-2"), rank: 1)
    static let code = OneTimeCodeEntry(
        id: "otp-1", service: example, label: "alice",
        uri: Secret("otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP&issuer=Example"))
    static let address = TextEntry(id: "text-1", title: "Address", text: Secret("1 Main Street"))

    static var contents: VaultContents {
        VaultContents(entries: [.password(alice), .password(bob), .oneTimeCode(code), .text(address)])
    }

    /// A vault with the fixture's entries in `folder`.
    static func vault(in folder: TemporaryFolder, name: String = "vault.afvault") throws -> Vault {
        try Vault.create(at: "\(folder.path)/\(name)", password: password, parameters: fast, contents: contents)
    }
}

/// The bytes of a file.
func bytes(of path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Writes bytes to a file.
func write(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// The permission bits of a file or folder (without following a final symbolic link).
func mode(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
}
