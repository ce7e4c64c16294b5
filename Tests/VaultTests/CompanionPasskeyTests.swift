import AutofillCore
import Foundation
import Testing
import VaultCore

/// autofill-vault and passkeys: listed without their keys, removed like any entry.
extension CompanionCLITests {
    @Test func listShowsPasskeysWithoutTheirKeysAndRemoveRemovesThem() throws {
        let store = try enabledStore()
        try FileManager.default.createDirectory(atPath: "\(home.path)/data/autofill/providers/org.autofill.vault", withIntermediateDirectories: true)
        let passkey = try PasskeyEntry.generate(
            id: "pk-1", relyingParty: "example.com", userName: "alice@example.com", userHandle: [1, 2, 3], created: 1_800_000_000)
        _ = try Vault.create(at: vaultPath, password: Secret(Self.master.trimmingCharacters(in: .newlines)), parameters: ScryptParameters(log2N: 10),
                             contents: VaultContents(entries: [.passkey(passkey)]))

        var result = try run(["list", "--password-stdin", "--reveal"], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("CREATED"))
        #expect(result.stdout.range(of: #"passkey +pk-1 +example\.com +alice@example\.com +0 +2027-01-15T08:00:00Z +\(private key never shown\)"#,
                                    options: .regularExpression) != nil, "\(result.stdout)")
        #expect(!result.stdout.contains(passkey.privateKey.revealed))

        result = try run(["sync", "--password-stdin"], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try store.allIdentities() == [VaultEntry.passkey(passkey).identity!])

        result = try run(["remove", "--password-stdin", "pk-1"], input: Self.master)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Removed passkey pk-1."))
        #expect(try store.allIdentities().isEmpty)
    }
}
