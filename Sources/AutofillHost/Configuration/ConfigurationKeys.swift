internal import AutofillCore
/// The keys a host configuration may hold, checked the way capability keys are: a near miss of a known
/// key (`EnabledProvider` for `EnabledProviders`) is an error naming the key meant, since as written the
/// setting would silently not apply; any other unknown key is a warning, and ignored.
///
/// The known keys are the `CodingKeys` of the types that decode them, so a new key is known here the
/// moment it is decoded. Free-form dictionaries (`ProviderSettings`, `ProviderIsolation.Providers`:
/// provider ids and their settings) are not checked.
enum ConfigurationKeys {
    /// The dictionaries whose keys are checked, by key path ("" is the top level), with their known keys.
    static let known: [String: [String]] = [
        "": HostConfiguration.CodingKeys.allCases.map(\.rawValue),
        "UserAuthentication": UserAuthenticationSettings.CodingKeys.allCases.map(\.rawValue),
        "Quarantine": QuarantineSettings.CodingKeys.allCases.map(\.rawValue),
        "ProviderIsolation": ProviderIsolationSettings.CodingKeys.allCases.map(\.rawValue),
    ]

    /// The unknown keys among `present` (key path → the keys found there): near misses (errors) and
    /// others (warnings), as sentences naming the key path.
    static func problems(_ present: [String: [String]]) -> (errors: [String], warnings: [String]) {
        var errors: [String] = [], warnings: [String] = []
        for path in present.keys.sorted() {
            guard let keys = known[path] else { continue }
            let prefix = path.isEmpty ? "" : "\(path)."
            let what = path.isEmpty ? "a configuration key" : "a key of \(path)"
            for key in (present[path] ?? []).sorted() where !keys.contains(key) {
                if let meant = keys.first(where: { KeySpelling.isNearMiss(key, $0) }) {
                    errors.append("\(prefix)\(key) is not \(what); did you mean \(prefix)\(meant)? As written it is ignored: spell it \(meant)")
                } else {
                    warnings.append("\(prefix)\(key) is not \(what); ignored (the keys are \(keys.joined(separator: ", ")))")
                }
            }
        }
        return (errors, warnings)
    }
}

/// A configuration file's contents: the configuration, and the keys present in the dictionaries
/// ``ConfigurationKeys`` checks, read in the same pass (the file is parsed once).
struct ConfigurationDocument: Decodable {
    /// Decoding failed; `keys` were read before it did (a misspelt key often explains a missing one).
    struct Failure: Error {
        var keys: [String: [String]]
        var underlying: any Error
    }

    var configuration: HostConfiguration
    /// Key path ("" for the top level) → the keys present there.
    var keys: [String: [String]]

    init(from decoder: any Decoder) throws {
        var keys: [String: [String]] = [:]
        if let top = try? decoder.container(keyedBy: AnyKey.self) {
            keys[""] = top.allKeys.map(\.stringValue)
            for path in ConfigurationKeys.known.keys where !path.isEmpty {
                if let nested = try? top.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(stringValue: path)) {
                    keys[path] = nested.allKeys.map(\.stringValue)
                }
            }
        }
        do {
            configuration = try HostConfiguration(from: decoder)
        } catch {
            throw Failure(keys: keys, underlying: error)
        }
        self.keys = keys
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
