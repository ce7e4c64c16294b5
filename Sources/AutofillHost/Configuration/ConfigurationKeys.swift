internal import FoundationEssentials

/// The keys a host configuration may hold, checked the way capability keys are: a near miss of a known
/// key (`EnabledProvider` for `EnabledProviders`) is an error naming the key meant, since as written the
/// setting would silently not apply; any other unknown key is a warning, and ignored.
///
/// The known keys are the `CodingKeys` of the types that decode them, so a new key is known here the
/// moment it is decoded. Free-form dictionaries (`ProviderSettings`, `ProviderIsolation.Providers`:
/// provider ids and their settings) are not checked.
enum ConfigurationKeys {
    /// The dictionaries whose keys are checked: their key path, their keys, and the checked dictionaries inside.
    struct Level {
        let path: String
        let keys: [String]
        let nested: [String: Level]
    }

    static let root = Level(path: "", keys: HostConfiguration.CodingKeys.allCases.map(\.rawValue), nested: [
        "UserAuthentication": Level(path: "UserAuthentication", keys: UserAuthenticationSettings.CodingKeys.allCases.map(\.rawValue), nested: [:]),
        "Quarantine": Level(path: "Quarantine", keys: QuarantineSettings.CodingKeys.allCases.map(\.rawValue), nested: [:]),
        "ProviderIsolation": Level(path: "ProviderIsolation", keys: ProviderIsolationSettings.CodingKeys.allCases.map(\.rawValue), nested: [:]),
    ])

    /// The unknown keys of the property list in `data`: near misses (errors) and others (warnings), as
    /// sentences naming the key path. Data that is not a property list has none here (decoding reports it).
    static func problems(in data: Data) -> (errors: [String], warnings: [String]) {
        guard let value = try? PlistValue.read(contentsOf: data), case .dictionary(let dictionary) = value else { return ([], []) }
        var errors: [String] = [], warnings: [String] = []
        check(dictionary, at: root, errors: &errors, warnings: &warnings)
        return (errors, warnings)
    }

    private static func check(_ dictionary: [String: PlistValue], at level: Level, errors: inout [String], warnings: inout [String]) {
        let known = Set(level.keys)
        let prefix = level.path.isEmpty ? "" : "\(level.path)."
        let what = level.path.isEmpty ? "a configuration key" : "a key of \(level.path)"
        for key in dictionary.keys.sorted() {
            if known.contains(key) {
                if let nested = level.nested[key], case .dictionary(let inner)? = dictionary[key] {
                    check(inner, at: nested, errors: &errors, warnings: &warnings)
                }
            } else if let meant = level.keys.first(where: { KeySpelling.isNearMiss(key, $0) }) {
                errors.append("\(prefix)\(key) is not \(what); did you mean \(prefix)\(meant)? As written it is ignored: spell it \(meant)")
            } else {
                warnings.append("\(prefix)\(key) is not \(what); ignored (the keys are \(level.keys.joined(separator: ", ")))")
            }
        }
    }
}
