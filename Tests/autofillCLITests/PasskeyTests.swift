import AutofillCore
import AutofillHost
import AutofillMatching
import AutofillTestSupport
import Foundation
import Testing

/// Passkeys end to end: `autofill passkey create/get` with the Vault provider, every result verified
/// by real WebAuthn relying-party libraries from PyPI (py_webauthn, and python-fido2's server as a
/// second opinion) through `Support/relying_party.py`. A sign-in follows the registration that unlocked
/// the Vault, so the suite runs in the agent pass (without the agent each command's Vault starts locked;
/// the Vault's passkeys in and out of process are VaultProviderPasskeyTests' subject).
@Suite(.serialized, .enabled(if: CLI.usesAgent))
struct PasskeyTests {
    let home: TemporaryHome
    static let master = "correct horse battery staple"

    /// The Vault sample with a private copy of the demo vault (alice and bob at example.com).
    init() throws {
        home = try TemporaryHome()
        // Its configurations ask for none (or a PAM service of their own): the user's own policy must allow it (docs/AGENT.md, "Whose policy").
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        let pam = try home.pamFolder()
        try home.demoVault(policies: [("pam", ["Policy": "pam", "PAMService": "autofill-permit", "PAMConfigurationDirectory": pam]),
                                      ("deny", ["Policy": "pam", "PAMService": "autofill-deny", "PAMConfigurationDirectory": pam]),
                                      ("confirm", ["Policy": "confirm"]), ("none", ["Policy": "none"])])
        #expect(try autofill(["providers", "sync"]).status == 0)
    }

    // MARK: Running things

    /// `autofill ARGS --config POLICY.plist [--ui-script …]`.
    func autofill(_ arguments: [String], policy: String = "pam", script: String? = nil) throws -> CLI.Result {
        var extra = ["--config", "\(home.path)/\(policy).plist"]
        if let script { extra += ["--ui-script", try home.file("script-\(UUID().uuidString).txt", script)] }
        return try CLI.run(arguments + extra, home: home.path)
    }

    /// `autofill ARGS --config POLICY.plist` in a real terminal (``TemporaryHome/atTerminal(_:answers:)``).
    func autofillAtTerminal(_ arguments: [String], policy: String, answers: [(prompt: String, keys: String)]) throws -> CLI.Result {
        try home.atTerminal(arguments + ["--config", "\(home.path)/\(policy).plist"], answers: answers).result
    }

    /// The relying party: `relying_party.py ARGS` with `stdin`.
    func relyingParty(_ arguments: [String], stdin: String = "") throws -> CLI.Result {
        try ChildProcess.run("/usr/bin/env", ["python3", "\(CLI.root)/Tests/autofillCLITests/Support/relying_party.py"] + arguments,
                             input: stdin)
    }

    /// The relying party's options for a new passkey, written to a file for `--options`.
    func registrationOptions(_ state: String, user: String = "alice", extra: [String] = []) throws -> String {
        let result = try relyingParty(["registration-options", "\(home.path)/\(state).json", "--rp-id", "example.com", "--user", user] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return try home.file("\(state)-create-\(UUID().uuidString).json", result.stdout)
    }

    /// The relying party's options for a sign-in, written to a file for `--options`.
    func authenticationOptions(_ state: String, extra: [String] = []) throws -> String {
        let result = try relyingParty(["authentication-options", "\(home.path)/\(state).json"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return try home.file("\(state)-get-\(UUID().uuidString).json", result.stdout)
    }

    /// The relying party's verdict on a credential; its JSON summary (flags, counter) when accepted.
    func verify(_ kind: String, _ state: String, _ credential: String, origin: String = "https://example.com",
                extra: [String] = []) throws -> (accepted: Bool, summary: [String: Any], reason: String) {
        let result = try relyingParty(["\(kind)-verify", "\(home.path)/\(state).json", "--origin", origin] + extra, stdin: credential)
        let summary = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
        return (result.status == 0, summary, result.stderr)
    }

    /// Registers alice's passkey (PAM verified alice without a question; the locked vault asks its
    /// master password, and no second confirmation: the host's authentication covered it).
    func registerAlice(_ state: String = "alice") throws -> [String: Any] {
        let options = try registrationOptions(state)
        let created = try autofill(["passkey", "create", "--origin", "https://example.com", "--options", options, "--json"],
                                   script: "secret \(Self.master)\n")
        #expect(created.status == 0, "\(created.stderr)")
        let verdict = try verify("registration", state, created.stdout)
        #expect(verdict.accepted, "\(verdict.reason)")
        return verdict.summary
    }

    // MARK: Registration and sign-in

    @Test func anUnknownCredentialSignalRemovesThePasskeySoItNoLongerSignsIn() throws {
        let options = try registrationOptions("signal")
        let created = try autofill(["passkey", "create", "--origin", "https://example.com", "--options", options, "--json"],
                                   script: "secret \(Self.master)\n")
        #expect(created.status == 0, "\(created.stderr)")
        let credential = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
        let id = try #require(credential["id"] as? String)
        let signal = try autofill(["passkey", "signal", "unknown-credential", "--rp", "example.com", "--credential-id=\(id)"])  // = : an id may start with "-"
        #expect(signal.status == 0, "\(signal.stderr)")
        #expect(signal.stderr.contains("Reported the unknown passkey at example.com to Vault."))
        let get = try autofill(["passkey", "get", "--origin", "https://example.com", "--options", try authenticationOptions("signal")])
        #expect(get.status == 1, "\(get.stderr)")
    }

    /// A signal deletes passkeys: a script cannot send one past the user's authentication.
    @Test func aSignalTheUserDoesNotAuthenticateRemovesNothing() throws {
        let options = try registrationOptions("denied-signal")
        let created = try autofill(["passkey", "create", "--origin", "https://example.com", "--options", options, "--json"],
                                   script: "secret \(Self.master)\n")
        #expect(created.status == 0, "\(created.stderr)")
        let credential = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
        let id = try #require(credential["id"] as? String)
        let signal = try autofill(["passkey", "signal", "unknown-credential", "--rp", "example.com", "--credential-id=\(id)"], policy: "deny")
        #expect(signal.status == 22, "\(signal.stderr)")
        let get = try autofill(["passkey", "get", "--origin", "https://example.com", "--options", try authenticationOptions("denied-signal")])
        #expect(get.status == 0, "the passkey is still there: \(get.stderr)")
    }

    @Test func aPasskeyIsCreatedAndSignsInAsARelyingPartyVerifiesIt() throws {
        let registration = try registerAlice()
        #expect(registration["format"] as? String == "none")
        #expect(registration["userPresent"] as? Bool == true)
        #expect(registration["userVerified"] as? Bool == true, "PAM verified the user, and the master password was typed")
        #expect(registration["signCount"] as? Int == 0)

        let suggested = try autofill(["suggest", "example.com", "--type", "passkey"])
        #expect(suggested.stdout.contains("alice") && suggested.stdout.contains("passkey"), "\(suggested.stdout)")

        for expected in 1...2 {
            let options = try authenticationOptions("alice", extra: ["--uv", "required"])
            let signed = try autofill(["passkey", "get", "--origin", "https://example.com", "--options", options, "--json"])
            #expect(signed.status == 0, "\(signed.stderr)")
            #expect(!signed.stderr.contains("PRIVATE") && !signed.stdout.contains("privateKey"))
            let verdict = try verify("authentication", "alice", signed.stdout)
            #expect(verdict.accepted, "\(verdict.reason)")
            #expect(verdict.summary["signCount"] as? Int == expected, "the counter increases with each sign-in")
            #expect(verdict.summary["userVerified"] as? Bool == true)
        }
    }

    @Test func userVerificationIsSetOnlyWhenTheUserWasReallyVerified() throws {
        _ = try registerAlice()
        // none: nobody was asked, so not even UP; the relying party refuses. (First: once the vault
        // served confirm requests, the agent no longer lets it answer a none request; docs/AGENT.md.)
        var options = try authenticationOptions("alice")
        var signed = try autofill(["passkey", "get", "--origin", "https://example.com", "--options", options, "--json"], policy: "none")
        #expect(signed.status == 0, "\(signed.stderr)")
        var verdict = try verify("authentication", "alice", signed.stdout)
        #expect(!verdict.accepted)
        #expect(verdict.reason.lowercased().contains("present"), "\(verdict.reason)")

        // confirm (answered at the terminal) is presence only: UP, never UV.
        options = try authenticationOptions("alice", extra: ["--uv", "preferred"])
        signed = try autofillAtTerminal(["passkey", "get", "--origin", "https://example.com", "--options", options, "--json"],
                                        policy: "confirm", answers: [("[y/n, q cancels]:", "y")])
        #expect(signed.status == 0, "\(signed.stderr)")
        verdict = try verify("authentication", "alice", signed.stdout)
        #expect(verdict.accepted, "\(verdict.reason)")
        #expect(verdict.summary["userPresent"] as? Bool == true)
        #expect(verdict.summary["userVerified"] as? Bool == false)

        // UV required and the host only confirmed: the vault asks for its master password itself.
        options = try authenticationOptions("alice", extra: ["--uv", "required"])
        signed = try autofillAtTerminal(["passkey", "get", "--origin", "https://example.com", "--options", options, "--json", "--trace"],
                                        policy: "confirm", answers: [("[y/n, q cancels]:", "y"), ("asks to verify it's you", Self.master)])
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(signed.stderr.contains("userInteractionRequired"))
        verdict = try verify("authentication", "alice", signed.stdout)
        #expect(verdict.accepted, "\(verdict.reason)")
        #expect(verdict.summary["userVerified"] as? Bool == true)
    }

    @Test func theRelyingPartyRejectsAnotherOriginAndAnotherRelyingPartyID() throws {
        _ = try registerAlice()
        // A valid request from a subdomain: its client data names that origin.
        var options = try authenticationOptions("alice")
        var signed = try autofill(["passkey", "get", "--origin", "https://login.example.com", "--options", options, "--json"])
        #expect(signed.status == 0, "\(signed.stderr)")
        var verdict = try verify("authentication", "alice", signed.stdout, origin: "https://example.com")
        #expect(!verdict.accepted, "a relying party expecting https://example.com rejects another origin")
        #expect(verdict.reason.contains("origin"), "\(verdict.reason)")

        options = try authenticationOptions("alice")
        signed = try autofill(["passkey", "get", "--origin", "https://example.com", "--options", options, "--json"])
        verdict = try verify("authentication", "alice", signed.stdout, extra: ["--rp-id", "login.example.com"])
        #expect(!verdict.accepted, "the rpIdHash is for example.com")
        verdict = try verify("authentication", "alice", signed.stdout)
        #expect(verdict.accepted, "the same assertion verifies with the right rpId: \(verdict.reason)")
    }

    @Test func aUIScriptCannotAnswerTheHostsConfirmationForAPasskey() throws {
        _ = try registerAlice()
        let options = try authenticationOptions("alice")
        let signed = try autofill(["passkey", "get", "--origin", "https://example.com", "--options", options, "--json"],
                                  policy: "confirm", script: "confirm yes\n")
        #expect(signed.status == 21, "\(signed.stderr)")
        #expect(signed.stdout.isEmpty, "nothing was signed: nobody was there")
        #expect(signed.stderr.contains("controlling terminal"))
    }

    @Test func aPasskeyMadeThroughAUIScriptClaimsNoPresence() throws {
        // `none` and a UI script: the vault's master password came from the script (verification:
        // it knew the secret), but no person was there, so the vault may not sign UP (the host tells
        // it with AF_HOST_UI_SCRIPTED, and refuses an answer that claims it anyway).
        let options = try registrationOptions("scripted")
        let created = try autofill(["passkey", "create", "--origin", "https://example.com", "--options", options, "--json"],
                                   policy: "none", script: "secret \(Self.master)\nconfirm yes\n")
        #expect(created.status == 0, "\(created.stderr)")
        let verdict = try verify("registration", "scripted", created.stdout)
        #expect(!verdict.accepted || verdict.summary["userPresent"] as? Bool == false, "\(verdict.summary)")
        #expect(verdict.accepted || verdict.reason.lowercased().contains("present"), "\(verdict.reason)")
    }

    @Test func passkeysAreRefusedWhenPAMRefusesTheUser() throws {
        let created = try autofill(["passkey", "create", "--origin", "https://example.com", "--options", try registrationOptions("denied"), "--json"],
                                   policy: "deny", script: "secret \(Self.master)\n")
        #expect(created.status == 22, "\(created.stderr)")
        #expect(created.stdout.isEmpty)
        _ = try registerAlice()
        for list in [false, true] {
            let get = try autofill(["passkey", "get", "--origin", "https://example.com", "--options", try authenticationOptions("alice"), "--json"]
                                       + (list ? ["--list"] : []),
                                   policy: "deny", script: "choose 1\n")
            #expect(get.status == 22, "list \(list): \(get.stderr)")
            #expect(get.stdout.isEmpty)
        }
    }

    @Test func anExcludedCredentialIsRefusedAndNothingIsCreated() throws {
        _ = try registerAlice()
        let options = try registrationOptions("again", extra: ["--exclude-from", "\(home.path)/alice.json"])
        let created = try autofill(["passkey", "create", "--origin", "https://example.com", "--options", options, "--json"],
                                   script: "confirm yes\n")
        #expect(created.status == 24, "\(created.stderr)")
        #expect(created.stderr.contains("excludeCredentials") && created.stdout.isEmpty)
        let listed = try autofill(["identities", "list", "--json"])
        #expect(listed.stdout.components(separatedBy: "\"passkey\"").count == 2, "still one passkey: \(listed.stdout)")
    }

    @Test func theProvidersListOffersItsPasskeysAndItsPasswords() throws {
        _ = try registerAlice()
        // Choosing the passkey (the first item) is presence; the vault was unlocked by the registration.
        let options = try authenticationOptions("alice")
        var listed = try autofill(["passkey", "get", "--list", "--origin", "https://example.com", "--options", options, "--json"],
                                  script: "choose 1\n")
        #expect(listed.status == 0, "\(listed.stderr)")
        let verdict = try verify("authentication", "alice", listed.stdout)
        #expect(verdict.accepted, "\(verdict.reason)")
        #expect(verdict.summary["userPresent"] as? Bool == true && verdict.summary["userVerified"] as? Bool == false)

        // A password from the same list is printed as `fill` prints it.
        listed = try autofill(["passkey", "get", "--list", "--origin", "https://example.com", "--options", try authenticationOptions("alice")],
                              script: "choose 2\n")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == "alice-demo-password\n")
    }

    @Test func aCallerThatBuiltTheClientDataPassesItsHash() throws {
        _ = try registerAlice()
        let optionsFile = try authenticationOptions("alice")
        let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(home.path)/alice.json"))) as! [String: Any]
        let challenge = try #require(Base64URL.decode(state["challenge"] as! String))
        let clientData = PasskeyCeremony.clientDataJSON(kind: .get, challenge: challenge, origin: try WebAuthnOrigin("https://example.com"))
        let hash = Base64URL.encode(PasskeyCeremony.sha256(clientData))
        let signed = try autofill(["passkey", "get", "--origin", "https://example.com", "--options", optionsFile,
                                   "--client-data-hash=\(hash)", "--json", "--trace"])
        let suggestions = try autofill(["suggest", "example.com", "--type", "passkey"]).stdout
        #expect(signed.status == 0, "\(signed.stderr) \(suggestions)")
        #expect(!signed.stdout.contains("clientDataJSON"), "the caller holds the client data")
        // The caller puts its client data into the response; the relying party verifies the whole.
        var credential = try JSONSerialization.jsonObject(with: Data(signed.stdout.utf8)) as! [String: Any]
        var response = credential["response"] as! [String: Any]
        response["clientDataJSON"] = Base64URL.encode(clientData)
        credential["response"] = response
        let completed = String(decoding: try JSONSerialization.data(withJSONObject: credential), as: UTF8.self)
        let verdict = try verify("authentication", "alice", completed)
        #expect(verdict.accepted, "\(verdict.reason)")
    }

    // MARK: Automatic passkey upgrade

    @Test func theAutomaticUpgradeFollowsARecentPasswordFillAndNeverAsks() throws {
        // No password was delivered yet: the vault is not even asked; declined quietly.
        var options = try registrationOptions("upgrade")
        var upgraded = try autofill(["passkey", "create", "--conditional", "--origin", "https://example.com", "--options", options, "--json", "--trace"])
        #expect(upgraded.status == 23)
        #expect(upgraded.stdout.isEmpty)
        #expect(upgraded.stderr.contains("Vault was not asked: autofill delivered none of its passwords for alice at example.com"),
                "\(upgraded.stderr)")
        #expect(!upgraded.stderr.contains("autofill:"), "no error screen: \(upgraded.stderr)")

        // alice signs in with her password (the vault asks its master password once).
        let filled = try autofill(["fill", "example.com", "--list", "--provider", "org.autofill.vault"],
                                  script: "secret \(Self.master)\nchoose 1\n")
        #expect(filled.stdout == "alice-demo-password\n", "\(filled.stderr)")

        // bob's password is handed out by the (now unlocked) vault, but the user is refused at the
        // host's authentication: nothing was delivered, so it does not count.
        let declined = try autofill(["fill", "example.com", "--list", "--provider", "org.autofill.vault", "--trace"], policy: "deny",
                                    script: "choose 2\n")
        #expect(declined.stderr.contains("completed with PasswordCredential(user: bob"), "the vault handed it out: \(declined.stderr)")
        #expect(declined.status == 22 && declined.stdout.isEmpty, "\(declined.stderr)")
        options = try registrationOptions("bob", user: "bob")
        upgraded = try autofill(["passkey", "create", "--conditional", "--origin", "https://example.com", "--options", options, "--json"])
        #expect(upgraded.status == 23 && upgraded.stderr.isEmpty && upgraded.stdout.isEmpty, "\(upgraded.stderr)")
        upgraded = try autofill(["passkey", "create", "--conditional", "--origin", "https://example.com", "--options", options, "--trace"])
        #expect(upgraded.stderr.contains("Vault was not asked: autofill delivered none of its passwords for bob at example.com"),
                "\(upgraded.stderr)")

        // alice's was: the upgrade happens without any UI (no --ui-script, no terminal) and without UP.
        options = try registrationOptions("upgrade")
        upgraded = try autofill(["passkey", "create", "--conditional", "--origin", "https://example.com", "--options", options, "--json"])
        #expect(upgraded.status == 0, "\(upgraded.stderr)")
        let verdict = try verify("registration", "upgrade", upgraded.stdout, extra: ["--conditional"])
        #expect(verdict.accepted, "\(verdict.reason)")
        #expect(verdict.summary["userPresent"] as? Bool == false && verdict.summary["userVerified"] as? Bool == false)

        // The new passkey signs in.
        let signIn = try authenticationOptions("upgrade")
        let signed = try autofill(["passkey", "get", "--origin", "https://example.com", "--options", signIn, "--json"])
        #expect(try verify("authentication", "upgrade", signed.stdout).accepted)

        // Once is enough: alice has a passkey now.
        options = try registrationOptions("upgrade-again")
        upgraded = try autofill(["passkey", "create", "--conditional", "--origin", "https://example.com", "--options", options, "--trace"])
        #expect(upgraded.status == 23)
        #expect(upgraded.stderr.contains("already has a passkey"), "\(upgraded.stderr)")
    }

    // MARK: Bad input

    @Test func badInputIsAClearErrorBeforeAnyProviderRuns() throws {
        let good = try registrationOptions("bad")
        let broken = try home.file("broken.json", "{\n  \"challenge\": \"AAAA\",\n  \"rp\": {\"id\": \"example.com\"\n")
        var result = try autofill(["passkey", "create", "--origin", "https://example.com", "--options", broken])
        #expect(result.status == 65)
        #expect(result.stderr.contains("broken.json:4:"), "\(result.stderr)")

        result = try autofill(["passkey", "create", "--origin", "http://example.com", "--options", good])
        #expect(result.status == 65)
        #expect(result.stderr.contains("https://"), "\(result.stderr)")

        result = try autofill(["passkey", "create", "--origin", "https://example.org", "--options", good])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\"example.com\" is not valid for the origin https://example.org"), "\(result.stderr)")

        let es256Missing = try registrationOptions("rsa", extra: ["--algs", "-257"])
        result = try autofill(["passkey", "create", "--origin", "https://example.com", "--options", es256Missing], script: "confirm yes\n")
        #expect(result.status == 69)
        #expect(result.stderr.contains("accepts only the COSE algorithms -257"), "\(result.stderr)")

        _ = try registerAlice()
        let stranger = try home.file("stranger.json", #"{"challenge": "c3RyYW5nZXItY2hhbGxlbmdlLTMyLWJ5dGVz", "rpId": "example.com", "allowCredentials": [{"type": "public-key", "id": "AAECAwQFBgcICQ"}]}"#)
        result = try autofill(["passkey", "get", "--origin", "https://example.com", "--options", stranger])
        #expect(result.status == 1)
        #expect(result.stderr.contains("allowCredentials"), "\(result.stderr)")

        result = try autofill(["passkey", "get", "--origin", "https://example.com", "--options", try home.file("empty.json", "")])
        #expect(result.status == 65)
    }
}
