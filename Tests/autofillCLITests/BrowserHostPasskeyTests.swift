import AutofillTestSupport
import Foundation
import Testing

/// The host's passkey messages (docs/BROWSER.md, "Passkeys"), spoken to as the extension does: the
/// relying party id is checked against the origin the background reports before anything is listed
/// or signed, under `autofill passkey`'s rules. BrowserHostTests' home and helpers (the Vault unlocked
/// in the agent, policy none), with a passkey for example.com made by `autofill passkey create`.
@Suite(.serialized, .enabled(if: CLI.usesAgent))
struct BrowserHostPasskeyTests {
    let base: BrowserHostTests

    init() throws {
        base = try BrowserHostTests()
        try base.unlockedVault()
        let options = try base.home.file("create.json", """
            {"rp":{"id":"example.com","name":"Example"},"user":{"id":"dXNlci1pZA","name":"erin","displayName":"Erin"},
             "challenge":"Y2hhbGxlbmdlLWNoYWxsZW5nZS0xMjM0","pubKeyCredParams":[{"type":"public-key","alg":-7}]}
            """)
        let created = try CLI.run(["passkey", "create", "--origin", "https://example.com", "--options", options, "--ui-script",
                                   try base.home.file("yes.txt", "confirm yes\n")], home: base.home.path, environment: ["AUTOFILL_AGENT": "on"])
        #expect(created.status == 0, "\(created.stderr)")
    }

    /// The host's one answer to a passkey request for `origin` with `options`.
    func ask(_ type: String, origin: String, options: String, extra: [String: Any] = [:]) throws -> String {
        let message = try base.request(["type": type, "origin": origin, "options": options, "ceremony": "get"].merging(extra) { $1 })
        let talked = try base.talk([BrowserHostTests.extensionOrigin], message)
        try #require(talked.status == 0 && talked.answers.count == 1, "\(talked)")
        return talked.answers[0]
    }

    @Test func aPasskeyRequestWhoseRelyingPartyIsNotTheOriginsGetsNothingWhileTheOriginsOwnIsListedAndSigned() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: base.home.path) }
        let get = #"{"challenge":"Y2hhbGxlbmdlLWNoYWxsZW5nZS0xMjM0","rpId":"example.com"}"#
        // The control: example.com's own page, and a subdomain's (a parent domain's rpId is allowed).
        for origin in ["https://example.com", "https://login.example.com"] {
            let listed = try ask("passkey-suggest", origin: origin, options: get)
            #expect(listed.contains(#""ok":true"#) && listed.contains(#""user":"erin""#), "\(origin): \(listed)")
        }
        let signed = try ask("passkey-get", origin: "https://login.example.com", options: get, extra: ["user": "erin"])
        #expect(signed.contains(#""ok":true"#) && signed.contains("clientDataJSON"), "\(signed)")
        // Another site naming example.com, a look-alike, http for a non-local host, a public suffix.
        for (origin, options) in [("https://evil.com", get), ("https://example.com.evil.com", get), ("http://example.com", get),
                                  ("https://example.com", #"{"challenge":"Y2hhbGxlbmdlLWNoYWxsZW5nZS0xMjM0","rpId":"com"}"#)] {
            for type in ["passkey-suggest", "passkey-get"] {
                let refused = try ask(type, origin: origin, options: options, extra: ["user": "erin"])
                #expect(refused.contains(#""ok":false"#) && !refused.contains("erin") && !refused.contains("credential\""),
                        "\(type) from \(origin): \(refused)")
            }
        }
    }

    @Test func aCrossOriginFramesSignatureSaysCrossOriginAndTheTopOriginAndASignalIsCheckedAgainstTheOriginOnly() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: base.home.path) }
        let get = #"{"challenge":"Y2hhbGxlbmdlLWNoYWxsZW5nZS0xMjM0","rpId":"example.com"}"#
        let signed = try ask("passkey-get", origin: "https://login.example.com", options: get,
                             extra: ["user": "erin", "topOrigin": "https://portal.example.net"])
        let answer = try JSONSerialization.jsonObject(with: Data(signed.utf8)) as? [String: Any]
        let credential = (answer?["credential"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let encoded = try #require((credential?["response"] as? [String: Any])?["clientDataJSON"] as? String, "\(signed)")
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let clientData = String(decoding: try #require(Data(base64Encoded: base64)), as: UTF8.self)
        #expect(clientData.hasSuffix(#","origin":"https://login.example.com","crossOrigin":true,"topOrigin":"https://portal.example.net"}"#),
                "the frame's origin, then crossOrigin and the top page's origin: \(clientData)")
        // A top origin that is no origin (refused by the host), or no WebAuthn origin (http for a host
        // that is not localhost: refused by `autofill passkey`), is refused before anything is signed.
        for top in ["https://portal.example.net/path --x", "http://portal.example.net"] {
            let refused = try ask("passkey-get", origin: "https://login.example.com", options: get, extra: ["user": "erin", "topOrigin": top])
            #expect(refused.contains(#""ok":false"#) && !refused.contains("credential\""), "\(top): \(refused)")
        }
        // A signal: the page's own relying party id (or a parent's) is accepted, whether or not a
        // passkey is held for it; another site's, a public suffix, or none is refused.
        for rpId in ["example.com", "login.example.com"] {
            let accepted = try ask("passkey-signal", origin: "https://login.example.com", options: #"{"rpId":"\#(rpId)"}"#)
            #expect(accepted == #"{"ok":true}"#, "\(rpId): \(accepted)")
        }
        let unheld = try ask("passkey-signal", origin: "https://nobody.example.org", options: #"{"rpId":"example.org"}"#)
        #expect(unheld == #"{"ok":true}"#, "a relying party no store holds a passkey for gets the same answer: \(unheld)")
        for options in [#"{"rpId":"evil.com"}"#, #"{"rpId":"com"}"#, #"{}"#] {
            let refusedSignal = try ask("passkey-signal", origin: "https://login.example.com", options: options)
            #expect(refusedSignal.contains(#""ok":false"#), "\(options): \(refusedSignal)")
        }
    }

    /// The flags byte of the authenticator data in the host's answer to a passkey request, or nil.
    static func flags(_ answer: String) -> UInt8? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any],
              let credential = (object["credential"] as? String).flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }),
              let encoded = (credential["response"] as? [String: Any])?["authenticatorData"] as? String else { return nil }
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), data.count > 32 else { return nil }
        return data[data.startIndex + 32]
    }

    @Test func underConfirmTheWindowsYesGivesThePasskeyUserPresenceAndANoSignsNothing() throws {
        defer { _ = try? CLI.run(["agent", "stop"], home: base.home.path) }
        let get = #"{"challenge":"Y2hhbGxlbmdlLWNoYWxsZW5nZS0xMjM0","rpId":"example.com"}"#
        // The control, under none: signed, without user presence (a pick alone proves nobody).
        let unattended = try ask("passkey-get", origin: "https://example.com", options: get, extra: ["user": "erin"])
        let noPresence = try #require(Self.flags(unattended), "\(unattended)")
        #expect(noPresence & 0x01 == 0, "UP clear under none")
        try base.home.usePolicy(["Policy": "confirm"])
        for (confirmed, present) in [(false, false), (true, true)] {
            let message = try base.request(["type": "passkey-get", "origin": "https://example.com", "options": get, "ceremony": "get",
                                            "user": "erin", "port": true])
            let talked = try base.talk([BrowserHostTests.extensionOrigin], message + (try base.request(["type": "ui-answer", "confirmed": confirmed])))
            try #require(talked.status == 0 && talked.answers.count == 2, "\(talked)")
            #expect(talked.answers[0].contains(#""kind":"confirm""#) && talked.answers[0].contains(#""authentication":true"#),
                    "the yes/no, as autofill's own: \(talked.answers[0])")
            if present {
                let flags = try #require(Self.flags(talked.answers[1]), "\(talked.answers[1])")
                #expect(flags & 0x01 == 0x01, "the window's Yes is user presence: UP set")
                #expect(flags & 0x04 == 0, "and not verification: UV clear")
            } else {
                #expect(talked.answers[1].contains(#""ok":false"#) && !talked.answers[1].contains("authenticatorData"), "a No signs nothing: \(talked.answers[1])")
            }
        }
    }
}
