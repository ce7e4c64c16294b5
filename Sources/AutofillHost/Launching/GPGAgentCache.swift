internal import AutofillCore
internal import AutofillSystem

/// What `autofill lock` does for a provider that declares `GPGAgent` (docs/SANDBOX.md): the passphrases
/// it unlocked live in the user's gpg-agent, not in its helper, so ending the helper locks nothing. The
/// provider lists the keygrips of the keys it decrypts with in ``fileName`` in its runtime folder (the pass
/// provider: the encryption subkeys of its store's `.gpg-id` recipients); autofill, outside the sandbox,
/// asks that home's gpg-agent which of them it caches (`KEYINFO --list`), clears each
/// (`CLEAR_PASSPHRASE --mode=normal KEYGRIP`) and asks again, so it never says "Locked" while the agent
/// still holds one. A hostile list can make it clear other keys' passphrases of that agent, nothing more.
enum GPGAgentCache {
    /// The file in the provider's runtime folder: one keygrip (40 hexadecimal digits) a line.
    static let fileName = "gpg-agent-keygrips"

    /// The keygrips listed in `folder`'s ``fileName``, read without following a link and at most 64 KiB;
    /// lines that are not keygrips are skipped. Nil when there is no such file.
    static func keygrips(inFolder folder: String) -> [String]? {
        guard let fd = try? Descriptors.open("\(folder)/\(fileName)", [.noFollow, .nonblocking]) else { return nil }
        defer { Descriptors.closeQuietly(fd) }
        guard (try? FileStatus(descriptor: fd))?.kind == .regular else { return nil }
        var bytes = [UInt8](repeating: 0, count: 64 << 10)
        guard let count = try? bytes.withUnsafeMutableBytes({ raw in try Descriptors.read(fd, into: raw) }) else { return nil }
        var result: [String] = []
        for line in String(decoding: bytes[0..<count], as: UTF8.self).split(separator: "\n") {
            let grip = line.uppercased()
            if isKeygrip(grip) && !result.contains(grip) { result.append(grip) }
        }
        return result
    }

    static func isKeygrip(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) }
    }

    /// Why gpg-agent could not be asked.
    struct Trouble: Error { let text: String }

    /// How clearing went: the keygrips that were cached and are no more, and a sentence when it could not
    /// ask the agent or one is still cached.
    struct Outcome: Equatable {
        var cleared: [String]
        var problem: String?
    }

    /// Clears the passphrases `home`'s gpg-agent caches for `keygrips`. No agent running: nothing is cached.
    /// Nil `keygrips` (the provider listed none): clears nothing, and says so when the agent caches any.
    static func clear(home: String, keygrips: [String]?, environment: [String: String]) -> Outcome {
        guard let tool = GPGAgentLauncher.folders.map({ $0 + "/gpg-connect-agent" }).first(where: Paths.isExecutable) else {
            return Outcome(cleared: [], problem: "gpg-connect-agent is not installed (Debian: gnupg), so autofill cannot ask gpg-agent to forget")
        }
        func ask(_ commands: [String]) -> Result<[Substring], Trouble> {
            var passed = ["PATH": "/usr/local/bin:/usr/bin:/bin"]
            for name in ["HOME", "XDG_RUNTIME_DIR", "LANG"] { if let value = environment[name] { passed[name] = value } }
            let input = Array((commands + ["/bye"]).joined(separator: "\n").utf8) + [0x0A]
            let outcome = ToolProcess(path: tool, arguments: ["gpg-connect-agent", "--homedir", home, "--no-autostart"],
                                      environment: passed, input: input, captureOutput: true).wait()
            guard outcome.status == 0 else { return .failure(Trouble(text: "gpg-connect-agent --homedir \(home) failed (status \(outcome.status))\(outcome.reason)")) }
            return .success(String(decoding: outcome.output, as: UTF8.self).split(separator: "\n"))
        }
        /// The keygrips the agent reports cached (none when no agent runs: gpg-connect-agent says so on stderr).
        func cached() -> Result<Set<String>, Trouble> {
            ask(["KEYINFO --list"]).map { lines in
                var result = Set<String>()
                for line in lines where line.hasPrefix("S KEYINFO ") {
                    // S KEYINFO <keygrip> <type> <serial> <idstr> <cached> <protection> …
                    let fields = line.split(separator: " ")
                    if fields.count > 6, fields[6] == "1" { result.insert(String(fields[2])) }
                }
                return result
            }
        }
        let before: Set<String>
        switch cached() {
        case .failure(let trouble): return Outcome(cleared: [], problem: trouble.text)
        case .success(let found): before = found
        }
        guard let keygrips else {
            return Outcome(cleared: [], problem: before.isEmpty ? nil
                           : "gpg-agent for \(home) caches \(before.count) passphrase\(before.count == 1 ? "" : "s"), and the provider has not listed which keys are its own (it does once it decrypted something), so autofill cleared none; `gpgconf --homedir \(home) --reload gpg-agent` forgets them all")
        }
        let wanted = Set(keygrips)
        let targets = before.intersection(wanted).sorted()
        if targets.isEmpty { return Outcome(cleared: [], problem: nil) }
        if case .failure(let trouble) = ask(targets.map { "CLEAR_PASSPHRASE --mode=normal \($0)" }) {
            return Outcome(cleared: [], problem: trouble.text)
        }
        switch cached() {
        case .failure(let trouble): return Outcome(cleared: [], problem: trouble.text)
        case .success(let after):
            let still = after.intersection(wanted)
            return Outcome(cleared: targets.filter { !still.contains($0) }, problem: still.isEmpty ? nil
                           : "gpg-agent for \(home) still caches the passphrase of \(still.count) of its keys after being asked to forget; run `gpgconf --homedir \(home) --reload gpg-agent`")
        }
    }
}
