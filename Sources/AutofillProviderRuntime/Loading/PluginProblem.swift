internal import AutofillCore

/// One thing wrong with a plugin bundle, with where it is and how to fix it.
public struct PluginProblem: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Stable identifiers for the kinds of problem (tests and `--json` use them).
    public enum Code: String, Hashable, Sendable, Codable, CaseIterable {
        case bundleNotFound
        case missingPlist
        case malformedPlist
        case missingKey
        case wrongType
        case invalidValue
        case unknownExtensionPoint
        case unknownKey
        case abiVersionMismatch
        case libraryNotFound
        case notSharedLibrary
        case loadFailed
        case missingEntrySymbol
        case entryRefused
        case tableVersionMismatch
        case tableTooSmall
        case missingEntryPoints
        /// Another user could change the bundle (write permission or ownership); see `PluginPermissions`.
        case unsafePermissions
    }

    /// Whether the problem makes the plugin invalid.
    public enum Severity: String, Hashable, Sendable, Codable {
        case error
        case warning
    }

    /// The problem's kind.
    public var code: Code
    /// Error or warning.
    public var severity: Severity
    /// The file involved (the plist or the library).
    public var file: String?
    /// The key path in the plist (`NSExtension.NSExtensionAttributes.…`), if any.
    public var keyPath: String?
    /// What is wrong and what was expected.
    public var message: String
    /// What to do about it.
    public var fix: String

    /// Creates a problem.
    public init(
        _ code: Code, severity: Severity = .error, file: String? = nil, keyPath: String? = nil, message: String,
        fix: String
    ) {
        self.code = code
        self.severity = severity
        self.file = file
        self.keyPath = keyPath
        self.message = message
        self.fix = fix
    }

    /// "file: key path: message" and an indented "fix:" line; a path or plist value that holds control
    /// characters or escape sequences shows them escaped (``DisplayText``).
    public var description: String {
        var where_ = file ?? ""
        if let keyPath { where_ += where_.isEmpty ? keyPath : ": \(keyPath)" }
        let head = where_.isEmpty ? message : "\(where_): \(message)"
        return "\(DisplayText.escaped(head, keepingNewlines: false))\n    fix: \(DisplayText.escaped(fix, keepingNewlines: false))"
    }
}
