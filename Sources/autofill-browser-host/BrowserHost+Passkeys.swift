internal import AutofillSystem
import FoundationEssentials

/// Passkeys for the extension (docs/BROWSER.md, "Passkeys"): `autofill suggest … --type passkey`
/// for the list, `autofill passkey get` and `create` after the user's pick, with the origin the
/// browser reported. The options go to the command in a file of the user's own (mode 0600, removed
/// after the command): its standard input is the prompt window's channel.
extension BrowserHost {
    /// What `autofill suggest --type passkey --json` prints, as far as the host reads it.
    private struct PasskeySuggestOutput: Decodable {
        struct Entry: Decodable {
            struct Provider: Decodable { let displayName: String }
            struct Identity: Decodable {
                let relyingPartyIdentifier: String?
                let userName: String?
                let credentialID: String?
            }

            let provider: Provider
            let identity: Identity
        }

        let suggestions: [Entry]
    }

    func handle(_ request: PasskeyRequest) -> Answer {
        let relyingParty: String
        switch request.relyingParty() {
        case .success(let checked): relyingParty = checked
        case .failure(let refusal): return .refused(refusal.reason)
        }
        switch request.type {
        case .suggest:
            return passkeySuggestions(relyingParty: relyingParty, allowed: request.creates ? [] : request.allowedCredentials)
        case .get:
            return passkeyCommand(["passkey", "get", "--origin", request.origin, "--json", "--user=\(request.user ?? "")"] + topOrigin(request),
                                  options: request.options)
        case .create:
            return passkeyCommand(["passkey", "create", "--origin", request.origin, "--json"] + topOrigin(request)
                                      + (request.conditional == true ? ["--conditional"] : []),
                                  options: request.options)
        case .signal:
            return Answer(ok: true)
        }
    }

    /// `--top-origin=ORIGIN` for a cross-origin frame's request (checked a web origin), else nothing.
    private func topOrigin(_ request: PasskeyRequest) -> [String] {
        request.topOrigin.map { ["--top-origin=\($0)"] } ?? []
    }

    /// The passkeys for exactly `relyingParty` (a passkey signs for its own relying party id only),
    /// among `allowed` when the relying party names any.
    private func passkeySuggestions(relyingParty: String, allowed: [String]) -> Answer {
        let run = CommandRun.run(["suggest", "https://\(relyingParty)/", "--type", "passkey", "--limit", "\(Self.suggestionLimit)", "--json"],
                                 environment: environment)
        guard run.status == 0 else { return .refused(Self.failure(run)) }
        guard let output = try? JSONDecoder().decode(PasskeySuggestOutput.self, from: Data(run.output)) else {
            return .refused("autofill suggest printed something the host cannot read")
        }
        let allowedIDs = Set(allowed.map(Self.unpadded))
        let fitting = output.suggestions.filter { entry in
            entry.identity.relyingPartyIdentifier == relyingParty
                && (allowedIDs.isEmpty || entry.identity.credentialID.map { allowedIDs.contains(Self.unpadded($0)) } == true)
        }
        var answer = Answer(ok: true)
        answer.suggestions = fitting.enumerated().map { index, entry in
            Answer.Suggestion(position: index + 1, user: entry.identity.userName ?? "", provider: entry.provider.displayName, kind: "passkey")
        }
        return answer
    }

    /// base64url without padding (a relying party may send either alphabet, padded or not).
    private static func unpadded(_ id: String) -> String {
        String(id.replacing("+", with: "-").replacing("/", with: "_").filter { $0 != "=" })
    }

    /// `autofill ARGUMENTS --options FILE` (and `--ui-channel` when the extension can answer); its
    /// PublicKeyCredential JSON as the answer's `credential`.
    private func passkeyCommand(_ arguments: [String], options: String) -> Answer {
        guard let file = temporaryFile(options) else { return .refused("autofill-browser-host: cannot write the options to a file") }
        defer { try? Paths.remove(file) }
        let run = CommandRun.run(arguments + ["--options", file] + uiOption, environment: environment, ui: prompt)
        guard run.status == 0 else { return .refused(Self.failure(run)) }
        var printed = String(decoding: run.output, as: UTF8.self)
        while printed.hasSuffix("\n") { printed.removeLast() }
        guard printed.hasPrefix("{"), !printed.contains(where: \.isNewline) else {
            return .refused("autofill passkey printed no PublicKeyCredential")
        }
        var answer = Answer(ok: true)
        answer.credential = printed
        return answer
    }

    /// A new file of the user's own (0600) in TMPDIR (else /tmp) holding `text`; its path, or nil.
    private func temporaryFile(_ text: String) -> String? {
        let folder = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        return try? Paths.makeTemporaryFile(folder + "/autofill-passkey-", holding: Array(text.utf8))
    }
}
