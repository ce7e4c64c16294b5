import AutofillCore
import Testing

/// Secrets never reach a log line: every way Swift turns a value into text redacts them,
/// and only `revealed` gives the value back.
struct SecretTests {
    static let secretText = "hunter2-s3cr3t-Ω"

    /// One value that holds `secretText`, with every text Swift can make of it.
    struct Rendered: Sendable, CustomTestStringConvertible {
        let label: String
        let renderings: [(how: String, text: String)]

        init<Value>(_ label: String, _ value: Value) {
            self.label = label
            var dumped = ""
            dump(value, to: &dumped)
            var printed = ""
            print(value, to: &printed)
            var debugPrinted = ""
            debugPrint(value, to: &debugPrinted)
            let mirrored = Mirror(reflecting: value).children.map { "\($0.label ?? "_"): \($0.value)" }
            var renderings: [(how: String, text: String)] = [
                ("interpolation", "\(value)"),
                ("String(describing:)", String(describing: value)),
                ("String(reflecting:)", String(reflecting: value)),
                ("dump", dumped),
                ("print", printed),
                ("debugPrint", debugPrinted),
                ("Mirror children", mirrored.joined(separator: ", ")),
                ("in an Optional", String(describing: Optional(value))),
                ("in an Array", "\([value])"),
                ("in a Dictionary", "\(["key": value])"),
                ("in a tuple", "\((1, value))"),
            ]
            if let value = value as? any CustomStringConvertible {
                renderings.append(("description", value.description))
            }
            if let value = value as? any CustomDebugStringConvertible {
                renderings.append(("debugDescription", value.debugDescription))
            }
            self.renderings = renderings
        }

        var testDescription: String { label }
    }

    static let secret = Secret(secretText)

    static let holders: [Rendered] = [
        Rendered("Secret", secret),
        Rendered("PasswordCredential", PasswordCredential(user: "alice", password: secret)),
        Rendered("Credential.password", Credential.password(PasswordCredential(user: "alice", password: secret))),
        Rendered("Credential.oneTimeCode", Credential.oneTimeCode(secret)),
        Rendered("Credential.text", Credential.text(secret)),
        Rendered("UserInterfaceAnswer.text", UserInterfaceAnswer.text(secret)),
    ]

    @Test(arguments: holders)
    func noRenderingContainsTheSecret(_ holder: Rendered) {
        for (how, text) in holder.renderings {
            #expect(!text.contains(Self.secretText), "\(holder.label) leaks its secret through \(how): \(text)")
            #expect(text.contains("<REDACTED>"), "\(holder.label) through \(how) does not say <REDACTED>: \(text)")
        }
    }

    @Test func theRenderingsCoverEveryWayAskedFor() {
        let ways = Set(Rendered("Secret", Self.secret).renderings.map(\.how))
        #expect(ways.isSuperset(of: [
            "description", "debugDescription", "interpolation", "String(describing:)", "String(reflecting:)", "dump",
        ]))
    }

    @Test func aSecretDescribesItselfAsRedacted() {
        #expect(Self.secret.description == "<REDACTED>")
        #expect(Self.secret.debugDescription == "Secret(<REDACTED>)")
        #expect("\(Self.secret)" == "<REDACTED>")
        #expect(String(reflecting: Self.secret) == "Secret(<REDACTED>)")
    }

    @Test func aSecretDumpsOnlyARedactedChild() {
        var dumped = ""
        dump(Self.secret, to: &dumped)
        #expect(dumped == "▿ Secret(<REDACTED>)\n  - value: \"<REDACTED>\"\n")
    }

    @Test func aPasswordCredentialShowsTheUserButNotThePassword() {
        let credential = PasswordCredential(user: "alice", password: Self.secret)
        #expect(credential.description == "PasswordCredential(user: alice, password: <REDACTED>)")
        #expect(String(reflecting: credential) == credential.description)
    }

    @Test(arguments: [
        (Credential.password(PasswordCredential(user: "alice", password: secret)),
         "PasswordCredential(user: alice, password: <REDACTED>)"),
        (.oneTimeCode(secret), "OneTimeCode(<REDACTED>)"),
        (.text(secret), "Text(<REDACTED>)"),
        (.configurationCompleted, "ConfigurationCompleted"),
    ])
    func credentialsDescribeThemselvesWithoutTheirSecret(_ credential: Credential, _ expected: String) {
        #expect(credential.description == expected)
    }

    @Test func revealedGivesTheValueBack() {
        #expect(Self.secret.revealed == Self.secretText)
        #expect(Secret("").revealed == "")
        #expect(PasswordCredential(user: "alice", password: Self.secret).password.revealed == Self.secretText)
    }

    @Test func isEmptyReportsTheEmptySecretOnly() {
        #expect(Secret("").isEmpty)
        #expect(!Self.secret.isEmpty)
        #expect(!Secret(" ").isEmpty)
    }

    @Test func secretsCompareByValue() {
        #expect(Secret("a") == Secret("a"))
        #expect(Secret("a") != Secret("b"))
        #expect(Set([Secret("a"), Secret("a"), Secret("b")]).count == 2)
    }

    @Test func anEmptySecretStillPrintsAsRedacted() {
        #expect("\(Secret(""))" == "<REDACTED>")
        #expect(String(reflecting: Secret("")) == "Secret(<REDACTED>)")
    }
}
