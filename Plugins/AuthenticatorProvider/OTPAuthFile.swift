// The OTPAuthFile: one otpauth:// URI per line, read into entries with stable record identifiers.
import AutofillOTP
import AutofillProviderKit
import FoundationEssentials

/// One generator of the OTPAuthFile. Holds the secret: keep it only for one request.
struct OTPEntry: Sendable {
    /// `otp-` and a short hash of issuer and account: stable when the file is reordered.
    let recordIdentifier: String
    /// `af_domain`, else the issuer lower-cased, else the label.
    let service: String
    /// The URI's label as written (`Example:alice@example.com`).
    let label: String
    /// The generator.
    let parameters: OneTimeCodeParameters

    /// What the host may know: no secret.
    var identity: OneTimeCodeCredentialIdentity {
        OneTimeCodeCredentialIdentity(
            serviceIdentifier: ServiceIdentifier(identifier: service, type: .domain), label: label,
            recordIdentifier: recordIdentifier)
    }
}

enum OTPAuthFile {
    /// Why the file gave no entries.
    struct Unreadable: Error {
        let reason: String
    }

    /// The entries of the file at `path`. Blank lines and lines starting with `#` are skipped;
    /// so is a malformed URI, with a warning when `logProblems` is set (the warning quotes the
    /// URI redacted, never its secret).
    static func read(_ path: String, host: ProviderHost, logProblems: Bool) throws(Unreadable) -> [OTPEntry] {
        guard var data = FileManager.default.contents(atPath: path) else {
            throw Unreadable(reason: "cannot read the OTPAuthFile \(path)")
        }
        let text = String(decoding: data, as: UTF8.self)
        data.resetBytes(in: 0..<data.count)
        var entries: [OTPEntry] = []
        var firstLine: [String: Int] = [:]  // record identifier → line, to report duplicates
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = index + 1
            var line = Substring(rawLine)
            if number == 1, line.first == "\u{FEFF}" { line = line.dropFirst() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let uri: OTPAuthURI
            do {
                uri = try OTPAuthURI(parsing: String(trimmed))
            } catch {
                if logProblems { host.log(.warning, "OTPAuthFile line \(number) skipped: \(error.message)") }
                continue
            }
            let label = uri.label
            if logProblems {
                for note in uri.notes { host.log(.notice, "OTPAuthFile line \(number) (\(label)): \(note)") }
            }
            let issuer = uri.parameters.issuer ?? ""
            var record = "otp-" + shortHash(issuer + "\u{1F}" + uri.parameters.account)
            if let first = firstLine[record] {
                var suffix = 2
                while firstLine["\(record)-\(suffix)"] != nil { suffix += 1 }
                if logProblems {
                    host.log(.warning, "OTPAuthFile line \(number) (\(label)) has the issuer and account of line \(first); its record identifier depends on the order of the file")
                }
                record += "-\(suffix)"
            }
            firstLine[record] = number
            let service = uri.domain ?? uri.parameters.issuer?.lowercased() ?? label
            entries.append(OTPEntry(recordIdentifier: record, service: service, label: label, parameters: uri.parameters))
        }
        return entries
    }

    /// 12 hex digits of the FNV-1a hash of `text` (stable across processes, unlike `Hasher`).
    static func shortHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String((String(repeating: "0", count: 16 - hex.count) + hex).prefix(12))
    }
}
