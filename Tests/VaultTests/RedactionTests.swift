import AutofillCore
import Testing
@testable import VaultCore

/// Secrets never print: entries, keys and errors.
struct RedactionTests {
    static let secrets = ["alice-secret-1", "JBSWY3DPEHPK3PXP", "1 Main Street", "my-notes"]

    @Test func entriesPrintWithoutTheirSecrets() {
        var alice = Fixture.alice
        alice.notes = Secret("my-notes")
        let entries: [VaultEntry] = [.password(alice), .oneTimeCode(Fixture.code), .text(Fixture.address)]
        for entry in entries {
            for text in ["\(entry)", String(reflecting: entry), dumped(entry)] {
                for secret in Self.secrets { #expect(!text.contains(secret), "\(entry.kind) printed a secret") }
            }
        }
        #expect("\(VaultEntry.password(Fixture.alice))"
            == "PasswordEntry(id: vault-1, service: domain:example.com, user: alice, password: <REDACTED>)")
        #expect("\(Fixture.contents)".contains("<REDACTED>"))
        #expect(!Self.secrets.contains { "\(Fixture.contents)".contains($0) })
    }

    @Test func invalidOneTimeCodeInputIsReportedWithoutTheSecret() {
        do {
            _ = try OneTimeCodeEntry.parseInput(Secret("otpauth://totp/x?secret=JBSWY3DPEHPK3PX1"), account: "a")
            Issue.record("accepted an invalid secret")
        } catch {
            #expect(!error.message.contains("JBSWY3DPEHPK3PX1"))
        }
        #expect(throws: VaultError.self) {
            try OneTimeCodeEntry.parseInput(Secret("otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1"), account: "a")
        }
    }

    @Test func aBareSecretBecomesATOTPURIWithTheRFCCodes() throws {
        let input = try OneTimeCodeEntry.parseInput(Secret("jbsw y3dp ehpk 3pxp"), issuer: "Example", account: "alice")
        #expect(input.uri.revealed.hasPrefix("otpauth://totp/Example:alice?"))
        let entry = OneTimeCodeEntry(id: "o", service: Fixture.example, label: "alice", uri: input.uri)
        // oathtool --totp -b JBSWY3DPEHPK3PXP --now "1970-01-01 00:00:59 UTC" → 996554
        #expect(try entry.code(atUnixTime: 59) == Secret("996554"))
    }

    @Test func generatedPasswordsHaveTheLengthAskedFor() throws {
        #expect(try PasswordGenerator.generate(length: 30).revealed.count == 30)
        #expect(try PasswordGenerator.generate() != PasswordGenerator.generate())
        #expect(throws: VaultError.self) { try PasswordGenerator.generate(length: 4) }
    }

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
