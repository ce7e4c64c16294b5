internal import Foundation

/// One generated login, written both as a Bitwarden CSV row (for `autofill-vault import`) and as a
/// KeePass 2 XML entry (for `keepassxc-cli import`), so the Vault and KeePassXC hold the same data.
struct GeneratedLogin {
    /// The entry's name (Bitwarden) and title (KeePass): the site and the user, unique in a vault.
    let title: String
    /// The login page: what `autofill fill` is given.
    let uri: String
    let user: String
    let password: String
    /// A bare Base32 TOTP secret, on every tenth login.
    let totp: String?
    let notes: String?
    let favorite: Bool
}

/// The agent benchmark's vault contents: `count` logins on sites under a few public suffixes, about
/// 1.25 logins per site (every fifth site has two accounts), some with notes, TOTP secrets and the
/// favorite flag, from a seed (two runs build the same vaults).
enum LoginGenerator {
    static let suffixes = ["com", "org", "net", "de", "io", "co.uk", "fr", "com.au"]
    static let passwordAlphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_.!*")
    static let base32Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    static func logins(count: Int, seed: UInt64) -> [GeneratedLogin] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            let site = index * 4 / 5
            let domain = "site\(site).\(suffixes[site % suffixes.count])"
            let uri = switch index % 4 {
            case 0: "https://www.\(domain)/login"
            case 1: "https://\(domain)"
            case 2: "https://accounts.\(domain)/signin"
            default: "https://\(domain)/"
            }
            let user = switch index % 3 {
            case 0: "user\(index)@mail.example"
            case 1: "user\(index)"
            default: "User.\(index)"
            }
            let password = String((0..<20).map { _ in generator.pick(passwordAlphabet) })
            let totp = index % 10 == 3 ? String((0..<16).map { _ in generator.pick(base32Alphabet) }) : nil
            let notes = index % 7 == 5 ? "Account opened in \(2010 + index % 15), security questions in \"the other\" vault." : nil
            return GeneratedLogin(title: "\(domain) (\(user))", uri: uri, user: user, password: password, totp: totp, notes: notes,
                                  favorite: index % 50 == 7)
        }
    }

    /// A Bitwarden export (RFC 4180 quoting) of `logins`.
    static func bitwardenCSV(_ logins: [GeneratedLogin]) -> String {
        var text = "folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp\n"
        text.reserveCapacity(logins.count * 120)
        for login in logins {
            let fields = ["", login.favorite ? "1" : "", "login", login.title, login.notes ?? "", "", "0",
                          login.uri, login.user, login.password, login.totp ?? ""]
            text += fields.map(csvField).joined(separator: ",") + "\n"
        }
        return text
    }

    /// A KeePass 2 XML file (what KeePass exports unencrypted, and `keepassxc-cli import` reads) of
    /// `logins`: one group, an entry per login with its title, user name, password (protected), URL,
    /// notes and, for a TOTP secret, the `otp` attribute KeePassXC uses.
    static func keePassXML(_ logins: [GeneratedLogin]) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <KeePassFile>
            <Meta><Generator>autofill-bench</Generator><DatabaseName>autofill-bench</DatabaseName></Meta>
            <Root>
            <Group><UUID>\(uuid(0))</UUID><Name>Root</Name>

            """
        text.reserveCapacity(logins.count * 400)
        for (index, login) in logins.enumerated() {
            text += "<Entry><UUID>\(uuid(index + 1))</UUID>"
            var strings = [("Title", login.title, false), ("UserName", login.user, false), ("Password", login.password, true), ("URL", login.uri, false)]
            if let notes = login.notes { strings.append(("Notes", notes, false)) }
            if let totp = login.totp {
                strings.append(("otp", "otpauth://totp/\(login.user)?secret=\(totp)&period=30&digits=6", true))
            }
            for (key, value, protected) in strings {
                text += "<String><Key>\(key)</Key><Value\(protected ? " ProtectInMemory=\"True\"" : "")>\(xmlEscaped(value))</Value></String>"
            }
            text += "</Entry>\n"
        }
        text += "</Group>\n</Root>\n</KeePassFile>\n"
        return text
    }

    /// A 16-byte UUID in Base64 (KeePass XML's form), distinct for each `number`.
    private static func uuid(_ number: Int) -> String {
        var bytes = [UInt8](repeating: 0xAB, count: 8)
        withUnsafeBytes(of: UInt64(number).bigEndian) { bytes += $0 }
        return Data(bytes).base64EncodedString()
    }

    private static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func xmlEscaped(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
