public import FoundationEssentials

/// Whether the host would run an enabled provider now, and why not; what `providers list` shows.
/// Working it out reads the bundle's permissions and hashes its files; it runs none of its code.
public enum ProviderTrustState: Sendable, Equatable {
    /// The files are the ones recorded.
    case trusted(TrustRecord)
    /// Enabled without `providers enable` (listed in the configuration by hand): the user never approved
    /// these files. Refused until `providers trust` (or a yes at the terminal, where autofill asks).
    case notRecorded
    /// The files differ from the ones recorded: refused until `providers trust`.
    case changed(files: [String], record: TrustRecord)
    /// The files are the recorded ones, but its sandbox declaration asks for permissions the user did
    /// not approve (a record from before the sandbox approved none): refused until `providers trust`.
    case newPermissions([String], record: TrustRecord)
    /// Quarantined after repeated faults: refused until its files change, `providers enable` or `providers trust`.
    case quarantined(ProviderQuarantine)
    /// Other users could change its files: refused until the permissions are fixed.
    case unsafe([PluginProblem])
    /// Its files or the host's records could not be read.
    case unreadable(AutofillError)

    /// One word for tables and JSON: `trusted`, `notRecorded`, `changed`, `quarantined`, `unsafe`, `unreadable`.
    public var name: String {
        switch self {
        case .trusted: "trusted"
        case .notRecorded: "notRecorded"
        case .changed: "changed"
        case .newPermissions: "newPermissions"
        case .quarantined: "quarantined"
        case .unsafe: "unsafe"
        case .unreadable: "unreadable"
        }
    }

    /// Whether a launch goes ahead without asking anyone.
    public var allowsLaunch: Bool {
        switch self {
        case .trusted: true
        case .notRecorded, .changed, .newPermissions, .quarantined, .unsafe, .unreadable: false
        }
    }

    /// Why the host refuses to launch `manifest`'s provider in this state, and what to do; nil when it
    /// launches. `previousRecords`: a trust file of an earlier autofill, no longer read (named in the
    /// `notRecorded` message, so that users upgrading know why they are asked again).
    public func refusal(for manifest: PluginManifest, previousRecords: String? = nil) -> AutofillError? {
        let name = "\(manifest.displayName) (\(manifest.identifier))"
        switch self {
        case .trusted:
            return nil
        case .notRecorded:
            let earlier = previousRecords.map {
                " (autofill no longer reads the records in \($0): they were kept per configuration; see docs/CONFIGURATION.md, \"Trust\")"
            } ?? ""
            return AutofillError(
                .refused,
                "\(name) is enabled, but you have not approved its files (\(manifest.bundlePath)): run `autofill providers trust \(manifest.identifier)` to see their SHA-256 and approve them, or run autofill in a terminal to be asked\(earlier)")
        case .changed(let files, let record):
            // "libdep.so differs", "extra.so was added", "a.so and b.so differ".
            var phrases: [String] = []
            let differing = files.filter { !$0.hasSuffix(" (added)") && !$0.hasSuffix(" (removed)") }
            if !differing.isEmpty { phrases.append(differing.count == 1 ? "\(differing[0]) differs" : "\(differing.joined(separator: " and ")) differ") }
            for (suffix, verb) in [(" (added)", "added"), (" (removed)", "removed")] {
                let named = files.filter { $0.hasSuffix(suffix) }.map { String($0.dropLast(suffix.count)) }
                if !named.isEmpty { phrases.append("\(named.joined(separator: " and ")) \(named.count == 1 ? "was" : "were") \(verb)") }
            }
            let differ = phrases.joined(separator: "; ")
            return AutofillError(
                .refused,
                "\(name) changed \(record.sinceWhat): \(differ); run `autofill providers trust \(manifest.identifier)` after checking it")
        case .newPermissions(let keys, _):
            let words = keys.map(SandboxDeclaration.describe(permissionKey:)).joined(separator: "; ")
            return AutofillError(
                .refused,
                "\(name) asks for more than you approved: \(words); run `autofill providers trust \(manifest.identifier)` to review its permissions and approve them")
        case .quarantined(let quarantine):
            return AutofillError(
                .refused,
                "\(name) is quarantined since \(quarantine.since.autofillTimestamp): \(quarantine.reason). After checking it, run `autofill providers enable \(manifest.identifier)` to lift the quarantine (a changed plugin lifts it too)")
        case .unsafe(let problems):
            return AutofillError(.refused, "\(name) is not loaded: users other than you could change its files:", problems: problems)
        case .unreadable(let error):
            return error
        }
    }

    public static func == (lhs: ProviderTrustState, rhs: ProviderTrustState) -> Bool {
        switch (lhs, rhs) {
        case (.trusted(let a), .trusted(let b)): a == b
        case (.notRecorded, .notRecorded): true
        case (.changed(let a, let r), .changed(let b, let s)): a == b && r == s
        case (.quarantined(let a), .quarantined(let b)): a == b
        case (.unsafe(let a), .unsafe(let b)): a == b
        case (.unreadable(let a), .unreadable(let b)): a.code == b.code && a.message == b.message
        default: false
        }
    }
}

/// What `autofill providers trust` did: the record before, and the files now.
public struct TrustChange: Sendable {
    /// The provider.
    public var manifest: PluginManifest
    /// The record replaced, if there was one.
    public var previous: TrustRecord?
    /// The record now.
    public var current: TrustRecord
    /// The quarantine lifted, if it was quarantined.
    public var liftedQuarantine: ProviderQuarantine?

    /// The files whose digests changed (all of them when there was no record).
    public var changedFiles: [String] {
        guard let previous else { return [manifest.executable, "Info.plist"] }
        return current.fingerprint.changedFiles(since: previous.fingerprint, executable: manifest.executable)
    }

    /// What the provider's settings let it reach now that the replaced record did not approve
    /// (grant keys, ``ProviderSetup/grantKeys(of:)``); empty without an earlier record of grants.
    public var newGrants: [String] {
        guard let approved = previous?.grants, let now = current.grants else { return [] }
        return ProviderSetup.widerGrants(now, than: approved)
    }
}

extension Date {
    /// `2025-11-22T07:40:12Z`: how the host shows times in messages and lists.
    public var autofillTimestamp: String { formatted(.iso8601) }

    /// Now, in whole seconds: what the host's records keep (ISO 8601), so a value equals itself read back.
    static var wholeSecondsNow: Date { Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)) }
}
