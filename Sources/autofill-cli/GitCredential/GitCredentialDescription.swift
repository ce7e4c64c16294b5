import AutofillSystem

/// A credential description as git writes it to a helper's stdin (git-credential(1), "INPUT/OUTPUT
/// FORMAT"): `key=value` lines up to a blank line or the end of input.
///
/// git's input is untrusted: the URL of a hostile repository becomes `host=` and `path=`. Reading is
/// bounded (git's own limit of 65,535 bytes a line; 1 MiB in all), a NUL or a line without `=` makes
/// the whole description invalid, and ``site`` accepts http and https with a plain host only.
/// Unknown keys (`wwwauth[]`, `capability[]`, `state[]`, `oauth_refresh_token`, future ones) are
/// ignored, as git asks of helpers.
struct GitCredentialDescription: Equatable {
    var protocolName: String?
    var host: String?
    var path: String?
    var username: String?
    var password: String?
    /// `password_expiry_utc` was given: the password is a short-lived token.
    var expires = false
    /// `ephemeral=1` (or true): the credential is not to be stored.
    var ephemeral = false

    /// git's limit for one line, its newline included.
    static let maximumLineLength = 65_535
    /// The most autofill reads from git.
    static let maximumInputLength = 1 << 20

    /// Why a description was not read.
    enum Problem: Error, Equatable, CustomStringConvertible {
        case lineTooLong(line: Int)
        case inputTooLong
        case nul(line: Int)
        case noEquals(line: Int)
        case notUTF8(key: String)
        case badURL
        case unreadable(String)

        var description: String {
            switch self {
            case .lineTooLong(let line): "line \(line) is longer than git's limit of \(maximumLineLength) bytes"
            case .inputTooLong: "the description is longer than \(maximumInputLength) bytes"
            case .nul(let line): "line \(line) holds a NUL byte"
            case .noEquals(let line): "line \(line) is not key=value"
            case .notUTF8(let key): "the value of \(key) is not UTF-8"
            case .badURL: "url= holds no protocol://"
            case .unreadable(let reason): "stdin could not be read: \(reason)"
            }
        }
    }

    /// How long git may take to write its description (it writes it at once).
    static let inputDeadline: Duration = .seconds(10)

    /// Reads a description from `descriptor`, up to its blank line (nothing after it is read) or end,
    /// for at most ``inputDeadline``, and no longer once `cancellation` is readable (the agent's
    /// client went away): a caller that never finishes its description holds no thread for long.
    static func read(from descriptor: Int32, cancellation: Int32? = nil) throws(Problem) -> GitCredentialDescription {
        var lines: [ArraySlice<UInt8>] = []
        var pending: [UInt8] = []
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + inputDeadline
        reading: while true {
            try waitUntilReadable(descriptor, cancellation: cancellation, deadline: deadline)
            let read = chunk.withUnsafeMutableBytes { raw in Result { () throws(SystemError) in try Descriptors.read(descriptor, into: raw) } }
            let count: Int
            switch read {
            case .success(let got): count = got
            case .failure(let error): throw .unreadable(error.reason)
            }
            if count == 0 { break }
            total += count
            guard total <= maximumInputLength else { throw .inputTooLong }
            for byte in chunk[0..<count] {
                guard byte == UInt8(ascii: "\n") else {
                    pending.append(byte)
                    guard pending.count < maximumLineLength else { throw .lineTooLong(line: lines.count + 1) }
                    continue
                }
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }  // as git's strbuf_getline
                if pending.isEmpty { break reading }
                lines.append(pending[...])
                pending = []
            }
        }
        if !pending.isEmpty { lines.append(pending[...]) }
        return try parse(lines)
    }

    private static func waitUntilReadable(_ descriptor: Int32, cancellation: Int32?, deadline: ContinuousClock.Instant) throws(Problem) {
        let watched = [descriptor] + (cancellation.map { [$0] } ?? [])
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw .unreadable("git wrote no whole description within \(inputDeadline.components.seconds) s") }
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            let ready: [Bool]
            do {
                ready = try Descriptors.waitReadable(any: watched, timeoutMilliseconds: milliseconds)
            } catch {
                throw .unreadable(error.reason)
            }
            if ready.count > 1 && ready[1] { throw .unreadable("the client went away") }
            if ready[0] { return }  // data, end of input or an error: read(2) says which
        }
    }

    /// The description in `lines` (without their newlines).
    static func parse(_ lines: [ArraySlice<UInt8>]) throws(Problem) -> GitCredentialDescription {
        var description = GitCredentialDescription()
        for (index, line) in lines.enumerated() {
            guard !line.contains(0) else { throw .nul(line: index + 1) }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { throw .noEquals(line: index + 1) }
            let key = String(decoding: line[..<equals], as: UTF8.self)
            let raw = line[(equals + 1)...]
            func value() throws(Problem) -> String {
                guard let text = String(validating: raw, as: UTF8.self) else { throw .notUTF8(key: key) }
                return text
            }
            switch key {
            case "protocol": description.protocolName = try value()
            case "host": description.host = try value()
            case "path": description.path = try value()
            case "username": description.username = try value()
            case "password": description.password = try value()
            case "password_expiry_utc": description.expires = true
            case "ephemeral": description.ephemeral = ["1", "true", "yes", "on"].contains(try value().lowercased())
            case "url": try description.take(url: try value())
            default: continue  // wwwauth[], capability[], state[], oauth_refresh_token, authtype, quit, …
            }
        }
        return description
    }

    /// `url=` as git reads it: the description starts again from the URL's parts
    /// (`protocol://[user[:password]@]host[:port][/path]`, percent-decoded).
    mutating func take(url: String) throws(Problem) {
        let bytes = Array(url.utf8)
        guard let scheme = bytes.firstRange(of: Array("://".utf8)) else { throw .badURL }
        self = GitCredentialDescription()
        protocolName = String(decoding: bytes[..<scheme.lowerBound], as: UTF8.self)
        let rest = bytes[scheme.upperBound...]
        let authorityEnd = rest.firstIndex { [UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains($0) } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.firstIndex(of: UInt8(ascii: "@")) {
            let userinfo = authority[..<at]
            let colon = userinfo.firstIndex(of: UInt8(ascii: ":"))
            username = Self.percentDecoded(userinfo[..<(colon ?? userinfo.endIndex)])
            if let colon { password = Self.percentDecoded(userinfo[(colon + 1)...]) }
            authority = authority[(at + 1)...]
        }
        host = Self.percentDecoded(authority)
        let trimmed = rest[authorityEnd...].drop { $0 == UInt8(ascii: "/") }
        if !trimmed.isEmpty { path = Self.percentDecoded(trimmed) }
    }

    static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String {
        var result: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
