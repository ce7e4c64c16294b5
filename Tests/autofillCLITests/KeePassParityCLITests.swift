import AutofillTestSupport
import Foundation
import Testing

/// KeePassXC parity through the real `autofill` and its sandboxed helper, on databases keepassxc-cli
/// made: references and placeholders, scheme-less URLs with ports, KeeOTP codes, empty passwords,
/// EdDSA and RS256 passkeys and legacy credential ids, and the files that crashed the helper.
@Suite(.enabled(if: KeePassXC.isInstalled, "keepassxc-cli is not installed (Scripts/bootstrap test)"))
struct KeePassParityCLITests {
    let home: TemporaryHome
    let database: String

    static let masterPassword = "parity master"
    static let totpSecret = "JBSWY3DPEHPK3PXP"
    /// The UUIDs KeePassXML gives its entries, in order, as 32 hexadecimal digits.
    static func uuid(_ index: Int) -> String { String(repeating: "40", count: 14) + String(format: "%04X", 17 + index) }

    init() throws {
        home = try TemporaryHome()
        // The agent holds the user's policy; these requests ask for none, so the user's does too.
        try home.userConfiguration(["UserAuthentication": ["Policy": "none"]])
        database = "\(home.path)/parity.kdbx"
        _ = try home.sample("KeePassProvider", as: "org.autofill.keepassxc")
    }

    /// The relying party (`Support/relying_party.py`).
    static func relyingParty(_ arguments: [String], stdin: String = "") throws -> CLI.Result {
        try ChildProcess.run("/usr/bin/env", ["python3", "\(CLI.root)/Tests/autofillCLITests/Support/relying_party.py"] + arguments, input: stdin)
    }

    /// A configuration with the provider on `path`, approved; `isolation` as ProviderIsolation.
    func configure(_ path: String, isolation: [String: Any]? = nil) throws -> String {
        var plist: [String: Any] = [
            "PluginSearchPaths": ["plugins"], "EnabledProviders": ["org.autofill.keepassxc"],
            "ProviderSettings": ["org.autofill.keepassxc": ["DatabaseFile": path]],
            "UserAuthentication": ["Policy": "pam", "PAMService": "autofill-permit", "PAMConfigurationDirectory": try home.pamFolder()],
        ]
        if let isolation { plist["ProviderIsolation"] = isolation }
        let config = "\(home.path)/config-\(UUID().uuidString).plist"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: URL(fileURLWithPath: config))
        try home.trust(["org.autofill.keepassxc"], config: config)
        let sync = try CLI.run(["providers", "sync", "--config", config], home: home.path)
        #expect(sync.status == 0, "\(sync.stderr)")
        return config
    }

    func run(_ arguments: [String], config: String, unlocking: Bool = true) throws -> CLI.Result {
        var options = ["--config", config]
        if unlocking && !CLI.usesAgent || arguments.first == "unlock" {
            options += ["--ui-script", try home.file("script-\(UUID().uuidString).ui", "secret \(Self.masterPassword)\n")]
        }
        return try CLI.run(arguments + options, home: home.path)
    }

    func unlock(_ config: String) throws {
        let unlocked = try run(["unlock", "org.autofill.keepassxc"], config: config)
        try #require(unlocked.status == 0, "\(unlocked.stderr)")
    }

    /// The parity database: references, placeholders, ports, KeeOTP, an empty password, three passkeys.
    func parityDatabase() throws -> (config: String, passkeys: [String: String]) {
        var entries: [KeePassXML.Entry] = [
            .init(title: "Main", user: "alice", password: "main-pass", url: "https://main.example"),
            .init(title: "Ref", user: "{REF:U@I:\(Self.uuid(0))}", password: "{REF:P@I:\(Self.uuid(0))}", url: "https://ref.example"),
            .init(title: "Self", user: "carol", password: "{USERNAME}-{TITLE}-{url}", url: "https://self.example"),
            .init(title: "Loop", user: "loop", password: "{REF:P@I:\(Self.uuid(3))}", url: "https://loop.example"),
            .init(title: "NAS", user: "nas", password: "nas-pass", url: "10.20.30.40:5001"),
            .init(title: "Intranet", user: "intra", password: "intra-pass", url: "intranet.example:8080"),
            .init(title: "KeeOTP", user: "kee", password: "kee-pass", url: "https://keeotp.example", fields: ["otp": "key=\(Self.totpSecret)&size=8&step=30"]),
            .init(title: "Empty", user: "nobody", password: "", url: "https://empty.example"),
        ]
        var states: [String: String] = [:]
        for (algorithm, legacy) in [("eddsa", false), ("rs256", false), ("es256", true)] {
            let rp = "\(algorithm)\(legacy ? "-legacy" : "").example"
            let state = "\(home.path)/rp-\(rp).json"
            let made = try Self.relyingParty(["keepassxc-passkey", state, "--rp-id", rp, "--user", "pk-\(algorithm)", "--alg", algorithm] + (legacy ? ["--legacy-id"] : []))
            try #require(made.status == 0, "\(made.stderr)")
            let fields = try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: String] ?? [:]
            entries.append(.init(title: "Passkey \(rp)", user: "pk-\(algorithm)", password: "", url: "https://\(rp)", fields: fields))
            states[rp] = state
        }
        try KeePassXC.importXML(try home.file("parity.xml", KeePassXML(entries: entries).text), to: database, key: KeePassXC.Key(password: Self.masterPassword))
        return (try configure(database), states)
    }

    @Test func referencesAndPlaceholdersFillAsKeePassXCResolvesThemAndACycleEnds() throws {
        let (config, _) = try parityDatabase()
        try unlock(config)
        #expect(try run(["fill", "ref.example"], config: config).stdout == "main-pass\n")
        let suggested = try run(["suggest", "ref.example"], config: config, unlocking: false)  // suggest runs no provider
        #expect(suggested.stdout.contains("alice") && !suggested.stdout.contains("REF:"), "\(suggested.stdout) \(suggested.stderr)")
        #expect(try run(["fill", "self.example"], config: config).stdout == "carol-Self-https://self.example\n")
        let loop = try run(["fill", "loop.example"], config: config)
        #expect(loop.status == 0 && loop.stdout == "{REF:P@I:\(Self.uuid(3))}\n", "\(loop.stderr)")
    }

    @Test(arguments: [("http://10.20.30.40:5001/", "nas-pass"), ("https://intranet.example:8080/login", "intra-pass")])
    func aURLWithAPortButNoSchemeIsSuggestedForThatHost(site: String, password: String) throws {
        let (config, _) = try parityDatabase()
        try unlock(config)
        let fill = try run(["fill", site], config: config)
        #expect(fill.status == 0 && fill.stdout == "\(password)\n", "\(fill.stderr)")
    }

    @Test func aKeeOTPCodeMatchesOathtool() throws {
        let (config, _) = try parityDatabase()
        try unlock(config)
        let start = Date()
        let code = try run(["fill", "keeotp.example", "--type", "otp"], config: config)
        #expect(code.status == 0, "\(code.stderr)")
        let seconds = Int64(start.timeIntervalSince1970) - 1...Int64(Date().timeIntervalSince1970) + 1
        let expected = try Set(seconds.map { try Oathtool.run(["--totp=SHA1", "-d", "8", "-b", "--now", "@\($0)", "-"], key: Self.totpSecret) })
        #expect(expected.contains(code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(code.stdout)")
    }

    @Test func anEntryWithAnEmptyPasswordIsNotOfferedAsALogin() throws {
        let (config, _) = try parityDatabase()
        try unlock(config)
        let suggested = try run(["suggest", "empty.example"], config: config, unlocking: false)
        #expect(suggested.status == 0 && !suggested.stdout.contains("nobody"), "\(suggested.stdout) \(suggested.stderr)")
        #expect(try run(["fill", "main.example"], config: config).stdout == "main-pass\n")  // control
    }

    @Test(arguments: ["eddsa.example", "rs256.example", "es256-legacy.example"])
    func eddsaRS256AndLegacyIdPasskeysSignAndTheRelyingPartyVerifies(rp: String) throws {
        let (config, states) = try parityDatabase()
        try unlock(config)
        let state = try #require(states[rp])
        let options = try Self.relyingParty(["authentication-options", state, "--uv", "required"])
        try #require(options.status == 0, "\(options.stderr)")
        let signed = try run(["passkey", "get", "--origin", "https://\(rp)", "--options", try home.file("get-\(rp).json", options.stdout), "--json"], config: config)
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(!signed.stdout.contains("PRIVATE KEY") && !signed.stderr.contains("PRIVATE KEY"))
        let verdict = try Self.relyingParty(["authentication-verify", state, "--origin", "https://\(rp)"], stdin: signed.stdout)
        #expect(verdict.status == 0, "\(verdict.stderr)")
    }
}
